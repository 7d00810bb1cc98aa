// __share_group_state's records byte for byte in Kafka 4.2's layout (ShareSnapshotKey/Value,
// ShareUpdateKey/Value of the share coordinator), and the partition Kafka picks for a key.
#include "broker/share/share_state_records.h"

#include <gtest/gtest.h>

#include <cstring>

namespace skiff::broker::share {
namespace {

std::span<const std::byte> bytes(const std::string& s) {
    return std::as_bytes(std::span(s.data(), s.size()));
}

std::string hex(const std::string& s) {
    static const char* d = "0123456789abcdef";
    std::string out;
    for (unsigned char c : s) {
        out += d[c >> 4];
        out += d[c & 15];
    }
    return out;
}

protocol::Uuid uuid_of(uint8_t first) {
    protocol::Uuid id;
    for (size_t i = 0; i < 16; ++i)
        id.bytes[i] = static_cast<uint8_t>(first + i);
    return id;
}

TEST(ShareStateRecords, KeyLayout) {
    // int16 type | int16 length + group id | 16-byte topic id | int32 partition
    const std::string key = encode_share_key({kShareUpdateType, "g1", uuid_of(0), 7});
    EXPECT_EQ(hex(key),
              "0001"
              "0002"
              "6731"
              "000102030405060708090a0b0c0d0e0f"
              "00000007");
    auto back = decode_share_key(bytes(key));
    ASSERT_TRUE(back);
    EXPECT_EQ(back->type, kShareUpdateType);
    EXPECT_EQ(back->group_id, "g1");
    EXPECT_EQ(back->topic_id, uuid_of(0));
    EXPECT_EQ(back->partition, 7);
    // Another coordinator's record type is not ours.
    std::string other = key;
    other[1] = 2;
    EXPECT_FALSE(decode_share_key(bytes(other)));
}

TEST(ShareStateRecords, SnapshotValueLayout) {
    ShareSnapshotValue v;
    v.snapshot_epoch = 1;
    v.state_epoch = 2;
    v.leader_epoch = -1;
    v.start_offset = 10;
    v.create_timestamp_ms = 0x100;
    v.write_timestamp_ms = 0x200;
    v.state_batches = {{10, 12, kPersistedArchived, 3}};
    const std::string value = encode_share_snapshot(v);
    // version 0 | int32 snapshot epoch | int32 state epoch | int32 leader epoch | int64 start
    // | int64 create ts | int64 write ts | compact array (count + 1) of {int64 first, int64
    // last, int8 state, int16 count, tagged fields} | tagged fields
    EXPECT_EQ(hex(value),
              "0000"
              "00000001"
              "00000002"
              "ffffffff"
              "000000000000000a"
              "0000000000000100"
              "0000000000000200"
              "02"
              "000000000000000a"
              "000000000000000c"
              "04"
              "0003"
              "00"
              "00");
    auto back = decode_share_snapshot(bytes(value));
    ASSERT_TRUE(back);
    EXPECT_EQ(back->state_epoch, 2);
    EXPECT_EQ(back->start_offset, 10);
    EXPECT_EQ(back->state_batches, v.state_batches);
}

TEST(ShareStateRecords, UpdateValueLayoutWithTaggedDeliveryCompleteCount) {
    ShareUpdateValue v;
    v.snapshot_epoch = 1;
    v.start_offset = 5;
    v.delivery_complete_count = 3;
    v.state_batches = {{5, 6, kPersistedAvailable, 1}};
    const std::string value = encode_share_update(v);
    // version 0 | snapshot epoch | leader epoch | start offset | batches | tagged fields: one,
    // tag 0, 4 bytes (KIP-1226's DeliveryCompleteCount)
    EXPECT_EQ(hex(value),
              "0000"
              "00000001"
              "ffffffff"
              "0000000000000005"
              "02"
              "0000000000000005"
              "0000000000000006"
              "00"
              "0001"
              "00"
              "01"
              "00"
              "04"
              "00000003");
    auto back = decode_share_update(bytes(value));
    ASSERT_TRUE(back);
    EXPECT_EQ(back->delivery_complete_count, 3);
    EXPECT_EQ(back->state_batches, v.state_batches);
    // Unknown versions are refused.
    std::string v1 = value;
    v1[1] = 1;
    EXPECT_FALSE(decode_share_update(bytes(v1)));
}

TEST(ShareStateRecords, PartitionIsJavaHashOfTheCoordinatorKey) {
    // Kafka's SharePartitionKey.asCoordinatorKey: "group:topicId:partition".
    const std::string key = share_coordinator_key("g", uuid_of(0), 0);
    EXPECT_EQ(key, "g:AAECAwQFBgcICQoLDA0ODw:0");
    // Java: "abc".hashCode() == 96354; Utils.abs(h) % 50.
    EXPECT_EQ(share_state_partition_for("abc", 50), 96354 % 50);
    // A negative hash: "polygenelubricants".hashCode() == Integer.MIN_VALUE -> 0.
    EXPECT_EQ(share_state_partition_for("polygenelubricants", 50), 0);
    // "zzzzzz".hashCode() == -685785664 (negative, not MIN_VALUE): abs, then modulo.
    EXPECT_EQ(share_state_partition_for("zzzzzz", 50), 685785664 % 50);
}

}  // namespace
}  // namespace skiff::broker::share
