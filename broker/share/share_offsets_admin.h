// What the admin APIs for share groups need of the share-partitions' state (Kafka's persister
// reads and writes of the share coordinator): DescribeShareGroupOffsets (90) reads each
// share-partition's start offset, AlterShareGroupOffsets (91) sets it (only while the group has
// no members: the handler checks that through the group coordinator), DeleteShareGroupOffsets
// (92) forgets the state of a group's partitions of some topics. Implemented by the
// share-partition manager (broker/share/); the handlers in broker/handlers/ call it.
//
// Thread-safety: implementations may be called from any I/O thread.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "protocol/error_code.h"
#include "storage/topic_partition.h"

namespace skiff::broker::share {

class ShareOffsetsAdmin {
  public:
    virtual ~ShareOffsetsAdmin() = default;

    struct PartitionOffset {
        protocol::ErrorCode error = protocol::ErrorCode::none;
        // The share-partition's start offset; nullopt when the group has no state for the
        // partition (never read it, or its state was deleted): Kafka answers -1.
        std::optional<int64_t> start_offset;
        int32_t leader_epoch = -1;  // -1: skiff has no leader epochs for it
        // The records between the start offset and the high watermark that are not yet
        // acknowledged, released to the limit or archived (KIP-1226's lag); nullopt: unknown.
        std::optional<int64_t> lag;
    };
    virtual std::map<storage::TopicPartition, PartitionOffset> describe_offsets(
        const std::string& group_id, const std::vector<storage::TopicPartition>& partitions) = 0;
    // Every partition the group has state for.
    virtual std::vector<storage::TopicPartition> partitions_with_state(
        const std::string& group_id) = 0;

    // Sets the start offset of each partition (creating the state if none); records before it
    // are never delivered, in-flight state after it is discarded. NONE or the partition's error.
    virtual std::map<storage::TopicPartition, protocol::ErrorCode> alter_offsets(
        const std::string& group_id, const std::map<storage::TopicPartition, int64_t>& offsets) = 0;

    // Forgets the state of these partitions (the next read starts by share.auto.offset.reset).
    virtual std::map<storage::TopicPartition, protocol::ErrorCode> delete_offsets(
        const std::string& group_id, const std::vector<storage::TopicPartition>& partitions) = 0;
};

}  // namespace skiff::broker::share
