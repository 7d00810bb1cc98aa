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

// The committed offsets of one group: of the partitions asked for, or (topics null) of every
// partition it committed. An unknown group has no offsets and no error, as in Kafka.
std::vector<protocol::OffsetFetchResponseTopic> fetch_group(
    group::OffsetStore& offsets, const std::string& group_id,
    const std::optional<std::vector<protocol::OffsetFetchRequestTopic>>& topics) {
    std::vector<protocol::OffsetFetchResponseTopic> out;
    if (!topics) {
        protocol::OffsetFetchResponseTopic* current = nullptr;
        for (const auto& [tp, c] : offsets.group_offsets(group_id)) {
            if (!current || current->name != tp.topic) {
                out.push_back({tp.topic, {}});
                current = &out.back();
            }
            current->partitions.push_back(answer(tp.partition, c));
        }
        return out;
    }
    for (const auto& topic : *topics) {
        protocol::OffsetFetchResponseTopic t;
        t.name = topic.name;
        for (int32_t p : topic.partition_indexes)
            t.partitions.push_back(answer(p, offsets.get(group_id, {topic.name, p})));
        out.push_back(std::move(t));
    }
    return out;
}

}  // namespace

asio::awaitable<protocol::OffsetFetchResponse> handle_offset_fetch(
    RequestContext& ctx, const protocol::OffsetFetchRequest& req) {
    auto& offsets = ctx.broker.groups().offsets();
    protocol::OffsetFetchResponse resp;
    if (ctx.header.api_version >= 8) {
        // v9's member_id/member_epoch concern KIP-848 consumer groups only; a classic group's
        // offsets are answered whoever asks, as Kafka's ClassicGroup.validateOffsetFetch does.
        for (const auto& g : req.groups)
            resp.groups.push_back({g.group_id, fetch_group(offsets, g.group_id, g.topics), {}});
        co_return resp;
    }
    resp.topics = fetch_group(offsets, req.group_id, req.topics);
    co_return resp;
}

}  // namespace skiff::broker
