#include "storage/time_index.h"

#include "storage/big_endian.h"

namespace skiff::storage {

namespace {
int64_t timestamp_of(const std::byte* e) {
    return load_be<int64_t>(e);
}
int64_t time_entry_offset(const std::byte* e) {
    return load_be<int32_t>(e + 8);
}
}  // namespace

bool TimeIndex::maybe_append(int64_t timestamp, int64_t offset) {
    auto last = last_entry();
    if (last && (timestamp <= last->timestamp || offset < last->offset))
        return false;
    std::byte e[kEntrySize];
    store_be<int64_t>(e, timestamp);
    store_be<int32_t>(e + 8, static_cast<int32_t>(offset - base_offset_));
    return file_->append(e);
}

TimestampAndOffset TimeIndex::entry(size_t i) const {
    const std::byte* e = file_->entry(i);
    return {timestamp_of(e), base_offset_ + time_entry_offset(e)};
}

std::optional<TimestampAndOffset> TimeIndex::lookup(int64_t timestamp) const {
    auto i = file_->last_at_most(timestamp, timestamp_of);
    if (!i)
        return std::nullopt;
    return entry(*i);
}

std::optional<TimestampAndOffset> TimeIndex::last_entry() const {
    size_t n = entries();
    if (n == 0)
        return std::nullopt;
    return entry(n - 1);
}

std::string TimeIndex::sanity_problem(int64_t next_offset) const {
    size_t n = entries();
    for (size_t i = 0; i < n; ++i) {
        TimestampAndOffset e = entry(i);
        bool ordered =
            i == 0 || (e.timestamp > entry(i - 1).timestamp && e.offset >= entry(i - 1).offset);
        if (!ordered || e.offset < base_offset_ || e.offset >= next_offset)
            return file_->path().string() + ": entry " + std::to_string(i) + " (" +
                   std::to_string(e.timestamp) + ", " + std::to_string(e.offset) +
                   ") is out of order or outside the segment";
    }
    return {};
}

}  // namespace skiff::storage
