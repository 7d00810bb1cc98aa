// <20-digit base offset>.txnindex: the aborted transactions whose ABORT marker is in the
// segment, in Kafka's format (AbortedTxn / TransactionIndex): no header, 34-byte big-endian
// entries appended in marker order:
//   int16 version = 0 | int64 producer_id | int64 first_offset | int64 last_offset (the ABORT
//   marker) | int64 last_stable_offset (the LSO when the abort was written)
// last_offset strictly increases within a file. The file exists only once an entry was written.
//
// Read committed fetches collect the entries overlapping what they return (Kafka's rule in
// PartitionLog::read); the entries are cached in memory after the first read, so a fetch costs
// no I/O. Written only by the partition's appender; readers may run on any thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "protocol/expected.h"
#include "storage/storage_error.h"

namespace skiff::storage {

inline constexpr std::string_view kTxnIndexSuffix = ".txnindex";
inline constexpr size_t kTxnIndexEntrySize = 34;

struct TxnIndexEntry {
    int64_t producer_id = -1;
    int64_t first_offset = -1;
    int64_t last_offset = -1;
    int64_t last_stable_offset = -1;
    bool operator==(const TxnIndexEntry&) const = default;
};

// Parses a whole .txnindex file's bytes; `problem` says why it stopped early (torn entry,
// unknown version), empty if every byte was an entry.
std::vector<TxnIndexEntry> parse_txn_index(std::span<const std::byte> bytes, std::string* problem);

class TransactionIndex {
  public:
    explicit TransactionIndex(std::filesystem::path path) : path_(std::move(path)) {}

    const std::filesystem::path& path() const { return path_; }
    // Appends one entry (write(2), no fsync: flush() does that). last_offset must exceed the
    // previous entry's (invalid_argument otherwise).
    Expected<void, StorageError> append(const TxnIndexEntry& entry);
    // Every entry (loaded from the file on first use).
    std::vector<TxnIndexEntry> entries() const;
    // Drops entries with last_offset >= `offset` (rewrites the file).
    Expected<void, StorageError> truncate_to(int64_t offset);
    // Forgets every entry and removes the file (a segment being rebuilt).
    void reset();
    Expected<void, StorageError> flush();
    void delete_file();

  private:
    void load_locked() const;
    Expected<void, StorageError> rewrite_locked();

    const std::filesystem::path path_;
    mutable std::mutex mutex_;
    mutable bool loaded_ = false;
    mutable std::vector<TxnIndexEntry> entries_;
    bool dirty_ = false;  // written since the last flush
};

}  // namespace skiff::storage
