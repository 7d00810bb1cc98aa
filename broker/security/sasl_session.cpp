#include "broker/security/sasl_session.h"

#include <spdlog/spdlog.h>

#include "broker/broker.h"
#include "broker/log_throttle.h"
#include "broker/net/session.h"

namespace skiff::broker {

SaslTokenResult take_sasl_token(Broker& broker, Session& session, const std::string& peer,
                                std::string_view token, int authenticate_version) {
    SaslTokenResult result;
    auto step = session.sasl->step(token);
    result.response = std::move(step.response);
    const std::string mechanism = session.sasl->mechanism();
    if (!step.failure && step.complete) {
        const std::string principal = "User:" + session.sasl->user();
        if (session.authenticated && session.principal != principal)
            step.failure = "Cannot change principals during re-authentication from " +
                           session.principal + ": " + principal;
        else
            session.principal = principal;
    }
    if (step.failure) {
        // An attacker trying passwords gets one line per host every 10 s, with the count.
        LogThrottle::global().log(spdlog::level::warn, "sasl:failed:" + session.host,
                                  "connection {}: SASL/{} authentication failed: {}", peer,
                                  mechanism, *step.failure);
        session.sasl.reset();
        session.sasl_unframed = false;
        result.failure = std::move(step.failure);
        return result;
    }
    if (!step.complete)
        return result;
    const bool reauthentication = session.authenticated;
    session.authenticated = true;
    session.reauthentication_supported = authenticate_version >= 1;
    session.sasl.reset();
    session.sasl_unframed = false;
    const int64_t lifetime = broker.config().connections_max_reauth_ms;
    if (lifetime > 0) {
        session.expires_at = std::chrono::steady_clock::now() + std::chrono::milliseconds(lifetime);
        if (authenticate_version >= 1)
            result.session_lifetime_ms = lifetime;
    }
    result.complete = true;
    spdlog::debug("connection {}: {} as {} (SASL/{})", peer,
                  reauthentication ? "re-authenticated" : "authenticated", session.principal,
                  mechanism);
    return result;
}

}  // namespace skiff::broker
