#include "storage/cleaner/cleanable_section.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdint>

#include "storage/offset_index.h"
#include "storage/time_index.h"

namespace skiff::storage::cleaner {

int64_t last_modified_ms(const LogSegment& segment) {
    if (auto m = segment.max_timestamp())
        return m->timestamp;
    struct stat st {};
    if (::stat(segment.log_path().c_str(), &st) == 0)
        return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
    return -1;
}

Section cleanable_section(const PartitionLog& log, int64_t checkpoint, int64_t now_ms) {
    Section s;
    s.set = log.segments();
    const SegmentSet& set = *s.set;
    const LogConfig config = log.config();
    int64_t uncleanable =
        std::min({set.active()->base_offset(), log.last_stable_offset(), log.recovery_point()});
    if (config.min_compaction_lag_ms > 0) {
        for (size_t i = 0; i + 1 < set.size(); ++i) {
            if (last_modified_ms(*set[i]) > now_ms - config.min_compaction_lag_ms) {
                uncleanable = std::min(uncleanable, set[i]->base_offset());
                break;
            }
        }
    }
    s.first_uncleanable = uncleanable;
    while (s.end_segment + 1 < set.size() && set[s.end_segment + 1]->base_offset() <= uncleanable)
        ++s.end_segment;
    s.first_dirty = std::max({checkpoint, log.log_start_offset(), set[0]->base_offset()});
    s.first_dirty_segment = set.floor(s.first_dirty).value_or(0);
    if (s.first_dirty_segment + 1 < set.size() &&
        set[s.first_dirty_segment + 1]->base_offset() <= s.first_dirty)
        ++s.first_dirty_segment;
    return s;
}

std::vector<std::pair<size_t, size_t>> group_segments(const SegmentSet& set, size_t end,
                                                      const LogConfig& config) {
    std::vector<std::pair<size_t, size_t>> groups;
    size_t i = 0;
    while (i < end) {
        size_t j = i + 1;
        int64_t bytes = set[i]->size_bytes();
        int64_t offset_index = static_cast<int64_t>(set[i]->offset_index().entries());
        int64_t time_index = static_cast<int64_t>(set[i]->time_index().entries()) + 1;
        while (j < end) {
            const int64_t b = bytes + set[j]->size_bytes();
            const int64_t oi =
                offset_index + static_cast<int64_t>(set[j]->offset_index().entries());
            const int64_t ti =
                time_index + static_cast<int64_t>(set[j]->time_index().entries()) + 1;
            if (b > static_cast<int64_t>(config.segment_bytes) ||
                oi * static_cast<int64_t>(OffsetIndex::kEntrySize) >
                    static_cast<int64_t>(config.index_size_max_bytes) ||
                ti * static_cast<int64_t>(TimeIndex::kEntrySize) >
                    static_cast<int64_t>(config.index_size_max_bytes) ||
                set[j + 1]->base_offset() - 1 - set[i]->base_offset() > INT32_MAX)
                break;
            bytes = b;
            offset_index = oi;
            time_index = ti;
            ++j;
        }
        groups.emplace_back(i, j);
        i = j;
    }
    return groups;
}

}  // namespace skiff::storage::cleaner
