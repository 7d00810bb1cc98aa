#include "broker/broker.h"
#include "broker/group/group_coordinator.h"
#include "broker/handlers/handlers.h"

namespace skiff::broker {
namespace {

protocol::OffsetFetchResponsePartition answer(int32_t partition,
                                              const std::optional<group::CommittedOffset>& c) {
    protocol::OffsetFetchResponsePartition r;
    r.partition_index = partition;
    if (c) {
        r.committed_offset = c->offset;
        r.committed_leader_epoch = c->leader_epoch;
        r.metadata = c->metadata;
    } else {
        r.committed_offset = -1;
        r.metadata = "";
    }
    return r;
}

}  // namespace

asio::awaitable<protocol::OffsetFetchResponse> handle_offset_fetch(
    RequestContext& ctx, const protocol::OffsetFetchRequest& req) {
    auto& offsets = ctx.broker.groups().offsets();
    protocol::OffsetFetchResponse resp;
    if (!req.topics) {  // v2+: every partition the group has committed
        protocol::OffsetFetchResponseTopic* current = nullptr;
        for (const auto& [tp, c] : offsets.group_offsets(req.group_id)) {
            if (!current || current->name != tp.topic) {
                resp.topics.push_back({tp.topic, {}});
                current = &resp.topics.back();
            }
            current->partitions.push_back(answer(tp.partition, c));
        }
        co_return resp;
    }
    for (const auto& topic : *req.topics) {
        protocol::OffsetFetchResponseTopic t;
        t.name = topic.name;
        for (int32_t p : topic.partition_indexes)
            t.partitions.push_back(answer(p, offsets.get(req.group_id, {topic.name, p})));
        resp.topics.push_back(std::move(t));
    }
    co_return resp;
}

}  // namespace skiff::broker
