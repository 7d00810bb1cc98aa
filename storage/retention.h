// Which sealed segments retention deletes. Pure decision, no I/O: the partition log removes
// the chosen segments. Whole segments only, oldest first, never the active one.
//   retention_bytes: delete the oldest while total size - its size >= retention_bytes
//                    (Kafka's semantics: the log may stay above the limit by less than a segment)
//   retention_ms:    delete the oldest while its largest timestamp < now - retention_ms
//   log start offset: delete the oldest while the next segment starts at or below it (records
//                    DeleteRecords removed: Kafka's deleteLogStartOffsetBreachedSegments)
// -1 disables either of the first two rules; so does a config without cleanup_delete (a
// compact-only log, cleanup.policy=compact): only the log start offset rule applies to it.
#pragma once

#include <cstdint>
#include <span>

#include "storage/log_config.h"

namespace skiff::storage {

struct SegmentRetentionInfo {
    int64_t size_bytes = 0;
    int64_t largest_timestamp_ms = -1;     // batch max timestamp, or file mtime when none
    int64_t next_base_offset = INT64_MAX;  // base offset of the segment after this one
};

// How many of the oldest `sealed` segments to delete; `total_size_bytes` includes the active one.
size_t segments_to_delete(std::span<const SegmentRetentionInfo> sealed, int64_t total_size_bytes,
                          const LogConfig& config, int64_t now_ms, int64_t log_start_offset = 0);

}  // namespace skiff::storage
