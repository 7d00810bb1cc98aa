// Per-partition log settings. storage/ takes this small struct instead of reading any global
// configuration; the broker maps topic and broker settings onto it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>

namespace skiff::storage {

// Milliseconds since the epoch. An empty Clock means the wall clock.
using Clock = std::function<int64_t()>;

int64_t wall_clock_ms();

// Test hook for write failures (ENOSPC, EIO) without special file systems. Called before every
// write to a segment's .log file. Returning a WriteFault with error != 0 makes the write fail
// with that errno after `bytes_written_first` bytes really reached the file, so tests can check
// that a partially written append is undone.
struct WriteFault {
    int error = 0;
    int64_t bytes_written_first = 0;
};
struct FaultInjector {
    std::function<WriteFault(const std::filesystem::path& file, int64_t position, int64_t length)>
        before_log_write;
};

struct LogConfig {
    uint64_t segment_bytes = 1073741824;
    uint32_t index_interval_bytes = 4096;
    uint32_t index_size_max_bytes = 10485760;
    int64_t roll_ms = 604800000;       // 168 h
    int64_t retention_ms = 604800000;  // -1 = unlimited
    int64_t retention_bytes = -1;      // -1 = unlimited
    int64_t flush_interval_messages = std::numeric_limits<int64_t>::max();
    int64_t flush_interval_ms = std::numeric_limits<int64_t>::max();
    // cleanup.policy: "delete" (retention above), "compact" (the log cleaner keeps the last record
    // of every key), or both. Kafka's defaults: delete only.
    bool cleanup_delete = true;
    bool cleanup_compact = false;
    // Compaction knobs, Kafka's names and defaults (topic configs of the same name).
    int64_t delete_retention_ms = 86400000;  // tombstones (and markers) after cleaning: 24 h
    int64_t min_compaction_lag_ms = 0;
    int64_t max_compaction_lag_ms = std::numeric_limits<int64_t>::max();
    double min_cleanable_dirty_ratio = 0.5;
    // message.timestamp.type=LogAppendTime: every appended batch is stamped with the append time
    // (LogSegment::append). Kafka's default, CreateTime, stores the producer's timestamps.
    bool log_append_time = false;
    // Tests only; null in production.
    std::shared_ptr<FaultInjector> fault_injector;
};

}  // namespace skiff::storage
