#include "storage/sync_timing.h"

#include <atomic>

namespace skiff::storage {
namespace {

std::atomic<SyncObserver> observer{nullptr};

}  // namespace

void set_sync_observer(SyncObserver o) {
    observer.store(o, std::memory_order_release);
}

void report_sync(SyncKind kind, int64_t nanoseconds) {
    if (auto o = observer.load(std::memory_order_relaxed))
        o(kind, nanoseconds);
}

}  // namespace skiff::storage
