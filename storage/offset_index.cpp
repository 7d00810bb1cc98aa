#include "storage/offset_index.h"

#include "storage/big_endian.h"

namespace skiff::storage {

namespace {
int64_t relative_offset(const std::byte* e) {
    return load_be<int32_t>(e);
}
int64_t position_of(const std::byte* e) {
    return load_be<int32_t>(e + 4);
}
}  // namespace

bool OffsetIndex::append(int64_t offset, int64_t position) {
    std::byte e[kEntrySize];
    store_be<int32_t>(e, static_cast<int32_t>(offset - base_offset_));
    store_be<int32_t>(e + 4, static_cast<int32_t>(position));
    return file_->append(e);
}

OffsetPosition OffsetIndex::entry(size_t i) const {
    const std::byte* e = file_->entry(i);
    return {base_offset_ + relative_offset(e), position_of(e)};
}

std::optional<OffsetPosition> OffsetIndex::lookup(int64_t offset) const {
    auto i = file_->last_at_most(offset - base_offset_, relative_offset);
    if (!i)
        return std::nullopt;
    return entry(*i);
}

std::optional<OffsetPosition> OffsetIndex::lookup_by_position(int64_t position) const {
    auto i = file_->last_at_most(position, position_of);
    if (!i)
        return std::nullopt;
    return entry(*i);
}

std::optional<OffsetPosition> OffsetIndex::last_entry() const {
    size_t n = entries();
    if (n == 0)
        return std::nullopt;
    return entry(n - 1);
}

std::string OffsetIndex::sanity_problem(int64_t log_size) const {
    size_t n = entries();
    int64_t prev_rel = -1, prev_pos = -1;
    for (size_t i = 0; i < n; ++i) {
        const std::byte* e = file_->entry(i);
        int64_t rel = relative_offset(e), pos = position_of(e);
        if (rel <= prev_rel || pos <= prev_pos || rel < 0 || pos >= log_size)
            return file_->path().string() + ": entry " + std::to_string(i) + " (" +
                   std::to_string(rel) + ", " + std::to_string(pos) +
                   ") is out of order or outside the log";
        prev_rel = rel;
        prev_pos = pos;
    }
    return {};
}

}  // namespace skiff::storage
