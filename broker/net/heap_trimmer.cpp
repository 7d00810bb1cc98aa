#include "broker/net/heap_trimmer.h"

#include <malloc.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>

namespace skiff::broker {
namespace {

// While the tops are released: an arena's top above this is handed back.
constexpr size_t kReleaseThresholdBytes = size_t{1} << 20;
// free() trims a thread's arena only after freeing a block of at least 64 KiB (glibc's
// FASTBIN_CONSOLIDATION_THRESHOLD); below the mmap threshold, so it comes from the arena.
constexpr size_t kReleaseBlockBytes = size_t{128} << 10;

}  // namespace

void configure_malloc() {
    // glibc raises its mmap threshold to the size of the largest mmap-backed block freed so far
    // (up to 32 MiB): after one 20 MiB request, later large request buffers come from the heap
    // arenas and stay there when freed, on top of the ones in use. A fixed threshold stops that:
    // request buffers of 4 MiB and more are always mmap-backed and return to the OS on free.
    // Smaller blocks stay in the arenas, where reuse is cheap; the trim threshold is raised with
    // it so that a thread's arena does not hand its top back (and fault it in again) on every
    // request of a few MiB. What the arenas keep after a burst is returned by the periodic
    // HeapTrimmer.
    // Measured (200 connections x one 20 MiB produce, queued.max.request.bytes 256 MiB, loaded
    // 2-core VM): with these settings peak RSS 187-204 MB and 8 MB two seconds after the burst;
    // without them 259-313 MB (over the bound) and 7-175 MB two seconds after (what the arenas
    // keep waits for the trim). The price: each large request faults in fresh pages, and that
    // burst took 37-71 s against 26-45 s. Requests under 4 MiB (all of them with the default
    // message.max.bytes) do not pay it.
    mallopt(M_MMAP_THRESHOLD, 4 << 20);
    mallopt(M_TRIM_THRESHOLD, static_cast<int>(kTrimThresholdBytes));
}

void release_arena_top() {
    void* block = std::malloc(kReleaseBlockBytes);
    // Keeps the compiler from folding the pair away: the free() is the point.
    asm volatile("" : : "r"(block) : "memory");
    std::free(block);
}

HeapUsage current_heap_usage() {
    HeapUsage usage;
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("RssAnon:", 0) == 0) {
            usage.resident_anonymous_bytes =
                static_cast<size_t>(std::stoull(line.substr(8))) * 1024;  // "  1234 kB"
            break;
        }
    }
    const struct mallinfo2 info = mallinfo2();
    usage.in_use_bytes = info.uordblks + info.hblkhd;
    return usage;
}

size_t resident_outside_use(const HeapUsage& usage) {
    return usage.resident_anonymous_bytes > usage.in_use_bytes
               ? usage.resident_anonymous_bytes - usage.in_use_bytes
               : 0;
}

bool worth_trimming(const HeapUsage& usage, size_t least_outside_bytes, size_t slack_bytes) {
    const size_t outside = resident_outside_use(usage);
    return outside > least_outside_bytes && outside - least_outside_bytes >= slack_bytes;
}

bool HeapTrimmer::maybe_trim(clock::time_point now) {
    if (now - last_check_ < interval_)
        return false;
    last_check_ = now;
    const HeapUsage before = current_heap_usage();
    least_outside_bytes_ = std::min(least_outside_bytes_, resident_outside_use(before));
    if (!worth_trimming(before, least_outside_bytes_, slack_bytes_))
        return false;
    malloc_trim(0);
    const HeapUsage after = current_heap_usage();
    least_outside_bytes_ = std::min(least_outside_bytes_, resident_outside_use(after));
    spdlog::debug("malloc_trim: resident anonymous memory {} -> {} MiB ({} MiB in use)",
                  before.resident_anonymous_bytes >> 20, after.resident_anonymous_bytes >> 20,
                  before.in_use_bytes >> 20);
    // What is still resident above the slack is in the arenas' tops (see the header); the next
    // look, one interval on, sees whether releasing them returned it.
    if (worth_trimming(after, least_outside_bytes_, slack_bytes_))
        release_arena_tops();
    return true;
}

void HeapTrimmer::release_arena_tops() {
    if (!on_each_thread_ || releasing_->load() != 0)
        return;
    mallopt(M_TRIM_THRESHOLD, static_cast<int>(kReleaseThresholdBytes));
    release_arena_top();  // this thread's own arena
    auto restore = [] { mallopt(M_TRIM_THRESHOLD, static_cast<int>(kTrimThresholdBytes)); };
    // Held above any thread count until every task is posted, so that a task that runs at once
    // does not restore the threshold before the others have run; whoever brings it to zero does.
    constexpr size_t kHold = size_t{1} << 32;
    releasing_->store(kHold);
    const size_t posted = on_each_thread_([releasing = releasing_, restore] {
        release_arena_top();
        if (releasing->fetch_sub(1) == 1)
            restore();
    });
    if (releasing_->fetch_sub(kHold - posted) == kHold - posted)
        restore();
    spdlog::debug("malloc_trim left {} MiB outside the blocks in use: releasing the arenas' tops",
                  resident_outside_use(current_heap_usage()) >> 20);
}

}  // namespace skiff::broker
