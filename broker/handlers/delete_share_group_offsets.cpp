// DeleteShareGroupOffsets (92): forgets a share group's state of whole topics (the next read
// starts by share.auto.offset.reset), only while the group has no members (NON_EMPTY_GROUP, as
// Kafka). KIP-932's ACLs: DELETE on the group (GROUP_AUTHORIZATION_FAILED) and READ on each
// topic (TOPIC_AUTHORIZATION_FAILED). A group that is not a share group is GROUP_ID_NOT_FOUND,
// an unknown topic UNKNOWN_TOPIC_OR_PARTITION.
#include <string>
#include <vector>

#include "broker/broker.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/share_request.h"
#include "broker/security/authorize.h"
#include "broker/topics/topic_ids.h"

namespace skiff::broker {

asio::awaitable<protocol::DeleteShareGroupOffsetsResponse> handle_delete_share_group_offsets(
    RequestContext& ctx, const protocol::DeleteShareGroupOffsetsRequest& req) {
    using protocol::ErrorCode;
    protocol::DeleteShareGroupOffsetsResponse resp;
    auto fail = [&](ErrorCode e, std::string message = {}) {
        resp.error_code = e;
        if (!message.empty())
            resp.error_message = std::move(message);
        return resp;
    };
    if (!authorized(ctx, AclOperation::remove, ResourceType::group, req.group_id))
        co_return fail(ErrorCode::group_authorization_failed);
    if (auto refusal = refuse_share_offsets_change(ctx, req.group_id, "deleted"))
        co_return fail(refusal->error, std::move(refusal->message));
    auto* admin = ctx.broker.share_offsets_admin();

    const auto with_state = admin->partitions_with_state(req.group_id);
    for (const auto& t : req.topics) {
        auto& topic = resp.responses.emplace_back();
        topic.topic_name = t.topic_name;
        auto id = ctx.broker.logs().topic_id(t.topic_name);
        if (id)
            topic.topic_id = to_uuid(*id);
        if (!authorized(ctx, AclOperation::read, ResourceType::topic, t.topic_name)) {
            topic.error_code = ErrorCode::topic_authorization_failed;
            continue;
        }
        if (!id) {
            topic.error_code = ErrorCode::unknown_topic_or_partition;
            continue;
        }
        std::vector<storage::TopicPartition> partitions;
        for (const auto& tp : with_state)
            if (tp.topic == t.topic_name)
                partitions.push_back(tp);
        if (partitions.empty())
            continue;  // nothing to forget
        for (const auto& [tp, e] : admin->delete_offsets(req.group_id, partitions))
            if (e != ErrorCode::none && topic.error_code == ErrorCode::none)
                topic.error_code = e;
    }
    co_return resp;
}

}  // namespace skiff::broker
