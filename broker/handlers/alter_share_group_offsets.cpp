// AlterShareGroupOffsets (91): sets the start offset of a share group's share-partitions
// (share/share_offsets_admin.h), only while the group has no members (NON_EMPTY_GROUP, as
// Kafka). KIP-932's ACLs: READ on the group (GROUP_AUTHORIZATION_FAILED) and on each topic
// (TOPIC_AUTHORIZATION_FAILED for its partitions). A group that is not a share group is
// GROUP_ID_NOT_FOUND; an unknown topic or partition UNKNOWN_TOPIC_OR_PARTITION, a negative
// offset INVALID_REQUEST, and those partitions are left as they were.
#include <map>
#include <string>

#include "broker/broker.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/share_request.h"
#include "broker/security/authorize.h"
#include "broker/topics/topic_ids.h"

namespace skiff::broker {

asio::awaitable<protocol::AlterShareGroupOffsetsResponse> handle_alter_share_group_offsets(
    RequestContext& ctx, const protocol::AlterShareGroupOffsetsRequest& req) {
    using protocol::ErrorCode;
    protocol::AlterShareGroupOffsetsResponse resp;
    auto fail = [&](ErrorCode e, std::string message = {}) {
        resp.error_code = e;
        if (!message.empty())
            resp.error_message = std::move(message);
        return resp;
    };
    if (!authorized(ctx, AclOperation::read, ResourceType::group, req.group_id))
        co_return fail(ErrorCode::group_authorization_failed);
    if (auto refusal = refuse_share_offsets_change(ctx, req.group_id, "altered"))
        co_return fail(refusal->error, std::move(refusal->message));
    auto* admin = ctx.broker.share_offsets_admin();

    std::map<storage::TopicPartition, int64_t> valid;
    for (const auto& t : req.topics) {
        auto& topic = resp.responses.emplace_back();
        topic.topic_name = t.topic_name;
        const bool allowed = authorized(ctx, AclOperation::read, ResourceType::topic, t.topic_name);
        auto id = ctx.broker.logs().topic_id(t.topic_name);
        if (id)
            topic.topic_id = to_uuid(*id);
        for (const auto& p : t.partitions) {
            auto& part = topic.partitions.emplace_back();
            part.partition_index = p.partition_index;
            if (!allowed)
                part.error_code = ErrorCode::topic_authorization_failed;
            else if (!id || !ctx.broker.logs().get({t.topic_name, p.partition_index}))
                part.error_code = ErrorCode::unknown_topic_or_partition;
            else if (p.start_offset < 0)
                part.error_code = ErrorCode::invalid_request;
            else
                valid[{t.topic_name, p.partition_index}] = p.start_offset;
        }
    }
    if (valid.empty())
        co_return resp;
    auto errors = admin->alter_offsets(req.group_id, valid);
    for (auto& topic : resp.responses)
        for (auto& part : topic.partitions) {
            if (part.error_code != ErrorCode::none)
                continue;
            auto found = errors.find({topic.topic_name, part.partition_index});
            if (found != errors.end())
                part.error_code = found->second;
        }
    co_return resp;
}

}  // namespace skiff::broker
