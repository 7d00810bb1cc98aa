#include "broker/broker.h"
#include "broker/handlers/handlers.h"

namespace skiff::broker {
namespace {

using protocol::ErrorCode;

constexpr int64_t kLatest = -1;
constexpr int64_t kEarliest = -2;
constexpr int64_t kMaxTimestamp = -3;  // v7+

protocol::ListOffsetsPartitionResponse answer(Broker& broker, const std::string& topic,
                                              const protocol::ListOffsetsPartition& p) {
    protocol::ListOffsetsPartitionResponse out;
    out.partition_index = p.partition_index;
    out.timestamp = -1;
    out.offset = -1;
    out.leader_epoch = 0;
    auto* log = broker.logs().get({topic, p.partition_index});
    if (!log) {
        out.error_code = ErrorCode::unknown_topic_or_partition;
        return out;
    }
    out.error_code = ErrorCode::none;
    if (p.timestamp == kEarliest) {
        out.offset = log->log_start_offset();
    } else if (p.timestamp == kLatest) {
        out.offset = log->high_watermark();
    } else if (p.timestamp == kMaxTimestamp) {
        if (auto m = log->max_timestamp()) {
            out.timestamp = m->timestamp;
            out.offset = m->offset;
        }
    } else if (auto found = log->offset_for_timestamp(p.timestamp)) {
        // The first offset whose timestamp is at or after the one asked for; -1/-1 when none is.
        out.timestamp = found->timestamp;
        out.offset = found->offset;
    }
    return out;
}

}  // namespace

asio::awaitable<protocol::ListOffsetsResponse> handle_list_offsets(
    RequestContext& ctx, const protocol::ListOffsetsRequest& req) {
    protocol::ListOffsetsResponse resp;
    resp.topics.reserve(req.topics.size());
    for (const auto& topic : req.topics) {
        protocol::ListOffsetsTopicResponse t;
        t.name = topic.name;
        t.partitions.reserve(topic.partitions.size());
        for (const auto& p : topic.partitions) {
            t.partitions.push_back(answer(ctx.broker, topic.name, p));
            // v0 (kafka-python api_version (0, 9)) answers in old_style_offsets, at most
            // max_num_offsets of them: the one offset later versions give.
            auto& out = t.partitions.back();
            if (ctx.header.api_version == 0 && out.error_code == ErrorCode::none &&
                out.offset >= 0 && p.max_num_offsets > 0)
                out.old_style_offsets.push_back(out.offset);
        }
        resp.topics.push_back(std::move(t));
    }
    co_return resp;
}

}  // namespace skiff::broker
