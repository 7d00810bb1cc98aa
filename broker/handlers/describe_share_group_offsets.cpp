// DescribeShareGroupOffsets (90): each share-partition's start offset (and, v1, its lag) as the
// share-partition manager keeps it (share/share_offsets_admin.h). KIP-932's ACLs: DESCRIBE on the
// group (GROUP_AUTHORIZATION_FAILED for the group) and on each topic (TOPIC_AUTHORIZATION_FAILED
// for its partitions; left out when the request asks for every topic). A group that is not a
// share group is GROUP_ID_NOT_FOUND; a partition the group never read has start offset -1.
#include <map>
#include <string>
#include <vector>

#include "broker/broker.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorize.h"
#include "broker/topics/topic_ids.h"

namespace skiff::broker {

asio::awaitable<protocol::DescribeShareGroupOffsetsResponse> handle_describe_share_group_offsets(
    RequestContext& ctx, const protocol::DescribeShareGroupOffsetsRequest& req) {
    using protocol::ErrorCode;
    const int16_t version = ctx.header.api_version;
    protocol::DescribeShareGroupOffsetsResponse resp;
    auto* membership = ctx.broker.share_membership();
    auto* admin = ctx.broker.share_offsets_admin();
    for (const auto& g : req.groups) {
        auto& out = resp.groups.emplace_back();
        out.group_id = g.group_id;
        if (!authorized(ctx, AclOperation::describe, ResourceType::group, g.group_id)) {
            out.error_code = ErrorCode::group_authorization_failed;
            continue;
        }
        if (!membership || !admin) {  // as Kafka with share groups off
            out.error_code = ErrorCode::unsupported_version;
            out.error_message = "Share groups are not enabled on this broker.";
            continue;
        }
        if (!membership->share_group_size(g.group_id)) {
            out.error_code = ErrorCode::group_id_not_found;
            out.error_message = "Group " + g.group_id + " is not a share group.";
            continue;
        }
        // The partitions asked, by topic in the request's order (all: those with state).
        std::vector<protocol::DescribeShareGroupOffsetsRequestTopic> asked;
        const bool all = !g.topics;
        if (all) {
            for (const auto& tp : admin->partitions_with_state(g.group_id)) {
                if (asked.empty() || asked.back().topic_name != tp.topic)
                    asked.push_back({tp.topic, {}});
                asked.back().partitions.push_back(tp.partition);
            }
        } else {
            asked = *g.topics;
        }
        std::vector<storage::TopicPartition> valid;
        for (const auto& t : asked) {
            const bool allowed =
                authorized(ctx, AclOperation::describe, ResourceType::topic, t.topic_name);
            if (all && !allowed)
                continue;  // topics the client may not see are left out, as Kafka
            auto& topic = out.topics.emplace_back();
            topic.topic_name = t.topic_name;
            auto id = ctx.broker.logs().topic_id(t.topic_name);
            if (id)
                topic.topic_id = to_uuid(*id);
            for (int32_t p : t.partitions) {
                auto& part = topic.partitions.emplace_back();
                part.partition_index = p;
                if (!allowed)
                    part.error_code = ErrorCode::topic_authorization_failed;
                else if (!id || !ctx.broker.logs().get({t.topic_name, p}))
                    part.error_code = ErrorCode::unknown_topic_or_partition;
                else
                    valid.push_back({t.topic_name, p});
            }
        }
        if (valid.empty())
            continue;
        auto offsets = admin->describe_offsets(g.group_id, valid);
        for (auto& topic : out.topics)
            for (auto& part : topic.partitions) {
                if (part.error_code != ErrorCode::none)
                    continue;
                auto found = offsets.find({topic.topic_name, part.partition_index});
                if (found == offsets.end())
                    continue;  // no state: start offset -1
                const auto& o = found->second;
                part.error_code = o.error;
                part.start_offset = o.start_offset.value_or(-1);
                part.leader_epoch = o.leader_epoch;
                if (version >= 1)
                    part.lag = o.lag.value_or(-1);
            }
    }
    co_return resp;
}

}  // namespace skiff::broker
