// The cleaner's work on one record batch's bytes (log_cleaner.h, step 3): reading its records
// with their key hashes, and writing the batch again with only some of them, or none.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "protocol/expected.h"
#include "protocol/record_batch.h"
#include "storage/cleaner/offset_map.h"
#include "storage/storage_error.h"

namespace skiff::storage::cleaner {

// One record of a batch's (decompressed) records, with its raw bytes.
struct RawRecord {
    size_t begin = 0, end = 0;
    int32_t offset_delta = 0;
    bool has_key = false;
    KeyHash key;
    bool null_value = false;
};

// Splits `records` into `count` records; false if they do not parse.
bool split_records(std::span<const std::byte> records, int32_t count, std::vector<RawRecord>& out);

// The records of a whole batch, decompressed into `plain` if needed.
Expected<std::span<const std::byte>, StorageError> batch_records(std::span<const std::byte> batch,
                                                                 const protocol::BatchHeader& h,
                                                                 std::vector<std::byte>& plain);

// Rebuilds `batch` keeping only `kept` of its records (raw bytes in `records`), same codec and
// header fields; appended to `out`.
Expected<void, StorageError> rebuild_batch(std::span<const std::byte> batch,
                                           const protocol::BatchHeader& h,
                                           std::span<const std::byte> records,
                                           const std::vector<const RawRecord*>& kept,
                                           std::vector<std::byte>& scratch,
                                           std::vector<std::byte>& out);

// The header of `batch` alone as an empty batch (Kafka's writeEmptyHeader): the same base
// offset, last offset delta, producer id, epoch, base sequence and attributes, no records, both
// timestamps the batch's max timestamp. What the cleaner leaves of an idempotent producer's last
// batch when all its records go, so that its sequence and epoch survive a rebuild of the producer
// state from the log.
void empty_batch(std::span<const std::byte> batch, const protocol::BatchHeader& h,
                 std::vector<std::byte>& out);

}  // namespace skiff::storage::cleaner
