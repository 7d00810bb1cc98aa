// The sparse offset index of one segment (<base>.index).
//
// On disk: 8-byte entries, big-endian: int32 offset relative to the segment's base offset,
// int32 byte position of a batch in the segment's .log. Both strictly increase.
//
// Which offset an entry names: the LAST offset of the batch at that position, as Kafka does
// (for a one-record batch it is also the first). Lookups are correct with
// either convention: an entry (o, p) with o <= N means the batch at p ends at or before N, so N
// is at or after p, and scanning forward from p finds it.
//
// Thread-safety: as MappedIndex (one appender, concurrent readers).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "storage/mapped_index.h"

namespace skiff::storage {

struct OffsetPosition {
    int64_t offset = 0;  // absolute
    int64_t position = 0;
};

class OffsetIndex {
  public:
    static constexpr size_t kEntrySize = 8;

    OffsetIndex(std::unique_ptr<MappedIndex> file, int64_t base_offset)
        : file_(std::move(file)), base_offset_(base_offset) {}

    // Appends (offset, position); false when the index is full.
    bool append(int64_t offset, int64_t position);
    // Greatest entry with offset <= target.
    std::optional<OffsetPosition> lookup(int64_t offset) const;
    // Greatest entry with position <= target.
    std::optional<OffsetPosition> lookup_by_position(int64_t position) const;
    std::optional<OffsetPosition> last_entry() const;
    size_t entries() const { return file_->entries(); }
    OffsetPosition entry(size_t i) const;

    // Empty string when the entries are plausible for a .log of `log_size` bytes: offsets and
    // positions strictly increase, positions lie inside the log. Otherwise what is wrong.
    std::string sanity_problem(int64_t log_size) const;

    MappedIndex& file() { return *file_; }
    const MappedIndex& file() const { return *file_; }

  private:
    std::unique_ptr<MappedIndex> file_;
    int64_t base_offset_;
};

}  // namespace skiff::storage
