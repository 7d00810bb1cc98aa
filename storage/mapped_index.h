// A memory-mapped file of fixed-size entries, the common part of the offset index and the time
// index (Kafka's AbstractIndex). It knows nothing about what an entry means.
//
// Files of the active segment are preallocated to max_bytes (rounded down to whole entries) and
// mapped read-write, so appending an entry is a memcpy into the mapping; the zero-filled tail is
// not data. Sealing trims the file to the entries really written (as Kafka does: a 10 MiB
// active .index becomes, say, a 520-byte sealed one). A mapping is never moved or resized while the
// index is alive, so readers can use it without locks.
//
// No file descriptor is kept: a mapping does not need one (Kafka's AbstractIndex closes its
// RandomAccessFile after mapping too). The rare operations that do (reserving blocks every 64 KiB
// of entries, trimming at seal, the fdatasync after it) open the file by path for the call, so
// an idle partition costs one descriptor, its active .log, instead of three.
//
// Thread-safety: one writer (the partition's appender) calls append/trim; any number of readers
// call entries()/entry() concurrently. The entry count is an atomic published with release
// ordering after the entry bytes are written, so a reader never sees a half-written entry.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>

#include "protocol/expected.h"
#include "storage/storage_error.h"

namespace skiff::storage {

class MappedIndex {
  public:
    // Creates (or empties) `path`, preallocated and mapped for appending.
    static Expected<std::unique_ptr<MappedIndex>, StorageError> create(
        const std::filesystem::path& path, size_t entry_size, uint32_t max_bytes);
    // Opens an existing file. Writable: re-preallocated to max_bytes for appending (the active
    // segment after a restart). The entry count stops at the first all-zero entry after entry 0,
    // the preallocated hole of a file that was never trimmed.
    static Expected<std::unique_ptr<MappedIndex>, StorageError> open(
        const std::filesystem::path& path, size_t entry_size, uint32_t max_bytes, bool writable);
    ~MappedIndex();
    MappedIndex(const MappedIndex&) = delete;
    MappedIndex& operator=(const MappedIndex&) = delete;

    size_t entry_size() const { return entry_size_; }
    size_t entries() const { return entries_.load(std::memory_order_acquire); }
    size_t capacity() const { return capacity_; }
    bool is_full() const { return entries() >= capacity_; }
    const std::byte* entry(size_t i) const { return base_ + i * entry_size_; }
    const std::filesystem::path& path() const { return path_; }
    // Bytes mapped: the file's size at open (a sealed index) or the preallocated size.
    size_t mapped_bytes() const { return mapped_bytes_; }
    // Whether entry i is all zero bytes (what a preallocated hole, or a page a power cut lost,
    // reads as).
    bool entry_is_zero(size_t i) const;

    // Appends one entry of entry_size() bytes; false when full, not writable or the file system
    // has no room for the entry's page.
    bool append(const std::byte* entry);
    // Drops entries from `count` on (used when a failed append is undone or a log truncated).
    void truncate_entries(size_t count);
    // Shrinks the file to the entries written and stops further appends. The mapping stays, so
    // concurrent readers are unaffected (they never look past entries()). Does not flush.
    Expected<void, StorageError> trim();
    // Makes the entries durable: msync of a writable mapping, fdatasync of a trimmed or
    // read-only file. Safe to call concurrently with readers, and (once trimmed) from any thread.
    Expected<void, StorageError> flush();

    // Greatest i with key(entry(i)) <= target, by binary search over entries().
    template <class KeyFn>
    std::optional<size_t> last_at_most(int64_t target, KeyFn key) const {
        size_t n = entries();
        if (n == 0 || key(entry(0)) > target)
            return std::nullopt;
        size_t lo = 0, hi = n - 1;  // key(entry(lo)) <= target holds throughout
        while (lo < hi) {
            size_t mid = lo + (hi - lo + 1) / 2;
            if (key(entry(mid)) <= target)
                lo = mid;
            else
                hi = mid - 1;
        }
        return lo;
    }

  private:
    MappedIndex(std::filesystem::path path, size_t entry_size);
    Expected<void, StorageError> map(int fd, size_t file_bytes, bool writable);
    // Makes sure the file's blocks up to `end` are allocated before the mapping is stored to;
    // false when the file system has no room.
    bool back_up_to(size_t end);

    std::filesystem::path path_;
    size_t entry_size_;
    std::byte* base_ = nullptr;
    size_t mapped_bytes_ = 0;
    size_t capacity_ = 0;
    bool writable_ = false;
    size_t backed_bytes_ = 0;  // file blocks below this are allocated (appender only)
    bool allocate_blocks_ = true;
    std::atomic<bool> synced_{
        false};  // trimmed or read-only, and fdatasync'ed since: nothing left to flush
    std::atomic<size_t> entries_{0};
};

}  // namespace skiff::storage
