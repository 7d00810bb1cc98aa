#include "broker/broker.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorize.h"

namespace skiff::broker {
namespace {

using protocol::ErrorCode;

constexpr int64_t kLatest = protocol::kListOffsetsLatest;
constexpr int64_t kEarliest = protocol::kListOffsetsEarliest;
constexpr int64_t kMaxTimestamp = protocol::kListOffsetsMaxTimestamp;                    // v7+
constexpr int64_t kEarliestLocal = protocol::kListOffsetsEarliestLocal;                  // v8+
constexpr int64_t kLatestTiered = protocol::kListOffsetsLatestTiered;                    // v9+
constexpr int64_t kEarliestPendingUpload = protocol::kListOffsetsEarliestPendingUpload;  // v11+

// The first version that knows a special timestamp (Kafka's timestampMinSupportedVersion);
// other timestamps, negative ones included, are searched for like any other.
int16_t first_version_for(int64_t timestamp) {
    switch (timestamp) {
        case kMaxTimestamp:
            return 7;
        case kEarliestLocal:
            return 8;
        case kLatestTiered:
            return 9;
        case kEarliestPendingUpload:
            return 11;
        default:
            return 0;
    }
}

protocol::ListOffsetsPartitionResponse answer(Broker& broker, const std::string& topic,
                                              const protocol::ListOffsetsPartition& p,
                                              int16_t version, bool read_committed) {
    protocol::ListOffsetsPartitionResponse out;
    out.partition_index = p.partition_index;
    out.timestamp = -1;
    out.offset = -1;
    out.leader_epoch = 0;
    if (version < first_version_for(p.timestamp)) {
        out.error_code = ErrorCode::unsupported_version;
        out.leader_epoch = -1;
        return out;
    }
    auto* log = broker.logs().get({topic, p.partition_index});
    if (!log) {
        out.error_code = ErrorCode::unknown_topic_or_partition;
        return out;
    }
    out.error_code = ErrorCode::none;
    // Kafka's upper bound for LATEST and for timestamp lookups: the last stable offset for
    // read_committed (v2+), the high watermark otherwise.
    const int64_t bound = read_committed ? log->last_stable_offset() : log->high_watermark();
    if (p.timestamp == kEarliest || p.timestamp == kEarliestLocal) {
        // No tiered storage: the local log starts where the log does.
        out.offset = log->log_start_offset();
    } else if (p.timestamp == kLatestTiered || p.timestamp == kEarliestPendingUpload) {
        // Nothing is tiered or waiting to be: Kafka answers offset -1, epoch -1 without remote
        // storage.
        out.leader_epoch = -1;
    } else if (p.timestamp == kLatest) {
        out.offset = bound;
    } else if (p.timestamp == kMaxTimestamp) {
        if (auto m = log->max_timestamp(); m && m->offset < bound) {
            out.timestamp = m->timestamp;
            out.offset = m->offset;
            // Kafka 3.9 (RecordBatch.offsetOfMaxTimestamp) answers the earliest record carrying
            // the max timestamp, where the segment keeps the last offset of its batch: the time
            // lookup finds that record, opening a compressed batch if it must. On a
            // LogAppendTime topic every record of a batch carries its time, so that is the
            // first offset of the first batch stamped with it.
            if (auto first = log->offset_for_timestamp(m->timestamp);
                first && first->offset <= m->offset)
                out.offset = first->offset;
        }
    } else if (auto found = log->offset_for_timestamp(p.timestamp);
               found && found->offset < bound) {
        // The first offset whose timestamp is at or after the one asked for; -1/-1 when none is
        // (or when it is not yet stable, for read_committed).
        out.timestamp = found->timestamp;
        out.offset = found->offset;
    }
    return out;
}

}  // namespace

asio::awaitable<protocol::ListOffsetsResponse> handle_list_offsets(
    RequestContext& ctx, const protocol::ListOffsetsRequest& req) {
    protocol::ListOffsetsResponse resp;
    const bool read_committed = ctx.header.api_version >= 2 && req.isolation_level == 1;
    resp.topics.reserve(req.topics.size());
    for (const auto& topic : req.topics) {
        protocol::ListOffsetsTopicResponse t;
        t.name = topic.name;
        t.partitions.reserve(topic.partitions.size());
        // DESCRIBE on the topic (docs/acls.md), else TOPIC_AUTHORIZATION_FAILED.
        const bool allowed =
            authorized(ctx, AclOperation::describe, ResourceType::topic, topic.name);
        for (const auto& p : topic.partitions) {
            if (!allowed) {
                protocol::ListOffsetsPartitionResponse refused;
                refused.partition_index = p.partition_index;
                refused.error_code = ErrorCode::topic_authorization_failed;
                refused.timestamp = -1;
                refused.offset = -1;
                refused.leader_epoch = -1;
                t.partitions.push_back(refused);
                continue;
            }
            t.partitions.push_back(
                answer(ctx.broker, topic.name, p, ctx.header.api_version, read_committed));
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
