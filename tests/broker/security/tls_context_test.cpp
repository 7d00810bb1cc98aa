// TlsContext: built from PEM files or PEM text (an encrypted key opened with its password),
// refused with a message naming the setting when the keystore is missing, unreadable, the wrong
// password or a key that does not match its certificate, or when client authentication has no
// truststore; ssl.enabled.protocols and ssl.cipher.suites bound the versions; reload() keeps the
// old context when the new files do not load. The key and certificates are made here with
// OpenSSL's API.
#include "broker/security/tls_context.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

namespace skiff::broker::security {
namespace {

namespace fs = std::filesystem;

struct Pem {
    std::string key;          // unencrypted PKCS#8
    std::string encrypted;    // PKCS#8 encrypted with "secret"
    std::string certificate;  // self-signed, CN=localhost
};

std::string bio_text(BIO* bio) {
    char* data = nullptr;
    const long n = BIO_get_mem_data(bio, &data);
    return {data, static_cast<size_t>(n)};
}

Pem make_pem() {
    Pem out;
    EVP_PKEY* key = EVP_RSA_gen(2048);
    X509* cert = X509_new();
    ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
    X509_gmtime_adj(X509_getm_notBefore(cert), 0);
    X509_gmtime_adj(X509_getm_notAfter(cert), 3600);
    X509_set_pubkey(cert, key);
    X509_NAME* name = X509_get_subject_name(cert);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>("localhost"), -1, -1, 0);
    X509_set_issuer_name(cert, name);
    X509_sign(cert, key, EVP_sha256());
    BIO* bio = BIO_new(BIO_s_mem());
    PEM_write_bio_PKCS8PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
    out.key = bio_text(bio);
    BIO_free(bio);
    bio = BIO_new(BIO_s_mem());
    char password[] = "secret";
    PEM_write_bio_PKCS8PrivateKey(bio, key, EVP_aes_256_cbc(), password, 6, nullptr, nullptr);
    out.encrypted = bio_text(bio);
    BIO_free(bio);
    bio = BIO_new(BIO_s_mem());
    PEM_write_bio_X509(bio, cert);
    out.certificate = bio_text(bio);
    BIO_free(bio);
    X509_free(cert);
    EVP_PKEY_free(key);
    return out;
}

const Pem& pem() {
    static const Pem p = make_pem();
    return p;
}

class TlsContextTest : public ::testing::Test {
  protected:
    TlsContextTest() {
        std::string t = (fs::temp_directory_path() / "skiff-tls-XXXXXX").string();
        if (!mkdtemp(t.data()))
            throw std::runtime_error("mkdtemp failed");
        dir_ = t;
    }
    ~TlsContextTest() override {
        std::error_code ec;
        fs::remove_all(dir_, ec);
    }
    std::string write(const std::string& name, const std::string& text) {
        const auto path = (dir_ / name).string();
        std::ofstream(path) << text;
        return path;
    }
    TlsSettings from_text() {
        TlsSettings s;
        s.keystore_certificate_chain = pem().certificate;
        s.keystore_key = pem().encrypted;
        s.key_password = "secret";
        return s;
    }
    fs::path dir_;
};

TEST_F(TlsContextTest, BuildsFromAKeystoreFileOrFromPemText) {
    TlsSettings file;
    file.keystore_location = write("keystore.pem", pem().key + pem().certificate);
    auto ctx = TlsContext::create(file);
    ASSERT_TRUE(ctx) << ctx.error();
    EXPECT_NE((*ctx)->current(), nullptr);

    auto text = TlsContext::create(from_text());
    ASSERT_TRUE(text) << text.error();
    // Mutual TLS with the certificate itself as the trusted CA.
    auto mtls = from_text();
    mtls.truststore_certificates = pem().certificate;
    mtls.client_auth = ClientAuth::required;
    auto required = TlsContext::create(mtls);
    ASSERT_TRUE(required) << required.error();
    EXPECT_EQ(SSL_CTX_get_verify_mode((*required)->current().get()),
              SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT);
}

TEST_F(TlsContextTest, RefusesWhatCannotServe) {
    auto error_of = [](const TlsSettings& s) {
        auto ctx = TlsContext::create(s);
        EXPECT_FALSE(ctx);
        return ctx ? std::string() : ctx.error();
    };
    EXPECT_NE(error_of(TlsSettings{}).find("needs ssl.keystore.location"), std::string::npos);
    TlsSettings missing;
    missing.keystore_location = (dir_ / "nope.pem").string();
    EXPECT_NE(error_of(missing).find("ssl.keystore.location " + missing.keystore_location),
              std::string::npos);
    auto wrong_password = from_text();
    wrong_password.key_password = "not-it";
    EXPECT_NE(error_of(wrong_password).find("ssl.keystore.key"), std::string::npos);
    auto other_key = from_text();
    other_key.keystore_key = make_pem().key;  // a key of another certificate
    EXPECT_NE(error_of(other_key).find("does not match"), std::string::npos);
    auto no_truststore = from_text();
    no_truststore.client_auth = ClientAuth::requested;
    EXPECT_NE(error_of(no_truststore).find("no truststore"), std::string::npos);
    auto bad_suites = from_text();
    bad_suites.cipher_suites = "NOT_A_CIPHER";
    EXPECT_NE(error_of(bad_suites).find("ssl.cipher.suites"), std::string::npos);
}

TEST_F(TlsContextTest, ProtocolsAndCipherSuitesBoundTheVersions) {
    auto only13 = from_text();
    only13.enabled_protocols = "TLSv1.3";
    auto ctx = TlsContext::create(only13);
    ASSERT_TRUE(ctx) << ctx.error();
    EXPECT_EQ(SSL_CTX_get_min_proto_version((*ctx)->current().get()), TLS1_3_VERSION);

    // Only TLS 1.2 suites named (IANA names, as Kafka takes them): TLS 1.3 is off.
    auto suites12 = from_text();
    suites12.cipher_suites = "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384";
    ctx = TlsContext::create(suites12);
    ASSERT_TRUE(ctx) << ctx.error();
    EXPECT_EQ(SSL_CTX_get_max_proto_version((*ctx)->current().get()), TLS1_2_VERSION);
    // Only TLS 1.3 suites: TLS 1.2 is off.
    auto suites13 = from_text();
    suites13.cipher_suites = "TLS_AES_256_GCM_SHA384";
    ctx = TlsContext::create(suites13);
    ASSERT_TRUE(ctx) << ctx.error();
    EXPECT_EQ(SSL_CTX_get_min_proto_version((*ctx)->current().get()), TLS1_3_VERSION);
}

TEST_F(TlsContextTest, ReloadSwapsOnlyWhenTheNewFilesLoad) {
    TlsSettings s;
    s.keystore_location = write("keystore.pem", pem().key + pem().certificate);
    auto ctx = TlsContext::create(s);
    ASSERT_TRUE(ctx) << ctx.error();
    auto first = (*ctx)->current();

    write("keystore.pem", "garbage");
    EXPECT_FALSE((*ctx)->reload());
    EXPECT_EQ((*ctx)->current(), first);  // the old context stays

    const Pem renewed = make_pem();
    write("keystore.pem", renewed.key + renewed.certificate);
    ASSERT_TRUE((*ctx)->reload());
    EXPECT_NE((*ctx)->current(), first);
    EXPECT_NE(first.get(), nullptr);  // still usable by the connections that hold it
}

}  // namespace
}  // namespace skiff::broker::security
