#include "broker/request_router.h"

#include <spdlog/spdlog.h>

#include "broker/broker.h"
#include "broker/control/request_hook.h"
#include "broker/handlers/advertised_apis.h"
#include "broker/handlers/handlers.h"
#include "broker/log_throttle.h"
#include "broker/security/sasl_session.h"
#include "protocol/api_versions.h"
#include "protocol/error_codes_of.h"
#include "protocol/protocol.h"
#include "protocol/request_header.h"

namespace skiff::broker {
namespace {

// The common tail: error codes counted for the metrics, then the response encoded (unless the
// handler suppressed it: acks=0).
template <class Response>
RouteOutcome finish_route(RequestContext& ctx, const Response& response, int16_t version,
                          protocol::OutBuffer& out) {
    // Error codes by API for the metrics: a walk over the response's topics and partitions.
    auto& metrics = ctx.broker.request_metrics();
    protocol::for_each_error_code(response, version, [&](protocol::ErrorCode code) {
        metrics.count_error(ctx.header.api_key, code);
    });
    if (ctx.suppress_response)
        return RouteOutcome{false, std::nullopt};
    protocol::encode_response(response, version, ctx.header.correlation_id, out);
    return RouteOutcome{true, std::nullopt};
}

// Kafka 4.x advertises Produce from v0 and answers v0-2 UNSUPPORTED_VERSION per partition
// (KAFKA-18659); so does skiff emulating it (emulate.kafka.version). nullopt: not refused.
template <class Request>
std::optional<RouteOutcome> refused_by_emulation(RequestContext& ctx, const Request& request,
                                                 int16_t version, protocol::OutBuffer& out) {
    if constexpr (std::is_same_v<Request, protocol::ProduceRequest>) {
        if (const auto* e = ctx.broker.emulation().current();
            e && version < e->produce_min_accepted && !(ctx.session && ctx.session->in_process)) {
            control::Fired everything;
            everything.error = protocol::ErrorCode::unsupported_version;
            auto split = control::split_produce(request, everything);
            ctx.suppress_response = request.acks == 0;
            return finish_route(ctx, split.refused, version, out);
        }
    }
    return std::nullopt;
}

// Adapts a typed handler to the router's byte-level signature: decode, handle, encode. With the
// test-control API on, control/request_hook.h intercepts the request around its handler.
template <class Request, class Response,
          asio::awaitable<Response> (*Handle)(RequestContext&, const Request&)>
asio::awaitable<RouteOutcome> route(RequestContext& ctx, std::span<const std::byte> body,
                                    int16_t version, protocol::OutBuffer& out) {
    auto request =
        protocol::decode_message<Request>(body, version, protocol::TrailingBytes::ignore);
    if (!request)
        co_return RouteOutcome{false, std::move(request.error())};
    if (auto refused = refused_by_emulation(ctx, *request, version, out)) [[unlikely]]
        co_return *refused;
    if (auto* control = ctx.broker.control()) [[unlikely]] {
        auto plan = control::intercept<Request, Response>(*control, ctx, *request, version);
        if (plan.latency.count() > 0)
            co_await control::pause(plan.latency);
        if (!plan.respond)
            co_return RouteOutcome{false, std::nullopt};
        Response response{};
        if (plan.run_handler)
            response = co_await Handle(ctx, plan.adjusted ? *plan.adjusted : *request);
        control::complete(plan, response, version, ctx);
        co_return finish_route(ctx, response, version, out);
    }
    Response response = co_await Handle(ctx, *request);
    co_return finish_route(ctx, response, version, out);
}

// What a session may send: before SASL authentication completes only ApiVersions and the SASL
// requests (Kafka closes the connection on anything else); after the authentication expired
// (connections.max.reauth.ms) only re-authentication.
bool allowed_before_authentication(int16_t api_key) {
    using protocol::ApiKey;
    return api_key == static_cast<int16_t>(ApiKey::api_versions) ||
           api_key == static_cast<int16_t>(ApiKey::sasl_handshake) ||
           api_key == static_cast<int16_t>(ApiKey::sasl_authenticate);
}

std::optional<std::string_view> refusal(const Session& session, int16_t api_key) {
    if (allowed_before_authentication(api_key))
        return std::nullopt;
    if (!session.authenticated)
        return "before SASL authentication";
    if (session.expires_at && std::chrono::steady_clock::now() >= *session.expires_at)
        return "after its SASL authentication expired (connections.max.reauth.ms)";
    return std::nullopt;
}

// After SaslHandshake v0 a client sends its tokens without a request header, and gets the
// server's the same way: a 4-byte size, then the bytes. A failure closes the connection (there
// is no error field to carry it), as Kafka does.
RequestRouter::Result unframed_sasl_token(Broker& broker, Session& session, const std::string& peer,
                                          std::span<const std::byte> frame,
                                          protocol::OutBuffer& out) {
    const std::string_view token(reinterpret_cast<const char*>(frame.data()), frame.size());
    auto result = take_sasl_token(broker, session, peer, token, -1);
    if (result.failure)
        return RequestRouter::Result::close;
    out.put_int<int32_t>(static_cast<int32_t>(result.response.size()));
    out.put_chars(result.response);
    return RequestRouter::Result::respond;
}

struct Route {
    protocol::ApiKey key;
    RequestRouter::Handler handler;
};

#define SKIFF_ROUTE(key, number, name, request, response, ...) \
    Route{protocol::ApiKey::key, &route<protocol::request, protocol::response, &handle_##key>},
constexpr Route kRoutes[] = {SKIFF_FOR_EACH_API(SKIFF_ROUTE)};
#undef SKIFF_ROUTE

}  // namespace

RequestRouter::RequestRouter() {
    // Generated from the same list as the supported-API table, so every served API has a route.
    for (const auto& r : kRoutes)
        by_key_.at(static_cast<size_t>(r.key)) = r.handler;
}

asio::awaitable<RequestRouter::Result> RequestRouter::dispatch(
    Broker& broker, const std::string& peer, std::string_view listener,
    std::span<const std::byte> frame, protocol::OutBuffer& out, ClientSoftware* client_software,
    DispatchInfo* info, Session* session) const {
    // A client looping on bad requests must not flood the log: one line per kind, then counts.
    auto& log = LogThrottle::global();
    if (session && session->sasl_unframed)
        co_return unframed_sasl_token(broker, *session, peer, frame, out);
    auto decoded = protocol::decode_request_header(frame);
    if (!decoded) {
        log.log(spdlog::level::warn, "request:malformed-header",
                "connection {}: malformed request header: {}; closing", peer,
                decoded.error().message);
        co_return Result::close;
    }
    const auto& header = decoded->header;
    const auto* api = protocol::find_api(header.api_key);
    // emulate.kafka.version: the release's versions, within skiff's (control/version_emulation.h),
    // for clients; the console's own requests keep skiff's.
    const auto* emulated = session && session->in_process ? nullptr : broker.emulation().current();
    const bool version_ok = api && api->supports(header.api_version) &&
                            (!emulated || emulated->allows(header.api_key, header.api_version));
    if (!version_ok && header.api_key == static_cast<int16_t>(protocol::ApiKey::api_versions)) {
        // Clients probe with their newest ApiVersions; the v0 answer with error 35 tells them
        // which versions to retry with.
        const auto advertised = advertised_apis(broker);
        protocol::encode_api_versions_unsupported(header.correlation_id, out, &advertised);
        co_return Result::respond;
    }
    if (!api) {
        log.log(spdlog::level::warn, "request:unsupported-api",
                "connection {}: unsupported API key {} (version {}); closing", peer, header.api_key,
                header.api_version);
        co_return Result::close;
    }
    if (!version_ok) {
        if (emulated)
            log.log(spdlog::level::warn, "request:unsupported-version",
                    "connection {}: {} version {} is not served by Apache Kafka {} (emulated); "
                    "closing",
                    peer, protocol::api_name(api->key), header.api_version, emulated->release);
        else
            log.log(spdlog::level::warn, "request:unsupported-version",
                    "connection {}: {} version {} is not supported (supported {}-{}); closing",
                    peer, protocol::api_name(api->key), header.api_version, api->min_version,
                    api->max_version);
        co_return Result::close;
    }
    if (session) {
        if (auto why = refusal(*session, header.api_key)) {
            log.log(spdlog::level::warn, "request:unauthenticated",
                    "connection {}: {} v{} {}; closing", peer, protocol::api_name(api->key),
                    header.api_version, *why);
            co_return Result::close;
        }
    }
    broker.request_metrics().count_request(header.api_key);
    if (info)
        info->api_key = header.api_key;
    RequestContext ctx{.broker = broker,
                       .header = header,
                       .peer = peer,
                       .client_software = client_software,
                       .listener = listener,
                       .session = session,
                       .request_bytes = frame.size()};
    RouteOutcome outcome;
    try {
        outcome = co_await find(header.api_key)(ctx, frame.subspan(decoded->body_offset),
                                                header.api_version, out);
    } catch (const std::exception& e) {
        log.log(spdlog::level::err, "request:handler-failed",
                "connection {}: {} v{} failed: {}; closing", peer, protocol::api_name(api->key),
                header.api_version, e.what());
        co_return Result::close;
    }
    if (info) {
        info->long_poll = ctx.long_poll;
        info->throttle_ms = ctx.throttle_ms;
    }
    if (outcome.decode_error) {
        log.log(spdlog::level::warn, "request:malformed-body",
                "connection {}: malformed {} v{} request: {}; closing", peer,
                protocol::api_name(api->key), header.api_version, outcome.decode_error->message);
        co_return Result::close;
    }
    if (ctx.close_connection) {
        spdlog::debug("connection {}: closing after a failed {} without a response", peer,
                      protocol::api_name(api->key));
        co_return outcome.respond ? Result::respond_and_close : Result::close;
    }
    co_return outcome.respond ? Result::respond : Result::no_response;
}

RequestRouter::Handler RequestRouter::find(int16_t api_key) const {
    if (api_key < 0 || static_cast<size_t>(api_key) >= by_key_.size())
        return nullptr;
    return by_key_[static_cast<size_t>(api_key)];
}

}  // namespace skiff::broker
