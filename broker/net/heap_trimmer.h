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
// malloc_trim(0) does not return everything, though: in the arenas of threads other than the
// main one it hands back whole free pages inside free blocks but never the arena's top (glibc's
// mtrim() calls systrim() for the main arena only). A thread's top shrinks only inside free(),
// and only when it is at least M_TRIM_THRESHOLD (16 MiB here, see configure_malloc()). When the
// last blocks of a connection storm are freed in address order, they merge into the top of that
// I/O thread's arena: 8 MB of it stayed resident after every second storm of 10,000 connections,
// and malloc_trim returned none of it (tests/integration/test_connection_memory.py failed CI
// with 21.5 MB above the baseline). So when a trim still leaves more than the slack resident,
// the trimmer lowers the threshold for a moment and has each allocating thread free a block
// large enough that free() trims that thread's arena (release_arena_top()).
//
// Thread-safe only in the sense that one thread (the maintenance thread) calls maybe_trim().
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

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

// The broker's malloc settings (M_MMAP_THRESHOLD, M_TRIM_THRESHOLD; the reasons are in the
// .cpp). Called once at start, before the threads.
void configure_malloc();

// The trim threshold configure_malloc() sets, which release_arena_top() lowers for a moment.
inline constexpr size_t kTrimThresholdBytes = size_t{16} << 20;

// Frees a block of the calling thread's arena large enough that free() considers trimming the
// arena's top; with the trim threshold lowered, it does.
void release_arena_top();

class HeapTrimmer {
  public:
    using clock = std::chrono::steady_clock;
    static constexpr size_t kDefaultSlackBytes = size_t{4} << 20;
    static constexpr auto kDefaultInterval = std::chrono::seconds(5);
    // Runs the task once on each thread whose arena may hold connection memory (the I/O
    // threads, the acceptors' thread), asynchronously; returns how many it posted.
    using OnEachThread = std::function<size_t(std::function<void()>)>;

    explicit HeapTrimmer(OnEachThread on_each_thread = {}, size_t slack_bytes = kDefaultSlackBytes,
                         clock::duration interval = kDefaultInterval)
        : on_each_thread_(std::move(on_each_thread)),
          slack_bytes_(slack_bytes),
          interval_(interval) {}

    // Trims when due and worthwhile. True when it trimmed.
    bool maybe_trim(clock::time_point now = clock::now());

  private:
    // Lowers the trim threshold and has every thread release its arena's top; the last one
    // restores the threshold. Does nothing while an earlier round is still running.
    void release_arena_tops();

    OnEachThread on_each_thread_;
    size_t slack_bytes_;
    clock::duration interval_;
    clock::time_point last_check_{};
    size_t least_outside_bytes_ = SIZE_MAX;
    // Threads that have not yet released their tops in the current round (shared with the tasks,
    // which may outlive the trimmer when the broker stops).
    std::shared_ptr<std::atomic<size_t>> releasing_ = std::make_shared<std::atomic<size_t>>(0);
};

}  // namespace skiff::broker
