// What ShareFetch and ShareAcknowledge (handlers/share_fetch.cpp, share_acknowledge.cpp) check
// and do alike: the topic a share request names by id, its READ authorization, and one
// partition's acknowledgement batches handed to the share-partition manager.
#pragma once

#include <asio/awaitable.hpp>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "broker/request_context.h"
#include "broker/share/share_group_config.h"
#include "broker/share/share_partition_manager.h"
#include "protocol/error_code.h"
#include "protocol/field_spec.h"
#include "protocol/share_fetch.h"

namespace skiff::broker {

// The clock acquisition locks run on: wall-clock milliseconds, the time the share-partition
// manager's tick() is given too.
int64_t share_now_ms();

// The topic a share request names by id: its name, or UNKNOWN_TOPIC_ID (no topic holds the id)
// or TOPIC_AUTHORIZATION_FAILED (no READ on it), which Kafka answers for each of its partitions.
struct ShareTopicRef {
    std::string name;
    protocol::ErrorCode error = protocol::ErrorCode::none;
};
ShareTopicRef resolve_share_topic(const RequestContext& ctx, const protocol::Uuid& topic_id);

// Why AlterShareGroupOffsets / DeleteShareGroupOffsets may not change `group_id`'s offsets (after
// their ACL check): share groups off (UNSUPPORTED_VERSION, as Kafka), not a share group
// (GROUP_ID_NOT_FOUND) or one with members (NON_EMPTY_GROUP); nullopt when they may. `done` is
// what the message says cannot be done to them ("altered", "deleted").
struct ShareOffsetsRefusal {
    protocol::ErrorCode error;
    std::string message;
};
std::optional<ShareOffsetsRefusal> refuse_share_offsets_change(const RequestContext& ctx,
                                                               const std::string& group_id,
                                                               std::string_view done);

// Applies one partition's acknowledgement batches: NONE, the manager's error
// (INVALID_RECORD_STATE, INVALID_REQUEST), or INVALID_REQUEST for a RENEW (4) in a request that
// is not a renew request (v1 never is), before the manager sees anything. Durable mode's
// unsynced writes go to `unsynced`: the request answers once they are synced (await_synced).
protocol::ErrorCode apply_acknowledgements(
    share::SharePartitionManager& partitions, const share::SharePartitionKey& key,
    const std::string& member_id, std::span<const protocol::ShareAcknowledgementBatch> batches,
    bool renew_allowed, const share::ShareGroupConfig& config, int64_t now_ms,
    share::UnsyncedWrites& unsynced);

// Durable mode: waits, without holding the network thread, until the request's share-state
// writes are on disk. False when a sync failed (the broker halts then: halt_on_sync_failure.h).
asio::awaitable<bool> await_synced(RequestContext& ctx, const share::UnsyncedWrites& unsynced);

}  // namespace skiff::broker
