// Producer-state snapshots: <20-digit offset>.snapshot beside the segments, in Kafka's format
// (version 1), holding the producer state of everything below that offset. Written when a
// segment rolls (named by the new segment's base offset) and at clean close (named by the log
// end offset); at open the newest one at or below the log end offset is loaded and the batch
// headers after it are replayed, so a crash loses nothing.
//
// Format, big-endian:
//   int16  version = 1
//   uint32 crc     CRC-32C of everything after this field
//   int32  count, then per producer (46 bytes):
//     int64 producer_id | int16 epoch | int32 last_sequence | int64 last_offset |
//     int32 offset_delta (last_offset - first offset of the last batch) | int64 timestamp |
//     int32 coordinator_epoch (of the last marker, -1 if none) |
//     int64 current_txn_first_offset (-1: no open transaction; else reopened at load)
// Like Kafka, only each producer's last batch is kept, so right after a restart from a snapshot
// only a retry of that batch is recognised as a duplicate (replayed batches restore up to five).
//
// Thread-safety: plain functions; the partition's append lock serializes writers.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "protocol/expected.h"
#include "storage/producer_state.h"
#include "storage/storage_error.h"

namespace skiff::storage {

inline constexpr const char* kSnapshotSuffix = ".snapshot";

// Writes with write_file_atomically (durable_file.h).
Expected<void, StorageError> write_producer_snapshot(const std::filesystem::path& dir,
                                                     int64_t offset,
                                                     const ProducerState::Entries& entries);
Expected<ProducerState::Entries, StorageError> read_producer_snapshot(
    const std::filesystem::path& file);
// Offsets of the snapshot files in `dir`, ascending.
std::vector<int64_t> list_producer_snapshots(const std::filesystem::path& dir);
// Deletes snapshots above `max_offset` (stale after a truncated tail) and all but the newest
// `keep` of the others.
void prune_producer_snapshots(const std::filesystem::path& dir, int64_t max_offset, size_t keep);

}  // namespace skiff::storage
