// A share group's settings (KIP-932): the broker-wide defaults `group.share.*`, overridden per
// group by the group configs Kafka allows on a GROUP resource (IncrementalAlterConfigs /
// DescribeConfigs: share.auto.offset.reset, share.isolation.level,
// share.record.lock.duration.ms, share.delivery.count.limit, ...). The membership side
// (broker/group/share/) resolves them; the share-partitions (broker/share/) only read them.
#pragma once

#include <cstdint>

namespace skiff::broker::share {

// share.auto.offset.reset: where a share-partition starts when the group first reads it.
enum class ShareAutoOffsetReset { latest, earliest, by_duration };

struct ShareGroupConfig {
    ShareAutoOffsetReset auto_offset_reset = ShareAutoOffsetReset::latest;
    int64_t by_duration_ms = 0;   // for by_duration:<ISO-8601 duration>, in milliseconds
    bool read_committed = false;  // share.isolation.level=read_committed
    int32_t record_lock_duration_ms = 30000;    // group.share.record.lock.duration.ms
    int16_t delivery_count_limit = 5;           // group.share.delivery.count.limit
    int32_t partition_max_record_locks = 2000;  // group.share.partition.max.record.locks
};

}  // namespace skiff::broker::share
