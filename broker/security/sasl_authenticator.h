// The server side of one connection's SASL exchange, for the mechanisms skiff serves:
//   PLAIN (RFC 4616): one message "authzid NUL user NUL password"; the authzid must be empty or
//     the user. The password is checked against the user's SCRAM credential (SCRAM-SHA-256, else
//     SCRAM-SHA-512): the same derivation with the stored salt and iterations, StoredKey compared
//     in constant time. skiff keeps no other form of a password.
//   SCRAM-SHA-256, SCRAM-SHA-512 (RFC 5802, RFC 7677): ScramServerExchange, two round trips.
// Every failure gives the same message whether the user exists or not.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/security/credential_store.h"
#include "broker/security/scram.h"

namespace skiff::config {
struct BrokerConfig;
}

namespace skiff::broker::security {

// The mechanisms the listener named `listener` offers: its
// listener.name.<listener>.sasl.enabled.mechanisms, else sasl.enabled.mechanisms.
std::vector<std::string> enabled_sasl_mechanisms(const config::BrokerConfig& config,
                                                 std::string_view listener);

class SaslAuthenticator {
  public:
    // `mechanism` must be one skiff serves (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512); `store` must
    // outlive the authenticator.
    SaslAuthenticator(std::string mechanism, const CredentialStore& store);

    struct Step {
        std::string response;                // the server's token for the client
        std::optional<std::string> failure;  // set: authentication failed, safe to send
        bool complete = false;               // the client is authenticated as user()
    };
    // The client's next token.
    Step step(std::string_view token);

    const std::string& mechanism() const { return mechanism_; }
    // The authenticated user once a step was complete.
    const std::string& user() const { return user_; }

  private:
    Step plain(std::string_view token);

    std::string mechanism_;
    const CredentialStore& store_;
    std::unique_ptr<ScramServerExchange> scram_;  // SCRAM mechanisms only
    bool first_ = true;
    std::string user_;
};

}  // namespace skiff::broker::security
