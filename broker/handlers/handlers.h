// One handler per Kafka API: a typed request in, a typed response out, no sockets. Each lives
// in its own file in this folder; request_router.cpp binds them to their API keys.
#pragma once

#include <asio/awaitable.hpp>

#include "broker/request_context.h"
#include "protocol/protocol.h"

namespace skiff::broker {

asio::awaitable<protocol::ApiVersionsResponse> handle_api_versions(
    RequestContext& ctx, const protocol::ApiVersionsRequest& req);
asio::awaitable<protocol::MetadataResponse> handle_metadata(RequestContext& ctx,
                                                            const protocol::MetadataRequest& req);
asio::awaitable<protocol::ProduceResponse> handle_produce(RequestContext& ctx,
                                                          const protocol::ProduceRequest& req);
asio::awaitable<protocol::FetchResponse> handle_fetch(RequestContext& ctx,
                                                      const protocol::FetchRequest& req);
asio::awaitable<protocol::ListOffsetsResponse> handle_list_offsets(
    RequestContext& ctx, const protocol::ListOffsetsRequest& req);

}  // namespace skiff::broker
