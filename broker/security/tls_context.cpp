#include "broker/security/tls_context.h"

#include <openssl/err.h>

#include <algorithm>
#include <asio/ssl/context.hpp>
#include <string_view>
#include <vector>

#include "config/listener.h"

namespace skiff::broker::security {
namespace {

// OpenSSL's read buffer per connection while data arrives (given back when idle:
// SSL_MODE_RELEASE_BUFFERS): four full TLS records.
constexpr size_t kTlsReadAheadBytes = size_t{64} * 1024;

// TLS 1.3 suites are configured apart from the older ones in OpenSSL, and by their IANA names.
bool is_tls13_suite(std::string_view name) {
    return name == "TLS_AES_128_GCM_SHA256" || name == "TLS_AES_256_GCM_SHA384" ||
           name == "TLS_CHACHA20_POLY1305_SHA256" || name == "TLS_AES_128_CCM_SHA256" ||
           name == "TLS_AES_128_CCM_8_SHA256";
}

std::string join(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items) {
        if (!out.empty())
            out += ':';
        out += item;
    }
    return out;
}

Expected<void, std::string> apply_protocols_and_ciphers(SSL_CTX* ctx, const TlsSettings& s) {
    const auto protocols = config::split_comma_list(s.enabled_protocols);
    const bool v12 = std::find(protocols.begin(), protocols.end(), "TLSv1.2") != protocols.end();
    const bool v13 = std::find(protocols.begin(), protocols.end(), "TLSv1.3") != protocols.end();
    if (!v12 && !v13)
        return unexpected(std::string("ssl.enabled.protocols names neither TLSv1.2 nor TLSv1.3"));
    SSL_CTX_set_min_proto_version(ctx, v12 ? TLS1_2_VERSION : TLS1_3_VERSION);
    SSL_CTX_set_max_proto_version(ctx, v13 ? TLS1_3_VERSION : TLS1_2_VERSION);

    const auto suites = config::split_comma_list(s.cipher_suites);
    if (suites.empty())
        return {};  // OpenSSL's defaults
    std::vector<std::string> tls13;
    std::vector<std::string> older;
    for (const auto& name : suites) {
        if (is_tls13_suite(name)) {
            tls13.push_back(name);
            continue;
        }
        // Kafka (JSSE) takes IANA names; OpenSSL's cipher lists take its own.
        const char* openssl_name = OPENSSL_cipher_name(name.c_str());
        older.emplace_back(openssl_name && std::string_view(openssl_name) != "(NONE)" ? openssl_name
                                                                                      : name);
    }
    // As with Kafka's list, a version without a listed suite is not served.
    if (SSL_CTX_set_ciphersuites(ctx, join(tls13).c_str()) != 1)
        return unexpected("ssl.cipher.suites: " + openssl_errors());
    if (older.empty()) {
        SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION);
    } else if (SSL_CTX_set_cipher_list(ctx, join(older).c_str()) != 1) {
        return unexpected("ssl.cipher.suites: no cipher OpenSSL knows in \"" + s.cipher_suites +
                          "\" (" + openssl_errors() + ")");
    }
    if (tls13.empty())
        SSL_CTX_set_max_proto_version(ctx, TLS1_2_VERSION);
    return {};
}

}  // namespace

std::string openssl_errors() {
    std::string out;
    while (unsigned long e = ERR_get_error()) {
        char buf[256];
        ERR_error_string_n(e, buf, sizeof buf);
        if (!out.empty())
            out += "; ";
        out += buf;
    }
    return out.empty() ? "no detail from OpenSSL" : out;
}

TlsSettings tls_settings_from(const config::BrokerConfig& c) {
    TlsSettings s;
    s.keystore_location = c.ssl_keystore_location;
    s.keystore_certificate_chain = c.ssl_keystore_certificate_chain;
    s.keystore_key = c.ssl_keystore_key;
    s.key_password = c.ssl_key_password;
    s.truststore_location = c.ssl_truststore_location;
    s.truststore_certificates = c.ssl_truststore_certificates;
    s.client_auth = c.ssl_client_auth == "required"    ? ClientAuth::required
                    : c.ssl_client_auth == "requested" ? ClientAuth::requested
                                                       : ClientAuth::none;
    s.enabled_protocols = c.ssl_enabled_protocols;
    s.cipher_suites = c.ssl_cipher_suites;
    return s;
}

Expected<SslContextPtr, std::string> TlsContext::build(const TlsSettings& s) {
    ERR_clear_error();
    // Which setting is being loaded, for the error message.
    std::string loading = "the TLS context";
    try {
        asio::ssl::context c(asio::ssl::context::tls_server);
        SSL_CTX* ctx = c.native_handle();
        c.set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                      asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                      asio::ssl::context::no_tlsv1_1);
        // No renegotiation (a TLS 1.2 client could otherwise make the broker redo handshakes on
        // demand); a client that closes without close_notify is an ordinary end of stream;
        // buffers of idle connections are given back.
        SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_IGNORE_UNEXPECTED_EOF |
                                     SSL_OP_CIPHER_SERVER_PREFERENCE);
        SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS | SSL_MODE_ENABLE_PARTIAL_WRITE |
                                  SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
        // Read ahead: one read(2) takes whatever the socket holds, several TLS records, instead
        // of two per record (header, then body). perf on a TLS produce of 1 KiB values showed
        // the broker in read(2) more than anywhere else but the page cache (tests/bench/tls.sh).
        SSL_CTX_set_read_ahead(ctx, 1);
        SSL_CTX_set_default_read_buffer_len(ctx, kTlsReadAheadBytes);
        if (!s.key_password.empty())
            c.set_password_callback(
                [password = s.key_password](std::size_t, asio::ssl::context::password_purpose) {
                    return password;
                });
        if (!s.keystore_location.empty()) {
            loading = "ssl.keystore.location " + s.keystore_location;
            c.use_certificate_chain_file(s.keystore_location);
            c.use_private_key_file(s.keystore_location, asio::ssl::context::pem);
        } else {
            if (s.keystore_certificate_chain.empty() || s.keystore_key.empty())
                return unexpected(
                    std::string("the keystore needs ssl.keystore.location, or both "
                                "ssl.keystore.certificate.chain and ssl.keystore.key"));
            loading = "ssl.keystore.certificate.chain";
            c.use_certificate_chain(asio::buffer(s.keystore_certificate_chain));
            loading = "ssl.keystore.key";
            c.use_private_key(asio::buffer(s.keystore_key), asio::ssl::context::pem);
        }
        if (SSL_CTX_check_private_key(ctx) != 1)
            return unexpected(loading + ": the private key does not match the certificate");
        if (!s.truststore_location.empty()) {
            loading = "ssl.truststore.location " + s.truststore_location;
            c.load_verify_file(s.truststore_location);
        } else if (!s.truststore_certificates.empty()) {
            loading = "ssl.truststore.certificates";
            c.add_certificate_authority(asio::buffer(s.truststore_certificates));
        }
        loading = "ssl.client.auth";
        if (s.client_auth != ClientAuth::none && s.truststore_location.empty() &&
            s.truststore_certificates.empty())
            return unexpected(std::string(
                "ssl.client.auth is " +
                std::string(s.client_auth == ClientAuth::required ? "required" : "requested") +
                " but no truststore is set (ssl.truststore.location or "
                "ssl.truststore.certificates): no client certificate could be checked"));
        if (s.client_auth == ClientAuth::none)
            c.set_verify_mode(asio::ssl::verify_none);
        else
            c.set_verify_mode(asio::ssl::verify_peer | (s.client_auth == ClientAuth::required
                                                            ? asio::ssl::verify_fail_if_no_peer_cert
                                                            : 0));
        // Session resumption with client certificates needs a session id context.
        static constexpr unsigned char kSessionContext[] = "skiff";
        SSL_CTX_set_session_id_context(ctx, kSessionContext, sizeof kSessionContext - 1);
        if (auto applied = apply_protocols_and_ciphers(ctx, s); !applied)
            return unexpected(std::move(applied.error()));
        // The shared pointer takes its own reference: `c` frees its one when it goes.
        SSL_CTX_up_ref(ctx);
        return SslContextPtr(ctx, SSL_CTX_free);
    } catch (const std::system_error& e) {
        std::string why = e.what();
        if (why.find("key values mismatch") != std::string::npos)
            why = "the private key does not match the certificate (" + why + ")";
        return unexpected(loading + ": " + why);
    }
}

Expected<std::unique_ptr<TlsContext>, std::string> TlsContext::create(TlsSettings settings) {
    auto ctx = build(settings);
    if (!ctx)
        return unexpected(std::move(ctx.error()));
    return std::unique_ptr<TlsContext>(new TlsContext(std::move(settings), std::move(*ctx)));
}

SslContextPtr TlsContext::current() const {
    std::lock_guard lock(mutex_);
    return ctx_;
}

Expected<void, std::string> TlsContext::reload() {
    auto ctx = build(settings_);
    if (!ctx)
        return unexpected(std::move(ctx.error()));
    std::lock_guard lock(mutex_);
    ctx_ = std::move(*ctx);
    return {};
}

}  // namespace skiff::broker::security
