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

// Topic administration and the idempotent producer.
asio::awaitable<protocol::CreateTopicsResponse> handle_create_topics(
    RequestContext& ctx, const protocol::CreateTopicsRequest& req);
asio::awaitable<protocol::DeleteTopicsResponse> handle_delete_topics(
    RequestContext& ctx, const protocol::DeleteTopicsRequest& req);
asio::awaitable<protocol::CreatePartitionsResponse> handle_create_partitions(
    RequestContext& ctx, const protocol::CreatePartitionsRequest& req);
asio::awaitable<protocol::DescribeConfigsResponse> handle_describe_configs(
    RequestContext& ctx, const protocol::DescribeConfigsRequest& req);
asio::awaitable<protocol::AlterConfigsResponse> handle_alter_configs(
    RequestContext& ctx, const protocol::AlterConfigsRequest& req);
asio::awaitable<protocol::IncrementalAlterConfigsResponse> handle_incremental_alter_configs(
    RequestContext& ctx, const protocol::IncrementalAlterConfigsRequest& req);
asio::awaitable<protocol::InitProducerIdResponse> handle_init_producer_id(
    RequestContext& ctx, const protocol::InitProducerIdRequest& req);

}  // namespace skiff::broker
