#include "broker/security/scram.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <array>
#include <climits>
#include <stdexcept>
#include <vector>

namespace skiff::broker::security {
namespace {

const EVP_MD* scram_evp_md(ScramMechanism mechanism) {
    return mechanism == ScramMechanism::sha256 ? EVP_sha256() : EVP_sha512();
}

// OpenSSL treats a null key pointer as "keep the previous key" in places: never pass one.
const unsigned char* scram_bytes_ptr(std::string_view s) {
    static const unsigned char kEmpty = 0;
    return s.empty() ? &kEmpty : reinterpret_cast<const unsigned char*>(s.data());
}

int scram_checked_int(size_t n) {
    if (n > static_cast<size_t>(INT_MAX))
        throw std::length_error("SCRAM input too large");
    return static_cast<int>(n);
}

// A per-process secret for unknown users' fake credentials: the same fake salt on every attempt
// for one name (a changing salt would tell the name is unknown), unpredictable across restarts.
const std::string& scram_fake_credential_secret() {
    static const std::string secret = scram_random_bytes(32);
    return secret;
}

ScramCredential scram_fake_credential(ScramMechanism mechanism, const std::string& user) {
    const std::string& secret = scram_fake_credential_secret();
    ScramCredential c;
    c.salt = scram_hmac(mechanism, secret, "salt\n" + user).substr(0, kScramSaltBytes);
    c.stored_key = scram_hmac(mechanism, secret, "stored key\n" + user);
    c.server_key = scram_hmac(mechanism, secret, "server key\n" + user);
    c.iterations = kScramDefaultIterations;
    return c;
}

bool scram_credential_usable(ScramMechanism mechanism, const ScramCredential& c) {
    const size_t n = scram_digest_size(mechanism);
    return !c.salt.empty() && c.stored_key.size() == n && c.server_key.size() == n &&
           c.iterations > 0;
}

// Splits "a,b,c" at every ','.
std::vector<std::string_view> scram_split_attributes(std::string_view s) {
    std::vector<std::string_view> parts;
    size_t start = 0;
    while (true) {
        size_t comma = s.find(',', start);
        if (comma == std::string_view::npos) {
            parts.push_back(s.substr(start));
            return parts;
        }
        parts.push_back(s.substr(start, comma - start));
        start = comma + 1;
    }
}

// RFC 5802's printable: %x21-2B / %x2D-7E (no ',').
bool scram_printable_nonce(std::string_view s) {
    if (s.empty())
        return false;
    for (char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (c < 0x21 || c > 0x7e || c == ',')
            return false;
    }
    return true;
}

// An attribute "x=value": its value when the name is `name`.
std::optional<std::string_view> scram_attribute(std::string_view part, char name) {
    if (part.size() < 2 || part[0] != name || part[1] != '=')
        return std::nullopt;
    return part.substr(2);
}

constexpr char kScramBase64Alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int scram_base64_value(char ch) {
    if (ch >= 'A' && ch <= 'Z')
        return ch - 'A';
    if (ch >= 'a' && ch <= 'z')
        return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9')
        return ch - '0' + 52;
    if (ch == '+')
        return 62;
    if (ch == '/')
        return 63;
    return -1;
}

}  // namespace

std::string_view scram_mechanism_name(ScramMechanism mechanism) {
    return mechanism == ScramMechanism::sha256 ? "SCRAM-SHA-256" : "SCRAM-SHA-512";
}

std::optional<ScramMechanism> parse_scram_mechanism(std::string_view name) {
    if (name == "SCRAM-SHA-256")
        return ScramMechanism::sha256;
    if (name == "SCRAM-SHA-512")
        return ScramMechanism::sha512;
    return std::nullopt;
}

int8_t scram_mechanism_type(ScramMechanism mechanism) {
    return mechanism == ScramMechanism::sha256 ? 1 : 2;
}

size_t scram_digest_size(ScramMechanism mechanism) {
    return mechanism == ScramMechanism::sha256 ? 32 : 64;
}

std::string scram_hash(ScramMechanism mechanism, std::string_view data) {
    std::array<unsigned char, EVP_MAX_MD_SIZE> out{};
    unsigned int len = 0;
    if (EVP_Digest(scram_bytes_ptr(data), data.size(), out.data(), &len, scram_evp_md(mechanism),
                   nullptr) != 1)
        throw std::runtime_error("EVP_Digest failed");
    return std::string(reinterpret_cast<const char*>(out.data()), len);
}

std::string scram_hmac(ScramMechanism mechanism, std::string_view key, std::string_view data) {
    std::array<unsigned char, EVP_MAX_MD_SIZE> out{};
    unsigned int len = 0;
    if (HMAC(scram_evp_md(mechanism), scram_bytes_ptr(key), scram_checked_int(key.size()),
             scram_bytes_ptr(data), data.size(), out.data(), &len) == nullptr)
        throw std::runtime_error("HMAC failed");
    return std::string(reinterpret_cast<const char*>(out.data()), len);
}

std::string scram_salted_password(ScramMechanism mechanism, std::string_view password,
                                  std::string_view salt, int32_t iterations) {
    if (iterations <= 0)
        throw std::invalid_argument("SCRAM iterations must be positive");
    std::string out(scram_digest_size(mechanism), '\0');
    if (PKCS5_PBKDF2_HMAC(reinterpret_cast<const char*>(scram_bytes_ptr(password)),
                          scram_checked_int(password.size()), scram_bytes_ptr(salt),
                          scram_checked_int(salt.size()), iterations, scram_evp_md(mechanism),
                          scram_checked_int(out.size()),
                          reinterpret_cast<unsigned char*>(out.data())) != 1)
        throw std::runtime_error("PKCS5_PBKDF2_HMAC failed");
    return out;
}

std::string scram_random_bytes(size_t n) {
    std::string out(n, '\0');
    if (n > 0 &&
        RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), scram_checked_int(n)) != 1)
        throw std::runtime_error("no random bytes available (RAND_bytes failed)");
    return out;
}

bool scram_equal_constant_time(std::string_view a, std::string_view b) {
    if (a.size() != b.size())
        return false;  // lengths are public (the digest size)
    return a.empty() || CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

ScramCredential scram_credential_from_salted_password(ScramMechanism mechanism,
                                                      std::string_view salted_password,
                                                      std::string_view salt, int32_t iterations) {
    ScramCredential c;
    c.salt = std::string(salt);
    c.stored_key = scram_hash(mechanism, scram_hmac(mechanism, salted_password, "Client Key"));
    c.server_key = scram_hmac(mechanism, salted_password, "Server Key");
    c.iterations = iterations;
    return c;
}

ScramCredential derive_scram_credential(ScramMechanism mechanism, std::string_view password,
                                        std::string_view salt, int32_t iterations) {
    return scram_credential_from_salted_password(
        mechanism, scram_salted_password(mechanism, password, salt, iterations), salt, iterations);
}

ScramCredential new_scram_credential(ScramMechanism mechanism, std::string_view password,
                                     int32_t iterations) {
    return derive_scram_credential(mechanism, password, scram_random_bytes(kScramSaltBytes),
                                   iterations);
}

std::string base64_encode(std::string_view bytes) {
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    size_t i = 0;
    for (; i + 3 <= bytes.size(); i += 3) {
        const uint32_t v = (static_cast<uint8_t>(bytes[i]) << 16) |
                           (static_cast<uint8_t>(bytes[i + 1]) << 8) |
                           static_cast<uint8_t>(bytes[i + 2]);
        out += kScramBase64Alphabet[(v >> 18) & 63];
        out += kScramBase64Alphabet[(v >> 12) & 63];
        out += kScramBase64Alphabet[(v >> 6) & 63];
        out += kScramBase64Alphabet[v & 63];
    }
    const size_t rest = bytes.size() - i;
    if (rest == 1) {
        const uint32_t v = static_cast<uint8_t>(bytes[i]) << 16;
        out += kScramBase64Alphabet[(v >> 18) & 63];
        out += kScramBase64Alphabet[(v >> 12) & 63];
        out += "==";
    } else if (rest == 2) {
        const uint32_t v =
            (static_cast<uint8_t>(bytes[i]) << 16) | (static_cast<uint8_t>(bytes[i + 1]) << 8);
        out += kScramBase64Alphabet[(v >> 18) & 63];
        out += kScramBase64Alphabet[(v >> 12) & 63];
        out += kScramBase64Alphabet[(v >> 6) & 63];
        out += '=';
    }
    return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
    if (text.size() % 4 != 0)
        return std::nullopt;
    size_t padding = 0;
    if (!text.empty() && text.back() == '=')
        padding = text.size() >= 2 && text[text.size() - 2] == '=' ? 2 : 1;
    std::string out;
    out.reserve(text.size() / 4 * 3);
    for (size_t i = 0; i < text.size(); i += 4) {
        const bool last = i + 4 == text.size();
        uint32_t v = 0;
        for (size_t j = 0; j < 4; ++j) {
            int d = 0;
            if (last && j >= 4 - padding) {
                d = 0;  // '=' (checked by the count above)
            } else {
                d = scram_base64_value(text[i + j]);
                if (d < 0)
                    return std::nullopt;
            }
            v = (v << 6) | static_cast<uint32_t>(d);
        }
        out += static_cast<char>((v >> 16) & 0xff);
        if (!last || padding < 2)
            out += static_cast<char>((v >> 8) & 0xff);
        if (!last || padding < 1)
            out += static_cast<char>(v & 0xff);
    }
    return out;
}

std::string scram_escape_username(std::string_view name) {
    std::string out;
    for (char ch : name) {
        if (ch == ',')
            out += "=2C";
        else if (ch == '=')
            out += "=3D";
        else
            out += ch;
    }
    return out;
}

std::optional<std::string> scram_unescape_username(std::string_view saslname) {
    std::string out;
    for (size_t i = 0; i < saslname.size(); ++i) {
        const char ch = saslname[i];
        if (ch == ',')
            return std::nullopt;
        if (ch != '=') {
            out += ch;
            continue;
        }
        const std::string_view code = saslname.substr(i + 1, 2);
        if (code == "2C")
            out += ',';
        else if (code == "3D")
            out += '=';
        else
            return std::nullopt;
        i += 2;
    }
    return out;
}

std::string scram_authentication_failed_message(ScramMechanism mechanism) {
    return "Authentication failed during authentication due to invalid credentials with SASL "
           "mechanism " +
           std::string(scram_mechanism_name(mechanism));
}

ScramServerExchange::ScramServerExchange(ScramMechanism mechanism, ScramCredentialLookup lookup,
                                         std::string server_nonce)
    : mechanism_(mechanism), lookup_(std::move(lookup)), server_nonce_(std::move(server_nonce)) {
    if (server_nonce_.empty())
        server_nonce_ = base64_encode(scram_random_bytes(24));
    if (!scram_printable_nonce(server_nonce_))
        throw std::invalid_argument("SCRAM server nonce must be printable ASCII without ','");
}

Unexpected<ScramError> ScramServerExchange::fail(std::string message) {
    state_ = State::failed;
    return unexpected(ScramError{std::move(message)});
}

Expected<std::string, ScramError> ScramServerExchange::client_first(std::string_view message) {
    if (state_ != State::initial)
        return fail("unexpected SCRAM client-first-message");
    if (message.size() > kScramMaxMessageBytes)
        return fail("SCRAM client-first-message too long");
    // gs2-header: gs2-cbind-flag "," [authzid] ","
    if (message.starts_with("p="))
        return fail("SCRAM channel binding is not supported");
    if (!message.starts_with("n,") && !message.starts_with("y,"))
        return fail("invalid SCRAM client-first-message: bad GS2 header");
    const size_t authzid_end = message.find(',', 2);
    if (authzid_end == std::string_view::npos)
        return fail("invalid SCRAM client-first-message: bad GS2 header");
    const std::string_view authzid_part = message.substr(2, authzid_end - 2);
    std::optional<std::string> authzid;
    if (!authzid_part.empty()) {
        auto value = scram_attribute(authzid_part, 'a');
        if (!value || value->empty())
            return fail("invalid SCRAM client-first-message: bad authorization id");
        authzid = scram_unescape_username(*value);
        if (!authzid)
            return fail("invalid SCRAM client-first-message: bad authorization id");
    }
    gs2_header_ = std::string(message.substr(0, authzid_end + 1));
    client_first_bare_ = std::string(message.substr(authzid_end + 1));

    const auto parts = scram_split_attributes(client_first_bare_);
    if (scram_attribute(parts[0], 'm'))
        return fail("SCRAM mandatory extensions are not supported");
    auto user_value = scram_attribute(parts[0], 'n');
    if (!user_value)
        return fail("invalid SCRAM client-first-message: no user name");
    auto user = scram_unescape_username(*user_value);
    if (!user || user->empty())
        return fail("invalid SCRAM client-first-message: bad user name");
    if (parts.size() < 2)
        return fail("invalid SCRAM client-first-message: no nonce");
    auto client_nonce = scram_attribute(parts[1], 'r');
    if (!client_nonce || !scram_printable_nonce(*client_nonce))
        return fail("invalid SCRAM client-first-message: bad nonce");
    for (size_t i = 2; i < parts.size(); ++i) {
        const size_t eq = parts[i].find('=');
        if (eq == 0 || eq == std::string_view::npos)
            return fail("invalid SCRAM client-first-message: bad extension");
        if (parts[i].substr(0, eq) == "tokenauth")
            return fail("SCRAM delegation token authentication is not supported");
        // Other extensions are ignored, as Kafka ignores those it does not know.
    }
    if (authzid && *authzid != *user)
        return fail("SCRAM authorization id must be empty or the user name");

    username_ = std::move(*user);
    std::optional<ScramCredential> found = lookup_ ? lookup_(username_) : std::nullopt;
    user_known_ = found && scram_credential_usable(mechanism_, *found);
    credential_ = user_known_ ? std::move(*found) : scram_fake_credential(mechanism_, username_);

    nonce_ = std::string(*client_nonce) + server_nonce_;
    server_first_ = "r=" + nonce_ + ",s=" + base64_encode(credential_.salt) +
                    ",i=" + std::to_string(credential_.iterations);
    state_ = State::first_sent;
    return server_first_;
}

Expected<std::string, ScramError> ScramServerExchange::client_final(std::string_view message) {
    if (state_ != State::first_sent)
        return fail("unexpected SCRAM client-final-message");
    if (message.size() > kScramMaxMessageBytes)
        return fail("SCRAM client-final-message too long");
    // The proof is the last attribute: everything before ",p=" is signed.
    const size_t proof_at = message.rfind(",p=");
    if (proof_at == std::string_view::npos)
        return fail("invalid SCRAM client-final-message: no proof");
    const std::string_view without_proof = message.substr(0, proof_at);
    const std::string_view proof_text = message.substr(proof_at + 3);
    const auto parts = scram_split_attributes(without_proof);
    auto binding = scram_attribute(parts[0], 'c');
    if (!binding)
        return fail("invalid SCRAM client-final-message: no channel binding");
    auto binding_bytes = base64_decode(*binding);
    if (!binding_bytes || *binding_bytes != gs2_header_)
        return fail("invalid SCRAM client-final-message: channel binding does not match");
    if (parts.size() < 2)
        return fail("invalid SCRAM client-final-message: no nonce");
    // RFC 5802 wants the nonce exactly; Kafka checks only that it ends with the server-first
    // nonce, and librdkafka (2.0.2 at least) relies on that: it sends its own nonce again in
    // front of the one it got. The proof still covers the message as sent.
    auto nonce = scram_attribute(parts[1], 'r');
    if (!nonce || !nonce->ends_with(nonce_))
        return fail("invalid SCRAM client-final-message: nonce does not match");
    for (size_t i = 2; i < parts.size(); ++i)
        if (parts[i].find('=') == std::string_view::npos || parts[i].starts_with("="))
            return fail("invalid SCRAM client-final-message: bad extension");
    auto proof = base64_decode(proof_text);
    if (!proof || proof->size() != scram_digest_size(mechanism_))
        return fail("invalid SCRAM client-final-message: bad proof");

    const std::string auth_message =
        client_first_bare_ + "," + server_first_ + "," + std::string(without_proof);
    const std::string client_signature =
        scram_hmac(mechanism_, credential_.stored_key, auth_message);
    std::string client_key = *proof;
    for (size_t i = 0; i < client_key.size(); ++i)
        client_key[i] = static_cast<char>(client_key[i] ^ client_signature[i]);
    const bool proof_ok =
        scram_equal_constant_time(scram_hash(mechanism_, client_key), credential_.stored_key);
    if (!proof_ok || !user_known_)
        return fail(scram_authentication_failed_message(mechanism_));
    state_ = State::complete;
    return "v=" + base64_encode(scram_hmac(mechanism_, credential_.server_key, auth_message));
}

}  // namespace skiff::broker::security
