// SaslAuthenticate: one token of the exchange SaslHandshake started. A failure answers
// SASL_AUTHENTICATION_FAILED with a message that does not say whether the user exists, and
// closes the connection, as Kafka does.
#include "broker/broker.h"
#include "broker/handlers/handlers.h"
#include "broker/security/sasl_session.h"

namespace skiff::broker {

asio::awaitable<protocol::SaslAuthenticateResponse> handle_sasl_authenticate(
    RequestContext& ctx, const protocol::SaslAuthenticateRequest& req) {
    using protocol::ErrorCode;
    protocol::SaslAuthenticateResponse resp;
    Session* session = ctx.session;
    if (!session || !session->sasl_listener()) {
        resp.error_code = ErrorCode::illegal_sasl_state;
        resp.error_message = "SaslAuthenticate on a listener without SASL";
        co_return resp;
    }
    if (!session->sasl || session->sasl_unframed) {
        resp.error_code = ErrorCode::illegal_sasl_state;
        resp.error_message = "SaslAuthenticate without a SaslHandshake (v1 or later) before it";
        ctx.close_connection = true;
        co_return resp;
    }
    const std::string_view token(reinterpret_cast<const char*>(req.auth_bytes.data()),
                                 req.auth_bytes.size());
    auto result = take_sasl_token(ctx.broker, *session, ctx.peer, token, ctx.header.api_version);
    const auto* bytes = reinterpret_cast<const std::byte*>(result.response.data());
    resp.auth_bytes.assign(bytes, bytes + result.response.size());
    if (result.failure) {
        resp.error_code = ErrorCode::sasl_authentication_failed;
        resp.error_message = std::move(result.failure);
        ctx.close_connection = true;
        co_return resp;
    }
    resp.session_lifetime_ms = result.session_lifetime_ms;
    co_return resp;
}

}  // namespace skiff::broker
