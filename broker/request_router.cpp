#include "broker/request_router.h"

#include <stdexcept>
#include <string>

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

using namespace protocol;
constexpr Route kRoutes[] = {
    {ApiKey::api_versions, &route<ApiVersionsRequest, ApiVersionsResponse, &handle_api_versions>},
    {ApiKey::metadata, &route<MetadataRequest, MetadataResponse, &handle_metadata>},
    {ApiKey::produce, &route<ProduceRequest, ProduceResponse, &handle_produce>},
    {ApiKey::fetch, &route<FetchRequest, FetchResponse, &handle_fetch>},
    {ApiKey::list_offsets, &route<ListOffsetsRequest, ListOffsetsResponse, &handle_list_offsets>},
    {ApiKey::create_topics,
     &route<CreateTopicsRequest, CreateTopicsResponse, &handle_create_topics>},
    {ApiKey::delete_topics,
     &route<DeleteTopicsRequest, DeleteTopicsResponse, &handle_delete_topics>},
    {ApiKey::create_partitions,
     &route<CreatePartitionsRequest, CreatePartitionsResponse, &handle_create_partitions>},
    {ApiKey::describe_configs,
     &route<DescribeConfigsRequest, DescribeConfigsResponse, &handle_describe_configs>},
    {ApiKey::alter_configs,
     &route<AlterConfigsRequest, AlterConfigsResponse, &handle_alter_configs>},
    {ApiKey::incremental_alter_configs,
     &route<IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse,
            &handle_incremental_alter_configs>},
    {ApiKey::init_producer_id,
     &route<InitProducerIdRequest, InitProducerIdResponse, &handle_init_producer_id>},
    {ApiKey::find_coordinator,
     &route<FindCoordinatorRequest, FindCoordinatorResponse, &handle_find_coordinator>},
    {ApiKey::join_group, &route<JoinGroupRequest, JoinGroupResponse, &handle_join_group>},
    {ApiKey::sync_group, &route<SyncGroupRequest, SyncGroupResponse, &handle_sync_group>},
    {ApiKey::heartbeat, &route<HeartbeatRequest, HeartbeatResponse, &handle_heartbeat>},
    {ApiKey::leave_group, &route<LeaveGroupRequest, LeaveGroupResponse, &handle_leave_group>},
    {ApiKey::offset_commit,
     &route<OffsetCommitRequest, OffsetCommitResponse, &handle_offset_commit>},
    {ApiKey::offset_fetch, &route<OffsetFetchRequest, OffsetFetchResponse, &handle_offset_fetch>},
    {ApiKey::describe_groups,
     &route<DescribeGroupsRequest, DescribeGroupsResponse, &handle_describe_groups>},
    {ApiKey::list_groups, &route<ListGroupsRequest, ListGroupsResponse, &handle_list_groups>},
    {ApiKey::delete_groups,
     &route<DeleteGroupsRequest, DeleteGroupsResponse, &handle_delete_groups>},
};

}  // namespace

RequestRouter::RequestRouter() {
    for (const auto& r : kRoutes)
        by_key_.at(static_cast<size_t>(r.key)) = r.handler;
    // The supported-API table and the routes must name the same APIs: a broken invariant, so
    // it stops start-up rather than surfacing as a client error later.
    size_t supported = 0;
    for (const auto& api : protocol::supported_apis()) {
        ++supported;
        if (!find(static_cast<int16_t>(api.key)))
            throw std::logic_error(std::string("no handler for supported API ") +
                                   api_name(api.key));
    }
    if (supported != std::size(kRoutes))
        throw std::logic_error("a handler is routed for an API the protocol table does not list");
}

RequestRouter::Handler RequestRouter::find(int16_t api_key) const {
    if (api_key < 0 || static_cast<size_t>(api_key) >= by_key_.size())
        return nullptr;
    return by_key_[static_cast<size_t>(api_key)];
}

}  // namespace skiff::broker
