// Giving freed heap memory back to the operating system after a burst.
//
// glibc's free() keeps memory in its arenas for reuse. After a storm of connections closes (or a
// burst of large requests is answered), most of what they used is free but still resident, and
// it stays resident until malloc_trim(0) hands the free pages back (madvise). malloc_trim walks
// and locks every arena, so it runs only when there is enough to return: when the resident
// anonymous memory exceeds what malloc has handed out by `slack_bytes`, at most once per
// `interval`. The maintenance thread calls maybe_trim() once a second.
//
// The slack must be above what the process holds resident outside malloc's blocks in normal
// operation (thread stacks, Asio's reactor, allocator bookkeeping: about 3 MB measured with an
// idle broker), or it would trim every interval for nothing, and well below what a burst leaves:
// 10,000 connections that each sent one ApiVersions and closed left 25-32 MB free but resident,
// which a slack of 32 MB never trimmed (tests/integration/test_connection_memory.py).
//
// Thread-safe only in the sense that one thread (the maintenance thread) calls maybe_trim().
#pragma once

#include <chrono>
#include <cstddef>

namespace skiff::broker {

struct HeapUsage {
    size_t resident_anonymous_bytes = 0;  // RssAnon of /proc/self/status
    size_t in_use_bytes = 0;              // what malloc has handed out (arenas + mmap-backed)
};

// This process's figures now.
HeapUsage current_heap_usage();

// Whether a trim would return at least `slack_bytes`.
bool worth_trimming(const HeapUsage& usage, size_t slack_bytes);

class HeapTrimmer {
  public:
    using clock = std::chrono::steady_clock;
    static constexpr size_t kDefaultSlackBytes = size_t{8} << 20;
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
};

}  // namespace skiff::broker
