// The records of the internal __share_group_state topic, in the format of Kafka 4.2's share
// coordinator (share-coordinator's ShareSnapshotKey/Value and ShareUpdateKey/Value), so Kafka's
// tools could read the log:
//   key   int16 record type (0 ShareSnapshot, 1 ShareUpdate) | group id (int16 length + UTF-8)
//         | topic id (16 bytes) | int32 partition
//   ShareSnapshotValue: int16 version = 0 | flexible: int32 snapshot epoch | int32 state epoch
//         | int32 leader epoch | int64 start offset | tagged 0: int32 delivery complete count
//         | int64 create timestamp | int64 write timestamp | state batches
//   ShareUpdateValue:   int16 version = 0 | flexible: int32 snapshot epoch | int32 leader epoch
//         | int64 start offset | tagged 0: int32 delivery complete count | state batches
//   state batch: int64 first offset | int64 last offset | int8 delivery state (0 available,
//         2 acknowledged, 4 archived) | int16 delivery count
//   a null value (tombstone) removes the key.
// A snapshot is the share-partition's whole state; an update carries the state batches a change
// touched and is applied over the snapshot and the updates before it, in log order.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "protocol/decode_error.h"
#include "protocol/expected.h"
#include "protocol/field_spec.h"

namespace skiff::broker::share {

inline constexpr const char* kShareGroupStateTopic = "__share_group_state";

// The record types of __share_group_state's keys (Kafka's CoordinatorRecordType).
inline constexpr int16_t kShareSnapshotType = 0;
inline constexpr int16_t kShareUpdateType = 1;

// Kafka's persisted delivery states (acquired records are written as available: a lock does not
// survive the broker).
inline constexpr int8_t kPersistedAvailable = 0;
inline constexpr int8_t kPersistedAcknowledged = 2;
inline constexpr int8_t kPersistedArchived = 4;

struct ShareStateBatch {
    int64_t first_offset = 0;
    int64_t last_offset = 0;
    int8_t delivery_state = kPersistedAvailable;
    int16_t delivery_count = 0;

    friend bool operator==(const ShareStateBatch&, const ShareStateBatch&) = default;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        using protocol::since;
        v.field("first_offset", m.first_offset, since(0));
        v.field("last_offset", m.last_offset, since(0));
        v.field("delivery_state", m.delivery_state, since(0));
        v.field("delivery_count", m.delivery_count, since(0));
    }
};

struct ShareStateKey {
    int16_t type = kShareSnapshotType;
    std::string group_id;
    protocol::Uuid topic_id;
    int32_t partition = 0;
};

struct ShareSnapshotValue {
    int32_t snapshot_epoch = 0;
    int32_t state_epoch = 0;
    int32_t leader_epoch = -1;
    int64_t start_offset = 0;
    std::optional<int32_t> delivery_complete_count;  // KIP-1226; tagged, default -1
    int64_t create_timestamp_ms = 0;
    int64_t write_timestamp_ms = 0;
    std::vector<ShareStateBatch> state_batches;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        using protocol::since;
        using protocol::tagged;
        v.field("snapshot_epoch", m.snapshot_epoch, since(0));
        v.field("state_epoch", m.state_epoch, since(0));
        v.field("leader_epoch", m.leader_epoch, since(0));
        v.field("start_offset", m.start_offset, since(0));
        v.field("delivery_complete_count", m.delivery_complete_count, since(0),
                tagged(0, since(0)));
        v.field("create_timestamp", m.create_timestamp_ms, since(0));
        v.field("write_timestamp", m.write_timestamp_ms, since(0));
        v.field("state_batches", m.state_batches, since(0));
    }
};

struct ShareUpdateValue {
    int32_t snapshot_epoch = 0;
    int32_t leader_epoch = -1;
    int64_t start_offset = -1;  // -1: not moved by this update
    std::optional<int32_t> delivery_complete_count;
    std::vector<ShareStateBatch> state_batches;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        using protocol::since;
        using protocol::tagged;
        v.field("snapshot_epoch", m.snapshot_epoch, since(0));
        v.field("leader_epoch", m.leader_epoch, since(0));
        v.field("start_offset", m.start_offset, since(0));
        v.field("delivery_complete_count", m.delivery_complete_count, since(0),
                tagged(0, since(0)));
        v.field("state_batches", m.state_batches, since(0));
    }
};

std::string encode_share_key(const ShareStateKey& key);
std::string encode_share_snapshot(const ShareSnapshotValue& value);
std::string encode_share_update(const ShareUpdateValue& value);
Expected<ShareStateKey, protocol::DecodeError> decode_share_key(std::span<const std::byte> bytes);
Expected<ShareSnapshotValue, protocol::DecodeError> decode_share_snapshot(
    std::span<const std::byte> bytes);
Expected<ShareUpdateValue, protocol::DecodeError> decode_share_update(
    std::span<const std::byte> bytes);

// Kafka's share coordinator key, "group:topicId:partition" (the topic id in Kafka's base64
// form), whose Java hashCode picks the partition of __share_group_state.
std::string share_coordinator_key(const std::string& group_id, const protocol::Uuid& topic_id,
                                  int32_t partition);
// Kafka's choice of partition: Utils.abs(key.hashCode()) % partitions.
int32_t share_state_partition_for(const std::string& coordinator_key, int32_t partitions);

}  // namespace skiff::broker::share
