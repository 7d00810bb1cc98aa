// How long the logs' flushes and fsyncs take, reported to whoever listens (the broker's metrics
// endpoint) without storage knowing of metrics: one observer function, set once at start and read
// with a relaxed atomic load, so an unobserved sync costs a clock read and a null check.
#pragma once

#include <chrono>
#include <cstdint>

namespace skiff::storage {

enum class SyncKind : uint8_t {
    log_flush,  // one flush of a partition log (its segments' data and indexes, then the dir)
    fsync,      // one fdatasync of a segment's .log or index file
};

using SyncObserver = void (*)(SyncKind kind, int64_t nanoseconds);

// Replaces the observer (nullptr: none).
void set_sync_observer(SyncObserver observer);
void report_sync(SyncKind kind, int64_t nanoseconds);

// Reports the time from its construction to its destruction.
class SyncTimer {
  public:
    explicit SyncTimer(SyncKind kind) : kind_(kind), start_(std::chrono::steady_clock::now()) {}
    ~SyncTimer() {
        report_sync(kind_, std::chrono::duration_cast<std::chrono::nanoseconds>(
                               std::chrono::steady_clock::now() - start_)
                               .count());
    }
    SyncTimer(const SyncTimer&) = delete;
    SyncTimer& operator=(const SyncTimer&) = delete;

  private:
    SyncKind kind_;
    std::chrono::steady_clock::time_point start_;
};

}  // namespace skiff::storage
