// HTTP basic authentication of the schema registry's callers against skiff's SCRAM users
// (schema.registry.authentication=BASIC). The credential store keeps salted keys, never
// passwords: a password is checked by deriving the stored key from it with the user's salt and
// iteration count (SCRAM-SHA-512 first, then SCRAM-SHA-256) and comparing in constant time.
//
// That derivation is thousands of HMAC rounds, far more than a schema lookup costs, so a
// successful check is remembered for a minute (keyed by the user and a hash of the password,
// never the password itself); a changed or deleted user is checked again at once, since the
// remembered entry also holds the stored key it was checked against. Thread-safe.
#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "broker/security/credential_store.h"

namespace skiff::broker::schema_registry_service {

class BasicAuthenticator {
  public:
    explicit BasicAuthenticator(const security::CredentialStore& users) : users_(users) {}

    // The principal ("User:alice") of an "Authorization" header value that names a SCRAM user
    // with the right password; nullopt for anything else (no header, not Basic, bad base64,
    // unknown user, wrong password).
    std::optional<std::string> authenticate(std::optional<std::string_view> authorization);

  private:
    struct Remembered {
        std::string stored_key;  // what the password was checked against
        std::chrono::steady_clock::time_point until;
    };
    bool check_password(const std::string& user, std::string_view password);

    const security::CredentialStore& users_;
    std::mutex mutex_;
    std::unordered_map<std::string, Remembered> remembered_;  // user + '\0' + hash of password
};

}  // namespace skiff::broker::schema_registry_service
