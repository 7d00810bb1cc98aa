// Giving freed heap memory back to the operating system after a burst.
//
// glibc's free() keeps memory in its arenas for reuse. After a storm of connections closes (or a
// burst of large requests is answered), most of what they used is free but still resident, and
// it stays resident until malloc_trim(0) hands the free pages back (madvise). malloc_trim walks
// and locks every arena, so it runs only when there is enough to return, at most once per
// `interval`; the maintenance thread calls maybe_trim() once a second.
//
// "Enough to return" is measured against what the process holds resident outside malloc's
// blocks (thread stacks, static data, allocator bookkeeping: about 4 MB in an idle broker): the
// smallest gap between resident anonymous memory and malloc's in-use bytes seen so far, which
// is that figure plus whatever free memory was resident at the time, and exactly that figure
// right after a trim. A trim runs when the gap exceeds it by `slack_bytes`. A fixed threshold
// cannot serve both sides: 32 MB never trimmed after 10,000 connections closed (they left
// 25-32 MB free but resident, tests/integration/test_connection_memory.py), and one low enough
// for that would trim every interval in a process whose own non-heap memory is above it.
//
// Thread-safe only in the sense that one thread (the maintenance thread) calls maybe_trim().
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace skiff::broker {

struct HeapUsage {
    size_t resident_anonymous_bytes = 0;  // RssAnon of /proc/self/status
    size_t in_use_bytes = 0;              // what malloc has handed out (arenas + mmap-backed)
};

// This process's figures now.
HeapUsage current_heap_usage();

// Resident anonymous memory that is not in malloc's blocks in use (0 when more is in use than
// resident: blocks handed out but never touched).
size_t resident_outside_use(const HeapUsage& usage);

// Whether a trim would return about `slack_bytes` or more, given the least resident memory
// outside malloc's blocks seen so far.
bool worth_trimming(const HeapUsage& usage, size_t least_outside_bytes, size_t slack_bytes);

class HeapTrimmer {
  public:
    using clock = std::chrono::steady_clock;
    static constexpr size_t kDefaultSlackBytes = size_t{4} << 20;
    static constexpr auto kDefaultInterval = std::chrono::seconds(5);

    explicit HeapTrimmer(size_t slack_bytes = kDefaultSlackBytes,
                         clock::duration interval = kDefaultInterval)
        : slack_bytes_(slack_bytes), interval_(interval) {}

    // Trims when due and worthwhile. True when it trimmed.
    bool maybe_trim(clock::time_point now = clock::now());

  private:
    size_t slack_bytes_;
    clock::duration interval_;
    clock::time_point last_check_{};
    size_t least_outside_bytes_ = SIZE_MAX;
};

}  // namespace skiff::broker
