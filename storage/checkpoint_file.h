// Offset checkpoint files of the log dir (recovery-point-offset-checkpoint,
// log-start-offset-checkpoint), in Kafka's text format:
//     0                  version
//     2                  number of entries
//     orders 0 1234      topic partition offset, one line each
// Written with write_file_atomically (durable_file.h).
// Not thread-safe for the same file; the log manager serializes checkpoint writes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

#include "protocol/expected.h"
#include "storage/durable_file.h"
#include "storage/storage_error.h"
#include "storage/topic_partition.h"

namespace skiff::storage {

using OffsetCheckpoint = std::map<TopicPartition, int64_t>;

inline constexpr const char* kRecoveryPointCheckpoint = "recovery-point-offset-checkpoint";
inline constexpr const char* kLogStartOffsetCheckpoint = "log-start-offset-checkpoint";

Expected<void, StorageError> write_checkpoint(const std::filesystem::path& file,
                                              const OffsetCheckpoint& offsets);
// A missing file is an empty checkpoint; a malformed one is `corrupt`.
Expected<OffsetCheckpoint, StorageError> read_checkpoint(const std::filesystem::path& file);

}  // namespace skiff::storage
