// Which part of a compacted log one cleaning pass may touch (log_cleaner.h, steps 1 and 3):
// the cleanable section below the first uncleanable offset, and how its segments are grouped
// into cleaned segments. Reads the log's segment list; writes nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "storage/log_config.h"
#include "storage/log_segment.h"
#include "storage/partition_log.h"
#include "storage/segment_set.h"

namespace skiff::storage::cleaner {

// When the segment's data was last written, as Kafka's lastModified: the newest record's
// timestamp, else the .log's modification time.
int64_t last_modified_ms(const LogSegment& segment);

// The cleanable section of a log at one moment.
struct Section {
    std::shared_ptr<const SegmentSet> set;
    int64_t first_dirty = 0;
    int64_t first_uncleanable = 0;
    size_t first_dirty_segment = 0;  // the segment holding first_dirty
    size_t end_segment = 0;          // segments [0, end_segment) lie wholly below uncleanable
};

// The first dirty offset is the checkpoint, or the log start if later; the first uncleanable
// is the earliest of the active segment's base, the last stable offset, the recovery point and
// the first segment younger than min.compaction.lag.ms.
Section cleanable_section(const PartitionLog& log, int64_t checkpoint, int64_t now_ms);

// Kafka's groupSegmentsBySize over segments [0, end) of `set`: consecutive segments whose
// sizes add up to at most segment.bytes, whose index entries fit one index file and whose
// offsets stay within 2^31 of the group's base. Each group is [first, last).
std::vector<std::pair<size_t, size_t>> group_segments(const SegmentSet& set, size_t end,
                                                      const LogConfig& config);

}  // namespace skiff::storage::cleaner
