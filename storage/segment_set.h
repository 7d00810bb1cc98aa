// The segments of one partition, ordered by base offset (Kafka's LogSegments). Immutable: a
// roll or a retention pass builds a new set and publishes it, so readers holding a
// std::shared_ptr<const SegmentSet> keep a consistent list without holding any lock.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "storage/log_segment.h"

namespace skiff::storage {

class SegmentSet {
  public:
    SegmentSet() = default;
    explicit SegmentSet(std::vector<std::shared_ptr<LogSegment>> segments)
        : segments_(std::move(segments)) {}

    size_t size() const { return segments_.size(); }
    bool empty() const { return segments_.empty(); }
    const std::shared_ptr<LogSegment>& operator[](size_t i) const { return segments_[i]; }
    const std::shared_ptr<LogSegment>& active() const { return segments_.back(); }
    const std::vector<std::shared_ptr<LogSegment>>& segments() const { return segments_; }

    // Index of the segment with the greatest base offset <= offset (binary search).
    std::optional<size_t> floor(int64_t offset) const;

    std::shared_ptr<const SegmentSet> with_appended(std::shared_ptr<LogSegment> segment) const;
    std::shared_ptr<const SegmentSet> without_oldest(size_t count) const;

  private:
    std::vector<std::shared_ptr<LogSegment>> segments_;
};

}  // namespace skiff::storage
