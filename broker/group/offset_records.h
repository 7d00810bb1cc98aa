// The records of the internal __consumer_offsets log, in Kafka's format (OffsetCommitKey and
// OffsetCommitValue in Kafka's group coordinator), so Kafka's tools could read the log:
//   key   int16 version | group | topic | int32 partition                  (version 1 written)
//   value int16 version | int64 offset | int32 leader_epoch (v3+) | metadata
//         | int64 commit_timestamp | int64 expire_timestamp (v1 only)        (version 3 written)
//   strings are int16 length + UTF-8 bytes; a null value deletes the key.
// The version prefix selects the field layout; the fields are described like any message and
// read and written by protocol's Reader and Writer (bounds-checked, typed errors).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "protocol/decode_error.h"
#include "protocol/expected.h"
#include "protocol/field_spec.h"

namespace skiff::broker::group {

struct OffsetCommitKey {
    static constexpr int16_t kVersion = 1;  // version 0 has the same fields
    static constexpr bool flexible(int16_t) { return false; }
    std::string group;
    std::string topic;
    int32_t partition = 0;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        using protocol::between;
        v.field("group", m.group, between(0, 1));
        v.field("topic", m.topic, between(0, 1));
        v.field("partition", m.partition, between(0, 1));
    }
};

struct OffsetCommitValue {
    static constexpr int16_t kVersion = 3;
    static constexpr bool flexible(int16_t) { return false; }  // v4+ would be (Kafka 4.x reads 0-4)
    int64_t offset = -1;
    int32_t leader_epoch = -1;
    std::string metadata;
    int64_t commit_timestamp = 0;
    int64_t expire_timestamp = -1;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        using protocol::between;
        using protocol::since;
        v.field("offset", m.offset, since(0));
        v.field("leader_epoch", m.leader_epoch, since(3));
        v.field("metadata", m.metadata, since(0));
        v.field("commit_timestamp", m.commit_timestamp, since(0));
        v.field("expire_timestamp", m.expire_timestamp, between(1, 1));
    }
};

// The version-prefixed bytes of a key or value.
std::string encode_offset_key(const OffsetCommitKey& key);
std::string encode_offset_value(const OffsetCommitValue& value);
// The version read from the prefix (so the caller can skip kinds it does not interpret: group
// metadata records use key version 2), and the fields. Errors name the field.
Expected<int16_t, protocol::DecodeError> offset_record_version(std::span<const std::byte> bytes);
Expected<OffsetCommitKey, protocol::DecodeError> decode_offset_key(
    std::span<const std::byte> bytes);
Expected<OffsetCommitValue, protocol::DecodeError> decode_offset_value(
    std::span<const std::byte> bytes);

}  // namespace skiff::broker::group
