#include "broker/handlers/share_request.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <vector>

#include "broker/broker.h"
#include "broker/handlers/group_commit_wait.h"
#include "broker/security/authorize.h"
#include "broker/topics/topic_ids.h"

namespace skiff::broker {

using protocol::ErrorCode;

namespace {
// The RENEW acknowledgement type (KIP-1222), allowed only in a renew request.
constexpr int8_t kRenew = 4;
}  // namespace

int64_t share_now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

ShareTopicRef resolve_share_topic(const RequestContext& ctx, const protocol::Uuid& topic_id) {
    ShareTopicRef ref;
    auto name = topic_name_of(ctx.broker.topics(), topic_id);
    if (!name) {
        ref.error = ErrorCode::unknown_topic_id;
        return ref;
    }
    ref.name = std::move(*name);
    if (!authorized(ctx, AclOperation::read, ResourceType::topic, ref.name))
        ref.error = ErrorCode::topic_authorization_failed;
    return ref;
}

std::optional<ShareOffsetsRefusal> refuse_share_offsets_change(const RequestContext& ctx,
                                                               const std::string& group_id,
                                                               std::string_view done) {
    auto* membership = ctx.broker.share_membership();
    if (!membership || !ctx.broker.share_offsets_admin())  // as Kafka with share groups off
        return ShareOffsetsRefusal{ErrorCode::unsupported_version,
                                   "Share groups are not enabled on this broker."};
    const auto size = membership->share_group_size(group_id);
    if (!size)
        return ShareOffsetsRefusal{ErrorCode::group_id_not_found,
                                   "Group " + group_id + " is not a share group."};
    if (*size > 0)
        return ShareOffsetsRefusal{
            ErrorCode::non_empty_group,
            "The share group has members: its offsets cannot be " + std::string(done) + "."};
    return std::nullopt;
}

ErrorCode apply_acknowledgements(share::SharePartitionManager& partitions,
                                 const share::SharePartitionKey& key, const std::string& member_id,
                                 std::span<const protocol::ShareAcknowledgementBatch> batches,
                                 bool renew_allowed, const share::ShareGroupConfig& config,
                                 int64_t now_ms, share::UnsyncedWrites& unsynced) {
    // Reused per I/O thread: the batches' type arrays keep their capacity between requests.
    thread_local std::vector<share::AcknowledgementBatch> converted;
    converted.resize(batches.size());
    for (size_t i = 0; i < batches.size(); ++i) {
        const auto& b = batches[i];
        if (!renew_allowed)
            for (int8_t t : b.acknowledge_types)
                if (t == kRenew)
                    return ErrorCode::invalid_request;
        converted[i].first_offset = b.first_offset;
        converted[i].last_offset = b.last_offset;
        converted[i].types.assign(b.acknowledge_types.begin(), b.acknowledge_types.end());
    }
    return partitions.acknowledge(key, member_id,
                                  std::span<const share::AcknowledgementBatch>(converted), config,
                                  now_ms, unsynced);
}

asio::awaitable<bool> await_synced(RequestContext& ctx, const share::UnsyncedWrites& unsynced) {
    if (auto failed = co_await wait_until_all_durable(ctx.broker.logs().group_commit(), unsynced)) {
        spdlog::error("a share group state write was not synced: {}", failed->message);
        co_return false;
    }
    co_return true;
}

}  // namespace skiff::broker
