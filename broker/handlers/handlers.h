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

asio::awaitable<protocol::FindCoordinatorResponse> handle_find_coordinator(
    RequestContext& ctx, const protocol::FindCoordinatorRequest& req);
asio::awaitable<protocol::JoinGroupResponse> handle_join_group(
    RequestContext& ctx, const protocol::JoinGroupRequest& req);
asio::awaitable<protocol::SyncGroupResponse> handle_sync_group(
    RequestContext& ctx, const protocol::SyncGroupRequest& req);
asio::awaitable<protocol::HeartbeatResponse> handle_heartbeat(
    RequestContext& ctx, const protocol::HeartbeatRequest& req);
asio::awaitable<protocol::LeaveGroupResponse> handle_leave_group(
    RequestContext& ctx, const protocol::LeaveGroupRequest& req);
asio::awaitable<protocol::OffsetCommitResponse> handle_offset_commit(
    RequestContext& ctx, const protocol::OffsetCommitRequest& req);
asio::awaitable<protocol::OffsetFetchResponse> handle_offset_fetch(
    RequestContext& ctx, const protocol::OffsetFetchRequest& req);
asio::awaitable<protocol::DescribeGroupsResponse> handle_describe_groups(
    RequestContext& ctx, const protocol::DescribeGroupsRequest& req);
asio::awaitable<protocol::ListGroupsResponse> handle_list_groups(
    RequestContext& ctx, const protocol::ListGroupsRequest& req);
asio::awaitable<protocol::DeleteGroupsResponse> handle_delete_groups(
    RequestContext& ctx, const protocol::DeleteGroupsRequest& req);

}  // namespace skiff::broker
