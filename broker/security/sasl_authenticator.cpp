#include "broker/security/sasl_authenticator.h"

#include "config/broker_config.h"
#include "config/listener.h"

namespace skiff::broker::security {
namespace {

// Kafka's PlainServerCallbackHandler answers every PLAIN failure with this text.
constexpr std::string_view kPlainFailed = "Authentication failed: Invalid username or password";

bool plain_password_matches(const CredentialStore& store, const std::string& user,
                            std::string_view password) {
    for (auto mechanism : {ScramMechanism::sha256, ScramMechanism::sha512}) {
        auto credential = store.lookup(user, mechanism);
        if (!credential)
            continue;
        auto derived =
            derive_scram_credential(mechanism, password, credential->salt, credential->iterations);
        return scram_equal_constant_time(derived.stored_key, credential->stored_key);
    }
    // No such user: the same work as for a known one, so that the time taken does not tell.
    auto fake = derive_scram_credential(ScramMechanism::sha256, password, "skiff-no-such-user",
                                        kScramDefaultIterations);
    (void)scram_equal_constant_time(fake.stored_key, fake.server_key);
    return false;
}

}  // namespace

std::vector<std::string> enabled_sasl_mechanisms(const config::BrokerConfig& config,
                                                 std::string_view listener) {
    if (auto it = config.listener_sasl_enabled_mechanisms.find(std::string(listener));
        it != config.listener_sasl_enabled_mechanisms.end())
        return config::split_comma_list(it->second);
    return config::split_comma_list(config.sasl_enabled_mechanisms);
}

SaslAuthenticator::SaslAuthenticator(std::string mechanism, const CredentialStore& store)
    : mechanism_(std::move(mechanism)), store_(store) {
    if (auto scram = parse_scram_mechanism(mechanism_))
        scram_ = std::make_unique<ScramServerExchange>(*scram, store_.lookup_for(*scram));
}

SaslAuthenticator::Step SaslAuthenticator::step(std::string_view token) {
    if (!scram_)
        return plain(token);
    Step s;
    auto answer = first_ ? scram_->client_first(token) : scram_->client_final(token);
    first_ = false;
    if (!answer) {
        s.failure = answer.error().message;
        return s;
    }
    s.response = std::move(*answer);
    if (scram_->complete()) {
        s.complete = true;
        user_ = scram_->username();
    }
    return s;
}

SaslAuthenticator::Step SaslAuthenticator::plain(std::string_view token) {
    Step s;
    // authzid NUL authcid NUL passwd (RFC 4616 section 2).
    const size_t first_nul = token.find('\0');
    const size_t second_nul =
        first_nul == std::string_view::npos ? first_nul : token.find('\0', first_nul + 1);
    if (!first_ || second_nul == std::string_view::npos ||
        token.find('\0', second_nul + 1) != std::string_view::npos) {
        s.failure = "Invalid SASL/PLAIN response: expected 3 tokens";
        first_ = false;
        return s;
    }
    first_ = false;
    const std::string_view authzid = token.substr(0, first_nul);
    const std::string user(token.substr(first_nul + 1, second_nul - first_nul - 1));
    const std::string_view password = token.substr(second_nul + 1);
    if (user.empty() || password.empty()) {
        s.failure = "Authentication failed: username and password must not be empty";
        return s;
    }
    if (!authzid.empty() && authzid != user) {
        s.failure =
            "Authentication failed: Client requested an authorization id that is "
            "different from username";
        return s;
    }
    if (!plain_password_matches(store_, user, password)) {
        s.failure = std::string(kPlainFailed);
        return s;
    }
    s.complete = true;
    user_ = user;
    return s;
}

}  // namespace skiff::broker::security
