#include "storage/retention.h"

#include <algorithm>

namespace skiff::storage {

size_t segments_to_delete(std::span<const SegmentRetentionInfo> sealed, int64_t total_size_bytes,
                          const LogConfig& config, int64_t now_ms, int64_t log_start_offset) {
    // Time and size retention belong to cleanup.policy=delete: a compact-only log keeps its
    // segments (the cleaner shrinks them), as in Kafka. The log start offset rule always holds.
    const bool deletes = config.cleanup_delete;
    size_t by_time = 0;
    if (deletes && config.retention_ms >= 0) {
        while (by_time < sealed.size() &&
               sealed[by_time].largest_timestamp_ms < now_ms - config.retention_ms)
            ++by_time;
    }
    size_t by_size = 0;
    if (deletes && config.retention_bytes >= 0) {
        int64_t remaining = total_size_bytes;
        while (by_size < sealed.size() &&
               remaining - sealed[by_size].size_bytes >= config.retention_bytes) {
            remaining -= sealed[by_size].size_bytes;
            ++by_size;
        }
    }
    size_t by_start = 0;
    while (by_start < sealed.size() && sealed[by_start].next_base_offset <= log_start_offset)
        ++by_start;
    return std::max({by_time, by_size, by_start});
}

}  // namespace skiff::storage
