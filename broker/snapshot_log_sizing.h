// Sizing of the internal logs that are bounded by snapshots instead of compaction
// (__consumer_offsets in group/offset_store.h, __transaction_state in txn/): a snapshot must sit
// well inside one segment, so the segment grows with it, and retention keeps two segments and
// never deletes by age, so the kept log always starts before a whole snapshot.
#pragma once

#include <algorithm>
#include <cstdint>

#include "storage/log_config.h"
#include "storage/partition_log.h"

namespace skiff::broker {

// After a snapshot of `snapshot_bytes`: resizes `log`'s segments (and retention) when the size
// wanted changed. `segment_bytes` is the caller's current size, updated.
inline void fit_segments_to_snapshot(storage::PartitionLog& log, const storage::LogConfig& base,
                                     int64_t snapshot_bytes, int64_t& segment_bytes) {
    const int64_t wanted = std::max(static_cast<int64_t>(base.segment_bytes), 4 * snapshot_bytes);
    if (wanted == segment_bytes)
        return;
    segment_bytes = wanted;
    auto config = base;
    config.segment_bytes = static_cast<uint64_t>(wanted);
    config.retention_bytes = 2 * wanted;
    config.retention_ms = -1;
    log.update_config(config);
}

}  // namespace skiff::broker
