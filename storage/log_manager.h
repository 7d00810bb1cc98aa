// All partition logs of one log dir: <log dir>/<topic>-<partition>/ per partition, plus the
// dir-level files Kafka keeps there:
//   .kafka_cleanshutdown               present only after a clean close(); removed at open so a
//                                      later crash is noticed
//   recovery-point-offset-checkpoint   offsets up to which each log is known flushed
//   log-start-offset-checkpoint        first offset still readable in each log
// (formats in checkpoint_file.h).
//
// Thread-safety: get/get_or_create/partitions may be called from any thread (a shared mutex
// guards the map; logs are never removed while the manager lives). Retention, flushing and
// checkpointing are meant for one background thread; the logs serialize themselves.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string_view>
#include <vector>

#include "protocol/expected.h"
#include "storage/checkpoint_file.h"
#include "storage/log_config.h"
#include "storage/partition_log.h"
#include "storage/storage_error.h"
#include "storage/topic_partition.h"

namespace skiff::storage {

inline constexpr const char* kCleanShutdownMarker = ".kafka_cleanshutdown";

// [a-zA-Z0-9._-]{1,249}, and not "." or "..".
bool is_valid_topic_name(std::string_view topic);
// "<topic>-<partition>" back to a TopicPartition (the topic may itself contain '-').
std::optional<TopicPartition> parse_partition_dir_name(std::string_view name);

class LogManager {
  public:
    static Expected<std::unique_ptr<LogManager>, StorageError> open(std::filesystem::path log_dir,
                                                                    LogConfig defaults,
                                                                    Clock clock = {});
    PartitionLog* get(const TopicPartition& tp) const;
    Expected<PartitionLog*, StorageError> get_or_create(const TopicPartition& tp);
    std::vector<TopicPartition> partitions() const;
    size_t run_retention();  // also checkpoints log start offsets when something was deleted
    void flush_due();
    Expected<void, StorageError> checkpoint();
    Expected<void, StorageError> close();
    const std::filesystem::path& log_dir() const { return log_dir_; }
    bool recovered_cleanly() const { return recovered_cleanly_; }

  private:
    LogManager(std::filesystem::path log_dir, LogConfig defaults, Clock clock)
        : log_dir_(std::move(log_dir)), defaults_(std::move(defaults)), clock_(std::move(clock)) {}
    std::vector<std::pair<TopicPartition, PartitionLog*>> logs() const;

    std::filesystem::path log_dir_;
    LogConfig defaults_;
    Clock clock_;
    bool recovered_cleanly_ = false;
    mutable std::shared_mutex mutex_;
    std::map<TopicPartition, std::unique_ptr<PartitionLog>> logs_;
    std::mutex checkpoint_mutex_;
};

}  // namespace skiff::storage
