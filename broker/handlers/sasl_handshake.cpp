// SaslHandshake: the client names its mechanism. On a SASL listener an enabled one starts the
// exchange (tokens then in SaslAuthenticate, or unframed after v0); anything else is answered and
// the connection closed, as Kafka does. On a listener without SASL, ILLEGAL_SASL_STATE.
#include <algorithm>

#include "broker/broker.h"
#include "broker/handlers/handlers.h"
#include "broker/security/sasl_authenticator.h"

namespace skiff::broker {

asio::awaitable<protocol::SaslHandshakeResponse> handle_sasl_handshake(
    RequestContext& ctx, const protocol::SaslHandshakeRequest& req) {
    using protocol::ErrorCode;
    protocol::SaslHandshakeResponse resp;
    Session* session = ctx.session;
    if (!session || !session->sasl_listener()) {
        resp.error_code = ErrorCode::illegal_sasl_state;
        co_return resp;
    }
    resp.mechanisms = security::enabled_sasl_mechanisms(ctx.broker.config(), ctx.listener);
    // A second handshake in the middle of an exchange, or a re-authentication by a client that
    // cannot (it authenticated with SaslAuthenticate v0 or unframed tokens).
    const bool reauthenticating = session->authenticated;
    if (session->sasl || (reauthenticating &&
                          (!session->reauthentication_supported || ctx.header.api_version < 1))) {
        resp.error_code = ErrorCode::illegal_sasl_state;
        ctx.close_connection = true;
        co_return resp;
    }
    if (std::find(resp.mechanisms.begin(), resp.mechanisms.end(), req.mechanism) ==
        resp.mechanisms.end()) {
        resp.error_code = ErrorCode::unsupported_sasl_mechanism;
        ctx.close_connection = true;
        co_return resp;
    }
    session->sasl =
        std::make_unique<security::SaslAuthenticator>(req.mechanism, ctx.broker.credentials());
    session->sasl_unframed = ctx.header.api_version == 0;
    co_return resp;
}

}  // namespace skiff::broker
