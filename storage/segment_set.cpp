#include "storage/segment_set.h"

#include <algorithm>

namespace skiff::storage {

std::optional<size_t> SegmentSet::floor(int64_t offset) const {
    auto it = std::upper_bound(segments_.begin(), segments_.end(), offset,
                               [](int64_t o, const auto& s) { return o < s->base_offset(); });
    if (it == segments_.begin())
        return std::nullopt;
    return static_cast<size_t>(it - segments_.begin() - 1);
}

std::shared_ptr<const SegmentSet> SegmentSet::with_appended(
    std::shared_ptr<LogSegment> segment) const {
    auto copy = segments_;
    copy.push_back(std::move(segment));
    return std::make_shared<const SegmentSet>(std::move(copy));
}

std::shared_ptr<const SegmentSet> SegmentSet::without_oldest(size_t count) const {
    std::vector<std::shared_ptr<LogSegment>> rest(
        segments_.begin() + static_cast<ptrdiff_t>(std::min(count, segments_.size())),
        segments_.end());
    return std::make_shared<const SegmentSet>(std::move(rest));
}

}  // namespace skiff::storage
