#include "broker/handlers/handlers.h"

namespace skiff::broker {

// The answer comes from protocol/'s one table of supported APIs, the same table the request
// router is checked against, so what skiff advertises is exactly what it dispatches.
asio::awaitable<protocol::ApiVersionsResponse> handle_api_versions(
    RequestContext&, const protocol::ApiVersionsRequest&) {
    co_return protocol::make_api_versions_response();
}

}  // namespace skiff::broker
