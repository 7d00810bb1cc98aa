#include "broker/share/share_partition.h"

#include <algorithm>

namespace skiff::broker::share {

using protocol::ErrorCode;

namespace {

constexpr int8_t kGap = 0;
constexpr int8_t kAccept = 1;
constexpr int8_t kRelease = 2;
constexpr int8_t kReject = 3;
constexpr int8_t kRenew = 4;

int8_t persisted(RecordState s) {
    switch (s) {
        case RecordState::acknowledged:
            return kPersistedAcknowledged;
        case RecordState::archived:
            return kPersistedArchived;
        default:
            return kPersistedAvailable;  // a lock does not survive the broker
    }
}

}  // namespace

SharePartition::Ranges::iterator SharePartition::find(int64_t offset) {
    auto it = ranges_.upper_bound(offset);
    return it == ranges_.begin() ? ranges_.end() : std::prev(it);
}

SharePartition::Ranges::const_iterator SharePartition::find(int64_t offset) const {
    auto it = ranges_.upper_bound(offset);
    return it == ranges_.begin() ? ranges_.end() : std::prev(it);
}

void SharePartition::split_at(int64_t offset) {
    if (offset <= start_ || offset >= end_)
        return;
    auto it = find(offset);
    if (it == ranges_.end() || it->first == offset)
        return;
    Range tail = it->second;
    it->second.last = offset - 1;
    ranges_.emplace_hint(std::next(it), offset, tail);
}

void SharePartition::append(int64_t first, int64_t last, const Range& range) {
    auto& r = ranges_.emplace_hint(ranges_.end(), first, range)->second;
    r.last = last;
    const int64_t n = last - first + 1;
    if (r.state == RecordState::available)
        available_ += n;
    else if (r.state == RecordState::acquired) {
        acquired_ += n;
        min_deadline_ = std::min(min_deadline_, r.deadline_ms);
    }
    end_ = last + 1;
}

void SharePartition::set_state(int64_t first, Range& range, RecordState state) {
    const int64_t n = range.last - first + 1;
    if (range.state == RecordState::available)
        available_ -= n;
    else if (range.state == RecordState::acquired)
        acquired_ -= n;
    if (state == RecordState::available)
        available_ += n;
    else if (state == RecordState::acquired)
        acquired_ += n;
    range.state = state;
    if (state != RecordState::acquired) {
        range.member = 0;
        range.deadline_ms = 0;
    }
}

void SharePartition::give_back(int64_t first, Range& range, int16_t delivery_count_limit) {
    set_state(first, range,
              range.delivery_count >= delivery_count_limit ? RecordState::archived
                                                           : RecordState::available);
}

void SharePartition::coalesce(const Window& window) {
    if (window.empty() || ranges_.empty())
        return;
    auto it = find(std::max(window.lo, start_));
    if (it == ranges_.end())
        it = ranges_.begin();
    if (it != ranges_.begin())
        --it;
    while (it != ranges_.end() && it->first <= window.hi) {
        auto next = std::next(it);
        if (next != ranges_.end() && it->second.same_as(next->second)) {
            it->second.last = next->second.last;
            ranges_.erase(next);
        } else {
            it = next;
        }
    }
}

void SharePartition::advance_start() {
    while (!ranges_.empty()) {
        auto it = ranges_.begin();
        const auto s = it->second.state;
        if (s != RecordState::acknowledged && s != RecordState::archived)
            break;
        start_ = it->second.last + 1;
        ranges_.erase(it);
    }
    if (ranges_.empty())
        start_ = end_ = std::max(start_, end_);
}

std::optional<int64_t> SharePartition::next_fetch_offset(int64_t read_end_offset,
                                                         int32_t max_record_locks) const {
    if (available_ > 0)
        for (const auto& [first, r] : ranges_)
            if (r.state == RecordState::available)
                return first;
    if (end_ >= read_end_offset || end_ - start_ >= max_record_locks)
        return std::nullopt;
    return end_;
}

Window SharePartition::acquire(MemberRef member, std::span<const FetchedBatch> batches,
                               const AcquireLimits& limits, std::vector<AcquiredRecords>& out) {
    Window touched;
    int64_t remaining = limits.max_records;
    const auto emit = [&](int64_t first, int64_t last, int16_t count) {
        if (!out.empty() && out.back().last_offset + 1 == first &&
            out.back().delivery_count == count)
            out.back().last_offset = last;
        else
            out.push_back({first, last, count});
        remaining -= last - first + 1;
    };
    for (const auto& b : batches) {
        if (remaining <= 0)
            break;
        const int64_t first = std::max(b.base_offset, start_);
        const int64_t last = b.last_offset;
        if (last < first)
            continue;
        // The part already tracked: released or restored records are acquired again, whole
        // ranges at a time.
        if (first < end_ && available_ > 0) {
            const int64_t hi = std::min(last, end_ - 1);
            for (auto it = find(first); it != ranges_.end() && it->first <= hi && remaining > 0;
                 ++it) {
                if (it->second.state != RecordState::available)
                    continue;
                const int64_t a = std::max(it->first, first);
                const int64_t z = std::min(it->second.last, hi);
                split_at(a);
                split_at(z + 1);
                it = ranges_.find(a);
                Range& r = it->second;
                touched.add(a, z);
                if (b.skip || r.delivery_count >= limits.delivery_count_limit) {
                    // A record delivered to the limit before a restart is not delivered again.
                    set_state(a, r, RecordState::archived);
                    continue;
                }
                set_state(a, r, RecordState::acquired);
                ++r.delivery_count;
                r.member = member;
                r.deadline_ms = limits.lock_deadline_ms;
                min_deadline_ = std::min(min_deadline_, r.deadline_ms);
                emit(a, z, r.delivery_count);
            }
        }
        // The part never acquired before, within the in-flight limit.
        if (last < end_ || remaining <= 0)
            continue;
        if (!b.skip && end_ - start_ >= limits.max_record_locks)
            break;
        const int64_t from = std::max(first, end_);
        if (from > end_) {
            // Offsets the log has no records for (compacted away, or removed before the read).
            touched.add(end_, from - 1);
            append(end_, from - 1, Range{0, RecordState::archived, 0, 0, 0});
        }
        touched.add(from, last);
        if (b.skip) {
            append(from, last, Range{0, RecordState::archived, 0, 0, 0});
            continue;
        }
        append(from, last, Range{0, RecordState::acquired, 1, member, limits.lock_deadline_ms});
        emit(from, last, 1);
    }
    coalesce(touched);
    advance_start();
    return touched;
}

ErrorCode SharePartition::check_acknowledgements(MemberRef member,
                                                 std::span<const AcknowledgementBatch> batches,
                                                 int64_t now_ms) const {
    // Malformed first, whatever the state: overlapping or unordered batches, types of the wrong
    // length or unknown.
    for (size_t i = 0; i < batches.size(); ++i) {
        const auto& b = batches[i];
        if (b.first_offset < 0 || b.first_offset > b.last_offset)
            return ErrorCode::invalid_request;
        if (i > 0 && b.first_offset <= batches[i - 1].last_offset)
            return ErrorCode::invalid_request;
        const auto n = static_cast<uint64_t>(b.last_offset - b.first_offset) + 1;
        if (b.types.empty() || (b.types.size() != 1 && b.types.size() != n))
            return ErrorCode::invalid_request;
        for (int8_t t : b.types)
            if (t < kGap || t > kRenew)
                return ErrorCode::invalid_request;
    }
    // Every offset acquired by this member, its lock not yet expired.
    for (const auto& b : batches) {
        if (b.first_offset < start_ || b.last_offset >= end_)
            return ErrorCode::invalid_record_state;
        for (auto it = find(b.first_offset); it != ranges_.end() && it->first <= b.last_offset;
             ++it) {
            const Range& r = it->second;
            if (r.state != RecordState::acquired || r.member != member || r.deadline_ms <= now_ms)
                return ErrorCode::invalid_record_state;
        }
    }
    return ErrorCode::none;
}

Window SharePartition::acknowledge(std::span<const AcknowledgementBatch> batches,
                                   int16_t delivery_count_limit, int64_t renewed_deadline_ms,
                                   bool& durable) {
    Window touched;
    durable = false;
    const auto apply = [&](int64_t a, int64_t z, int8_t type) {
        split_at(a);
        split_at(z + 1);
        for (auto it = ranges_.find(a); it != ranges_.end() && it->first <= z; ++it) {
            Range& r = it->second;
            switch (type) {
                case kAccept:
                    set_state(it->first, r, RecordState::acknowledged);
                    break;
                case kRelease:
                    give_back(it->first, r, delivery_count_limit);
                    break;
                case kRenew:
                    r.deadline_ms = renewed_deadline_ms;
                    min_deadline_ = std::min(min_deadline_, r.deadline_ms);
                    break;
                default:  // REJECT, and a gap: no record to deliver
                    set_state(it->first, r, RecordState::archived);
                    break;
            }
        }
        touched.add(a, z);
        durable = durable || type != kRenew;
    };
    for (const auto& b : batches) {
        if (b.types.size() == 1) {
            apply(b.first_offset, b.last_offset, b.types[0]);
            continue;
        }
        // One type per offset: runs of one type are applied as ranges.
        size_t i = 0;
        while (i < b.types.size()) {
            size_t j = i + 1;
            while (j < b.types.size() && b.types[j] == b.types[i])
                ++j;
            apply(b.first_offset + static_cast<int64_t>(i),
                  b.first_offset + static_cast<int64_t>(j) - 1, b.types[i]);
            i = j;
        }
    }
    coalesce(touched);
    advance_start();
    return touched;
}

Window SharePartition::release(MemberRef member, int16_t delivery_count_limit) {
    Window touched;
    if (acquired_ == 0)
        return touched;
    for (auto& [first, r] : ranges_)
        if (r.state == RecordState::acquired && r.member == member) {
            touched.add(first, r.last);
            give_back(first, r, delivery_count_limit);
        }
    coalesce(touched);
    advance_start();
    return touched;
}

Window SharePartition::expire_locks(int64_t now_ms, int16_t delivery_count_limit) {
    Window touched;
    if (min_deadline_ > now_ms)
        return touched;
    int64_t min_left = std::numeric_limits<int64_t>::max();
    for (auto& [first, r] : ranges_) {
        if (r.state != RecordState::acquired)
            continue;
        if (r.deadline_ms <= now_ms) {
            touched.add(first, r.last);
            give_back(first, r, delivery_count_limit);
        } else {
            min_left = std::min(min_left, r.deadline_ms);
        }
    }
    min_deadline_ = min_left;
    coalesce(touched);
    advance_start();
    return touched;
}

bool SharePartition::move_start_to(int64_t log_start_offset) {
    if (log_start_offset <= start_)
        return false;
    split_at(log_start_offset);
    while (!ranges_.empty() && ranges_.begin()->first < log_start_offset) {
        auto it = ranges_.begin();
        set_state(it->first, it->second, RecordState::archived);  // drops it from the counts
        ranges_.erase(it);
    }
    start_ = log_start_offset;
    end_ = std::max(end_, start_);
    advance_start();
    return true;
}

void SharePartition::reset(int64_t offset) {
    ranges_.clear();
    start_ = end_ = offset;
    available_ = acquired_ = 0;
    min_deadline_ = std::numeric_limits<int64_t>::max();
}

void SharePartition::restore(const ShareStateBatch& batch) {
    const int64_t first = std::max(batch.first_offset, start_);
    const int64_t last = batch.last_offset;
    if (last < first)
        return;
    const RecordState state = batch.delivery_state == kPersistedAcknowledged
                                  ? RecordState::acknowledged
                              : batch.delivery_state == kPersistedArchived ? RecordState::archived
                                                                           : RecordState::available;
    if (first >= end_) {
        // Offsets between what was tracked and this batch: never delivered.
        if (first > end_)
            append(end_, first - 1, Range{0, RecordState::available, 0, 0, 0});
        append(first, last, Range{0, state, batch.delivery_count, 0, 0});
        return;
    }
    const int64_t hi = std::min(last, end_ - 1);
    if (last >= end_)  // the tail beyond the tracked ranges first, then the overlap below
        append(end_, last, Range{0, state, batch.delivery_count, 0, 0});
    split_at(first);
    split_at(hi + 1);
    for (auto it = ranges_.find(first); it != ranges_.end() && it->first <= hi; ++it) {
        set_state(it->first, it->second, state);
        it->second.delivery_count = batch.delivery_count;
    }
    Window w;
    w.add(first, last);
    coalesce(w);
}

void SharePartition::write_batches(const std::optional<Window>& window,
                                   std::vector<ShareStateBatch>& out) const {
    if (ranges_.empty())
        return;
    auto it = ranges_.begin();
    if (window) {
        if (window->empty())
            return;
        it = find(std::max(window->lo, start_));
        if (it == ranges_.end())
            it = ranges_.begin();
    }
    for (; it != ranges_.end() && (!window || it->first <= window->hi); ++it)
        out.push_back(
            {it->first, it->second.last, persisted(it->second.state), it->second.delivery_count});
}

int64_t SharePartition::lag(int64_t read_end_offset) const {
    const int64_t done = delivery_complete();
    return std::max<int64_t>(0, read_end_offset - start_ - done);
}

}  // namespace skiff::broker::share
