#include "broker/request_router.h"

#include "broker/handlers/handlers.h"
#include "protocol/protocol.h"

namespace skiff::broker {
namespace {

// Adapts a typed handler to the router's byte-level signature: decode, handle, encode.
template <class Request, class Response,
          asio::awaitable<Response> (*Handle)(RequestContext&, const Request&)>
asio::awaitable<RouteOutcome> route(RequestContext& ctx, std::span<const std::byte> body,
                                    int16_t version, protocol::OutBuffer& out) {
    auto request = protocol::decode_message<Request>(body, version);
    if (!request)
        co_return RouteOutcome{false, std::move(request.error())};
    Response response = co_await Handle(ctx, *request);
    if (ctx.suppress_response)
        co_return RouteOutcome{false, std::nullopt};
    protocol::encode_response(response, version, ctx.header.correlation_id, out);
    co_return RouteOutcome{true, std::nullopt};
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

RequestRouter::Handler RequestRouter::find(int16_t api_key) const {
    if (api_key < 0 || static_cast<size_t>(api_key) >= by_key_.size())
        return nullptr;
    return by_key_[static_cast<size_t>(api_key)];
}

}  // namespace skiff::broker
