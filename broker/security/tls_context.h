// The broker's TLS configuration for SSL and SASL_SSL listeners: an OpenSSL SSL_CTX built with
// Asio's SSL support (asio::ssl::context) from Kafka's PEM settings (docs/security.md):
//   keystore    ssl.keystore.location (a PEM file with the private key and the certificate
//               chain), or ssl.keystore.key + ssl.keystore.certificate.chain (the PEM text);
//               an encrypted key is opened with ssl.key.password;
//   truststore  ssl.truststore.location or ssl.truststore.certificates: the CAs client
//               certificates must chain to;
//   ssl.client.auth (none / requested / required), ssl.enabled.protocols (TLSv1.2, TLSv1.3),
//   ssl.cipher.suites (IANA names, as Kafka takes them, or OpenSSL's).
//
// reload() builds a new context from the same settings (re-reading the files) and, only if that
// succeeds, makes it the one new connections get; connections already open keep theirs, so a
// certificate rotation (SIGHUP) drops no connection, and a broken file leaves the old context in
// place. Thread-safe.
#pragma once

#include <openssl/ssl.h>

#include <memory>
#include <mutex>
#include <string>

#include "config/broker_config.h"
#include "protocol/expected.h"

namespace skiff::broker::security {

enum class ClientAuth { none, requested, required };

struct TlsSettings {
    std::string keystore_location;
    std::string keystore_certificate_chain;
    std::string keystore_key;
    std::string key_password;
    std::string truststore_location;
    std::string truststore_certificates;
    ClientAuth client_auth = ClientAuth::none;
    std::string enabled_protocols = "TLSv1.2,TLSv1.3";
    std::string cipher_suites;
};

TlsSettings tls_settings_from(const config::BrokerConfig& config);

using SslContextPtr = std::shared_ptr<SSL_CTX>;

class TlsContext {
  public:
    // Builds the first context. The error names what could not be loaded and why.
    static Expected<std::unique_ptr<TlsContext>, std::string> create(TlsSettings settings);

    // The context for a new connection.
    SslContextPtr current() const;
    // Re-reads the keystore and truststore; on failure the current context stays.
    Expected<void, std::string> reload();

    const TlsSettings& settings() const { return settings_; }

  private:
    TlsContext(TlsSettings settings, SslContextPtr ctx)
        : settings_(std::move(settings)), ctx_(std::move(ctx)) {}
    static Expected<SslContextPtr, std::string> build(const TlsSettings& settings);

    TlsSettings settings_;
    mutable std::mutex mutex_;
    SslContextPtr ctx_;
};

// OpenSSL's error queue as text (and cleared), for log lines and error messages.
std::string openssl_errors();

}  // namespace skiff::broker::security
