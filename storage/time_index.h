// The time index of one segment (<base>.timeindex).
//
// On disk: 12-byte entries, big-endian: int64 timestamp (ms), int32 offset relative to the
// segment's base offset. Entry (t, o) says: the largest timestamp among offsets up to o is t,
// first reached in the batch whose last offset is o. Timestamps strictly increase and offsets
// never decrease, so "first offset with timestamp >= T" starts its scan at the greatest entry
// with timestamp <= T.
//
// Entries are written at the moments the offset index gets one, only when the segment's max
// timestamp has grown since the last entry, plus a final entry when the segment is sealed.
//
// Thread-safety: as MappedIndex (one appender, concurrent readers).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "storage/mapped_index.h"

namespace skiff::storage {

struct TimestampAndOffset {
    int64_t timestamp = 0;
    int64_t offset = 0;  // absolute
};

class TimeIndex {
  public:
    static constexpr size_t kEntrySize = 12;

    TimeIndex(std::unique_ptr<MappedIndex> file, int64_t base_offset)
        : file_(std::move(file)), base_offset_(base_offset) {}

    // Appends (timestamp, offset) if timestamp exceeds the last entry's; false if it did not.
    bool maybe_append(int64_t timestamp, int64_t offset);
    // Greatest entry with timestamp <= target.
    std::optional<TimestampAndOffset> lookup(int64_t timestamp) const;
    std::optional<TimestampAndOffset> last_entry() const;
    size_t entries() const { return file_->entries(); }
    TimestampAndOffset entry(size_t i) const;

    // Empty string when timestamps strictly increase and offsets are non-decreasing and below
    // `next_offset`; otherwise what is wrong.
    std::string sanity_problem(int64_t next_offset) const;

    MappedIndex& file() { return *file_; }
    const MappedIndex& file() const { return *file_; }

  private:
    std::unique_ptr<MappedIndex> file_;
    int64_t base_offset_;
};

}  // namespace skiff::storage
