#include "broker/broker.h"
#include "broker/group/group_coordinator.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorize.h"
#include "broker/topics/topic_ids.h"

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

// With require_stable (v7+), a partition whose group has a transactional commit waiting for its
// marker answers UNSTABLE_OFFSET_COMMIT, offset -1 (Kafka: per partition in every version; the
// client retries until the transaction completes).
protocol::OffsetFetchResponsePartition unstable(int32_t partition) {
    auto r = answer(partition, std::nullopt);
    r.error_code = protocol::ErrorCode::unstable_offset_commit;
    return r;
}

// The committed offsets of one group: of the partitions asked for, or (topics null) of every
// partition it committed. An unknown group has no offsets and no error, as in Kafka. From v10
// topics are named by id: an id no topic holds is UNKNOWN_TOPIC_ID for each partition asked
// for, and the every-partition answer leaves out topics without an id (deleted meanwhile).
// Topics the client may not DESCRIBE are left out of the every-partition answer and are
// TOPIC_AUTHORIZATION_FAILED when asked for (docs/acls.md).
std::vector<protocol::OffsetFetchResponseTopic> fetch_group(
    const RequestContext& ctx, group::OffsetStore& offsets, const std::string& group_id,
    const std::optional<std::vector<protocol::OffsetFetchRequestTopic>>& topics, bool by_id,
    bool require_stable) {
    const TopicRegistry& registry = ctx.broker.topics();
    const auto may_describe = [&](const std::string& topic) {
        return authorized(ctx, AclOperation::describe, ResourceType::topic, topic);
    };
    std::vector<protocol::OffsetFetchResponseTopic> out;
    if (!topics) {
        protocol::OffsetFetchResponseTopic* current = nullptr;
        bool skipping = false;
        for (const auto& [tp, c] : offsets.group_offsets(group_id)) {
            if (!current || current->name != tp.topic) {
                std::optional<storage::TopicId> id;
                if ((by_id && !(id = registry.topic_id(tp.topic))) || !may_describe(tp.topic)) {
                    skipping = true;
                    continue;
                }
                skipping = false;
                out.push_back({tp.topic, id ? to_uuid(*id) : protocol::Uuid{}, {}});
                current = &out.back();
            } else if (skipping) {
                continue;
            }
            current->partitions.push_back(require_stable && offsets.has_pending(group_id, tp)
                                              ? unstable(tp.partition)
                                              : answer(tp.partition, c));
        }
        return out;
    }
    for (const auto& topic : *topics) {
        protocol::OffsetFetchResponseTopic t;
        t.name = topic.name;
        t.topic_id = topic.topic_id;
        if (by_id) {
            auto found = topic_name_of(registry, topic.topic_id);
            if (!found) {
                for (int32_t p : topic.partition_indexes) {
                    t.partitions.push_back(answer(p, std::nullopt));
                    t.partitions.back().error_code = protocol::ErrorCode::unknown_topic_id;
                }
                out.push_back(std::move(t));
                continue;
            }
            t.name = std::move(*found);
        }
        if (!may_describe(t.name)) {
            for (int32_t p : topic.partition_indexes) {
                t.partitions.push_back(answer(p, std::nullopt));
                t.partitions.back().error_code = protocol::ErrorCode::topic_authorization_failed;
            }
            out.push_back(std::move(t));
            continue;
        }
        for (int32_t p : topic.partition_indexes) {
            const storage::TopicPartition tp{t.name, p};
            t.partitions.push_back(require_stable && offsets.has_pending(group_id, tp)
                                       ? unstable(p)
                                       : answer(p, offsets.get(group_id, tp)));
        }
        out.push_back(std::move(t));
    }
    return out;
}

}  // namespace

asio::awaitable<protocol::OffsetFetchResponse> handle_offset_fetch(
    RequestContext& ctx, const protocol::OffsetFetchRequest& req) {
    using protocol::ErrorCode;
    auto& offsets = ctx.broker.groups().offsets();
    const bool by_id = ctx.header.api_version >= 10;
    const auto may_describe_group = [&](const std::string& group) {
        return authorized(ctx, AclOperation::describe, ResourceType::group, group);
    };
    protocol::OffsetFetchResponse resp;
    if (ctx.header.api_version >= 8) {
        // v9's member_id/member_epoch concern KIP-848 consumer groups only (a member must
        // fetch with its current epoch); a classic group's offsets are answered whoever asks,
        // as Kafka's ClassicGroup.validateOffsetFetch does.
        for (const auto& g : req.groups) {
            if (!may_describe_group(g.group_id)) {
                resp.groups.push_back({g.group_id, {}, ErrorCode::group_authorization_failed});
                continue;
            }
            if (ctx.header.api_version >= 9)
                if (ErrorCode e = ctx.broker.groups().validate_offset_fetch(g.group_id, g.member_id,
                                                                            g.member_epoch);
                    e != ErrorCode::none) {
                    resp.groups.push_back({g.group_id, {}, e});
                    continue;
                }
            resp.groups.push_back(
                {g.group_id,
                 fetch_group(ctx, offsets, g.group_id, g.topics, by_id, req.require_stable),
                 {}});
        }
        co_return resp;
    }
    if (!may_describe_group(req.group_id)) {
        // v2-7 say it in error_code; v0-1 have only the partitions' codes.
        resp.error_code = ErrorCode::group_authorization_failed;
        if (ctx.header.api_version < 2 && req.topics)
            for (const auto& topic : *req.topics) {
                protocol::OffsetFetchResponseTopic t;
                t.name = topic.name;
                for (int32_t p : topic.partition_indexes) {
                    t.partitions.push_back(answer(p, std::nullopt));
                    t.partitions.back().error_code = ErrorCode::group_authorization_failed;
                }
                resp.topics.push_back(std::move(t));
            }
        co_return resp;
    }
    resp.topics = fetch_group(ctx, offsets, req.group_id, req.topics, false,
                              ctx.header.api_version >= 7 && req.require_stable);
    co_return resp;
}

}  // namespace skiff::broker
