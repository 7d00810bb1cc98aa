#include "broker/security/scram.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace skiff::broker::security {
namespace {

// RFC 7677 section 3: user "user", password "pencil".
constexpr const char* kRfcClientFirst = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO";
constexpr const char* kRfcServerNonce = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
constexpr const char* kRfcServerFirst =
    "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
constexpr const char* kRfcClientFinal =
    "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
    "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
constexpr const char* kRfcServerFinal = "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";

ScramCredential rfc_credential() {
    return derive_scram_credential(ScramMechanism::sha256, "pencil",
                                   *base64_decode("W22ZaJ0SNY7soEsUEjb6gQ=="), 4096);
}

ScramCredentialLookup users(std::map<std::string, ScramCredential> table) {
    return [table = std::move(table)](const std::string& user) -> std::optional<ScramCredential> {
        auto it = table.find(user);
        if (it == table.end())
            return std::nullopt;
        return it->second;
    };
}

ScramCredentialLookup rfc_users() {
    return users({{"user", rfc_credential()}});
}

// The client side, written from RFC 5802 section 3, for the round trips.
struct TestClient {
    TestClient(ScramMechanism m, std::string u, std::string p)
        : mechanism(m), user(std::move(u)), password(std::move(p)) {}
    ScramMechanism mechanism;
    std::string user;
    std::string password;
    std::string nonce = "clientNonce123";
    std::string gs2 = "n,,";
    // librdkafka's way: its own nonce once more in front of the combined one (Kafka accepts it).
    bool repeat_client_nonce = false;
    std::string first_bare;
    std::string auth_message;
    std::string salted;

    std::string first() {
        first_bare = "n=" + scram_escape_username(user) + ",r=" + nonce;
        return gs2 + first_bare;
    }
    // Parses server-first, returns client-final.
    std::string final_message(const std::string& server_first) {
        std::string r, s;
        int32_t i = 0;
        size_t start = 0;
        while (start <= server_first.size()) {
            size_t comma = server_first.find(',', start);
            std::string part = server_first.substr(
                start, comma == std::string::npos ? std::string::npos : comma - start);
            if (part.starts_with("r="))
                r = part.substr(2);
            else if (part.starts_with("s="))
                s = *base64_decode(part.substr(2));
            else if (part.starts_with("i="))
                i = std::stoi(part.substr(2));
            if (comma == std::string::npos)
                break;
            start = comma + 1;
        }
        salted = scram_salted_password(mechanism, password, s, i);
        std::string without_proof =
            "c=" + base64_encode(gs2) + ",r=" + (repeat_client_nonce ? nonce : "") + r;
        auth_message = first_bare + "," + server_first + "," + without_proof;
        std::string client_key = scram_hmac(mechanism, salted, "Client Key");
        std::string signature =
            scram_hmac(mechanism, scram_hash(mechanism, client_key), auth_message);
        std::string proof = client_key;
        for (size_t k = 0; k < proof.size(); ++k)
            proof[k] = static_cast<char>(proof[k] ^ signature[k]);
        return without_proof + ",p=" + base64_encode(proof);
    }
    std::string expected_server_final() const {
        return "v=" + base64_encode(scram_hmac(
                          mechanism, scram_hmac(mechanism, salted, "Server Key"), auth_message));
    }
};

TEST(ScramTest, Rfc7677Sha256TestVector) {
    ScramServerExchange exchange(ScramMechanism::sha256, rfc_users(), kRfcServerNonce);
    auto first = exchange.client_first(kRfcClientFirst);
    ASSERT_TRUE(first) << first.error().message;
    EXPECT_EQ(*first, kRfcServerFirst);
    EXPECT_FALSE(exchange.complete());
    auto final = exchange.client_final(kRfcClientFinal);
    ASSERT_TRUE(final) << final.error().message;
    EXPECT_EQ(*final, kRfcServerFinal);
    EXPECT_TRUE(exchange.complete());
    EXPECT_EQ(exchange.username(), "user");
}

TEST(ScramTest, DerivedCredentialHoldsNoPassword) {
    ScramCredential c = rfc_credential();
    EXPECT_EQ(c.iterations, 4096);
    EXPECT_EQ(c.stored_key.size(), 32u);
    EXPECT_EQ(c.server_key.size(), 32u);
    EXPECT_EQ(c.stored_key.find("pencil"), std::string::npos);
    // Fresh credentials: a random 32-byte salt, different every time.
    ScramCredential a = new_scram_credential(ScramMechanism::sha512, "pencil");
    ScramCredential b = new_scram_credential(ScramMechanism::sha512, "pencil");
    EXPECT_EQ(a.salt.size(), kScramSaltBytes);
    EXPECT_NE(a.salt, b.salt);
    EXPECT_NE(a.stored_key, b.stored_key);
    EXPECT_EQ(a.stored_key.size(), 64u);
    EXPECT_EQ(a.iterations, kScramDefaultIterations);
}

TEST(ScramTest, Sha512RoundTrip) {
    for (int32_t iterations : {4096, 8192}) {
        const std::string user = "al,ice=admin";  // needs both escapes
        ScramServerExchange exchange(
            ScramMechanism::sha512,
            users({{user, new_scram_credential(ScramMechanism::sha512, "s3cret", iterations)}}));
        TestClient client{ScramMechanism::sha512, user, "s3cret"};
        auto first = exchange.client_first(client.first());
        ASSERT_TRUE(first) << first.error().message;
        EXPECT_TRUE(first->starts_with("r=" + client.nonce));
        EXPECT_NE(first->find(",i=" + std::to_string(iterations)), std::string::npos);
        auto final = exchange.client_final(client.final_message(*first));
        ASSERT_TRUE(final) << final.error().message;
        EXPECT_EQ(*final, client.expected_server_final());
        EXPECT_TRUE(exchange.complete());
        EXPECT_EQ(exchange.username(), user);
    }
}

TEST(ScramTest, Sha256RoundTripWithAuthzidAndRandomNonce) {
    ScramServerExchange exchange(
        ScramMechanism::sha256,
        users({{"bob", new_scram_credential(ScramMechanism::sha256, "pw")}}));
    TestClient client{ScramMechanism::sha256, "bob", "pw"};
    client.gs2 = "n,a=bob,";
    auto first = exchange.client_first(client.first());
    ASSERT_TRUE(first) << first.error().message;
    auto final = exchange.client_final(client.final_message(*first));
    ASSERT_TRUE(final) << final.error().message;
    EXPECT_TRUE(exchange.complete());
}

TEST(ScramTest, WrongPasswordAndUnknownUserFailAlike) {
    auto lookup = users({{"bob", new_scram_credential(ScramMechanism::sha256, "right")}});
    std::string wrong_password_error, unknown_user_error;
    {
        ScramServerExchange exchange(ScramMechanism::sha256, lookup);
        TestClient client{ScramMechanism::sha256, "bob", "wrong"};
        auto first = exchange.client_first(client.first());
        ASSERT_TRUE(first);
        auto final = exchange.client_final(client.final_message(*first));
        ASSERT_FALSE(final);
        wrong_password_error = final.error().message;
        EXPECT_FALSE(exchange.complete());
    }
    {
        ScramServerExchange exchange(ScramMechanism::sha256, lookup);
        TestClient client{ScramMechanism::sha256, "mallory", "right"};
        auto first = exchange.client_first(client.first());
        ASSERT_TRUE(first) << "an unknown user must get a server-first-message too";
        EXPECT_NE(first->find(",i=4096"), std::string::npos);
        auto final = exchange.client_final(client.final_message(*first));
        ASSERT_FALSE(final);
        unknown_user_error = final.error().message;
        EXPECT_FALSE(exchange.complete());
    }
    EXPECT_EQ(wrong_password_error, unknown_user_error);
    EXPECT_EQ(wrong_password_error, scram_authentication_failed_message(ScramMechanism::sha256));
    EXPECT_NE(wrong_password_error.find("SCRAM-SHA-256"), std::string::npos);
}

TEST(ScramTest, UnknownUserGetsTheSameSaltEveryTime) {
    auto salt_of = [](const std::string& user) {
        ScramServerExchange exchange(ScramMechanism::sha256, users({}));
        auto first = exchange.client_first("n,,n=" + user + ",r=abc");
        EXPECT_TRUE(first);
        return first->substr(first->find(",s="));
    };
    EXPECT_EQ(salt_of("ghost"), salt_of("ghost"));
    EXPECT_NE(salt_of("ghost"), salt_of("phantom"));
}

TEST(ScramTest, CredentialOfTheOtherMechanismIsNotAccepted) {
    // A SHA-256 credential (32-byte keys) handed to a SHA-512 exchange: fails like a wrong
    // password.
    ScramServerExchange exchange(
        ScramMechanism::sha512,
        users({{"bob", new_scram_credential(ScramMechanism::sha256, "pw")}}));
    TestClient client{ScramMechanism::sha512, "bob", "pw"};
    auto first = exchange.client_first(client.first());
    ASSERT_TRUE(first);
    EXPECT_FALSE(exchange.client_final(client.final_message(*first)));
}

TEST(ScramTest, WrongProofRefused) {
    ScramServerExchange exchange(ScramMechanism::sha256, rfc_users(), kRfcServerNonce);
    ASSERT_TRUE(exchange.client_first(kRfcClientFirst));
    std::string tampered = kRfcClientFinal;
    tampered[tampered.size() - 5] = tampered[tampered.size() - 5] == 'A' ? 'B' : 'A';
    auto final = exchange.client_final(tampered);
    ASSERT_FALSE(final);
    EXPECT_EQ(final.error().message, scram_authentication_failed_message(ScramMechanism::sha256));
    // A failed exchange stays failed.
    EXPECT_FALSE(exchange.client_final(kRfcClientFinal));
    EXPECT_FALSE(exchange.complete());
}

TEST(ScramTest, ClientNonceRepeatedInFrontIsAcceptedAsKafkaDoes) {
    for (auto mechanism : {ScramMechanism::sha256, ScramMechanism::sha512}) {
        auto credential = derive_scram_credential(mechanism, "pw", "salty", 4096);
        ScramServerExchange exchange(mechanism, users({{"u", credential}}));
        TestClient client(mechanism, "u", "pw");
        client.repeat_client_nonce = true;
        auto first = exchange.client_first(client.first());
        ASSERT_TRUE(first);
        auto final = exchange.client_final(client.final_message(*first));
        ASSERT_TRUE(final) << final.error().message;
        EXPECT_EQ(*final, client.expected_server_final());
        EXPECT_TRUE(exchange.complete());
    }
}

TEST(ScramTest, WrongNonceRefused) {
    ScramServerExchange exchange(ScramMechanism::sha256, rfc_users(), kRfcServerNonce);
    ASSERT_TRUE(exchange.client_first(kRfcClientFirst));
    auto final = exchange.client_final(
        "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k1,"
        "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=");
    ASSERT_FALSE(final);
    EXPECT_NE(final.error().message.find("nonce"), std::string::npos);
}

TEST(ScramTest, ChannelBindingRefused) {
    ScramServerExchange exchange(ScramMechanism::sha256, rfc_users());
    auto first = exchange.client_first("p=tls-unique,,n=user,r=abc");
    ASSERT_FALSE(first);
    EXPECT_NE(first.error().message.find("channel binding"), std::string::npos);
}

TEST(ScramTest, ChannelBindingAttributeMustMatchTheHeader) {
    // "biws" is base64("n,,"); a client that sent "n,," must send it back.
    ScramServerExchange exchange(ScramMechanism::sha256, rfc_users(), kRfcServerNonce);
    ASSERT_TRUE(exchange.client_first(kRfcClientFirst));
    auto final = exchange.client_final(
        "c=eSws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
        "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=");
    EXPECT_FALSE(final);
}

TEST(ScramTest, AuthzidOfAnotherUserRefused) {
    ScramServerExchange exchange(ScramMechanism::sha256, rfc_users());
    EXPECT_FALSE(exchange.client_first("n,a=admin,n=user,r=abc"));
}

TEST(ScramTest, TokenAuthAndMandatoryExtensionsRefused) {
    {
        ScramServerExchange exchange(ScramMechanism::sha256, rfc_users());
        auto first = exchange.client_first("n,,n=user,r=abc,tokenauth=true");
        ASSERT_FALSE(first);
        EXPECT_NE(first.error().message.find("token"), std::string::npos);
    }
    {
        ScramServerExchange exchange(ScramMechanism::sha256, rfc_users());
        EXPECT_FALSE(exchange.client_first("n,,m=ext,n=user,r=abc"));
    }
}

TEST(ScramTest, MalformedClientFirstRefused) {
    for (const char* message :
         {"", "n", "n,", "x,,n=user,r=abc", "n,,", "n,,n=user", "n,,r=abc", "n,,n=,r=abc",
          "n,,n=user,r=", "n,,n=us=2Aer,r=abc", "n,,n=user,r=a b", "n,,n=user,x=abc",
          "n,b=admin,n=user,r=abc", "n,,n=user,r=abc,novalue", "n,,n=user,r=abc,=x"}) {
        ScramServerExchange exchange(ScramMechanism::sha256, rfc_users());
        EXPECT_FALSE(exchange.client_first(message)) << message;
    }
}

TEST(ScramTest, MalformedClientFinalRefused) {
    for (const char* message :
         {"", "c=biws", "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0",
          "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=AAAA",
          "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=not base64",
          "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=AAAA",  // short proof
          "c=!!!!,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=AAAA"}) {
        ScramServerExchange exchange(ScramMechanism::sha256, rfc_users(), kRfcServerNonce);
        ASSERT_TRUE(exchange.client_first(kRfcClientFirst));
        EXPECT_FALSE(exchange.client_final(message)) << message;
    }
}

TEST(ScramTest, OutOfOrderMessagesRefused) {
    ScramServerExchange exchange(ScramMechanism::sha256, rfc_users(), kRfcServerNonce);
    EXPECT_FALSE(exchange.client_final(kRfcClientFinal));
    ScramServerExchange twice(ScramMechanism::sha256, rfc_users(), kRfcServerNonce);
    ASSERT_TRUE(twice.client_first(kRfcClientFirst));
    EXPECT_FALSE(twice.client_first(kRfcClientFirst));
}

TEST(ScramTest, HugeInputRefused) {
    const std::string huge_user(1 << 20, 'u');
    ScramServerExchange exchange(ScramMechanism::sha256, rfc_users());
    auto first = exchange.client_first("n,,n=" + huge_user + ",r=abc");
    ASSERT_FALSE(first);
    EXPECT_NE(first.error().message.find("too long"), std::string::npos);

    ScramServerExchange second(ScramMechanism::sha256, rfc_users(), kRfcServerNonce);
    ASSERT_TRUE(second.client_first(kRfcClientFirst));
    EXPECT_FALSE(second.client_final(std::string(kRfcClientFinal) + "," + huge_user));
}

TEST(ScramTest, Base64) {
    EXPECT_EQ(base64_encode(""), "");
    EXPECT_EQ(base64_encode("f"), "Zg==");
    EXPECT_EQ(base64_encode("fo"), "Zm8=");
    EXPECT_EQ(base64_encode("foo"), "Zm9v");
    EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
    EXPECT_EQ(base64_encode("n,,"), "biws");
    for (std::string s : {std::string(), std::string("f"), std::string("fo"), std::string("foo"),
                          std::string("foob"), std::string("foobar"), std::string("\0\xff", 2)})
        EXPECT_EQ(base64_decode(base64_encode(s)), s);
    EXPECT_FALSE(base64_decode("Zg="));
    EXPECT_FALSE(base64_decode("Z==="));
    EXPECT_FALSE(base64_decode("Zg==Zg=="));
    EXPECT_FALSE(base64_decode("Zm 9"));
    EXPECT_FALSE(base64_decode("Zm9v\n"));
}

TEST(ScramTest, UsernameEscapes) {
    EXPECT_EQ(scram_escape_username("a,b=c"), "a=2Cb=3Dc");
    EXPECT_EQ(scram_unescape_username("a=2Cb=3Dc"), "a,b=c");
    EXPECT_FALSE(scram_unescape_username("a=2"));
    EXPECT_FALSE(scram_unescape_username("a=41"));
    EXPECT_FALSE(scram_unescape_username("a,b"));
}

TEST(ScramTest, MechanismNames) {
    EXPECT_EQ(parse_scram_mechanism("SCRAM-SHA-256"), ScramMechanism::sha256);
    EXPECT_EQ(parse_scram_mechanism("SCRAM-SHA-512"), ScramMechanism::sha512);
    EXPECT_FALSE(parse_scram_mechanism("scram-sha-256"));
    EXPECT_FALSE(parse_scram_mechanism("PLAIN"));
    EXPECT_EQ(scram_mechanism_name(ScramMechanism::sha512), "SCRAM-SHA-512");
    EXPECT_EQ(scram_mechanism_type(ScramMechanism::sha256), 1);
    EXPECT_EQ(scram_mechanism_type(ScramMechanism::sha512), 2);
}

}  // namespace
}  // namespace skiff::broker::security
