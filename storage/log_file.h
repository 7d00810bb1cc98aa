// One open .log file: positional writes (pwritev), reads (pread), truncation and fsync. Shared
// through std::shared_ptr so a FileSlice can keep the descriptor open after the segment is
// deleted. Also BatchScanner, which walks the record batches stored in a .log file.
//
// Thread-safety: all methods are safe to call concurrently (positional I/O only, no file
// cursor). Callers make sure writes and truncations never overlap ranges that readers use.
#pragma once

#include <sys/uio.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "protocol/expected.h"
#include "protocol/record_batch.h"
#include "storage/log_config.h"
#include "storage/storage_error.h"

namespace skiff::storage {

class LogFile {
  public:
    // Opens `path` read-write, creating it when `create` is set.
    static Expected<std::shared_ptr<LogFile>, StorageError> open(std::filesystem::path path,
                                                                 bool create);
    // Opens `path` read-only (dump-log on files it must not change).
    static Expected<std::shared_ptr<LogFile>, StorageError> open_read_only(
        std::filesystem::path path);
    ~LogFile();
    LogFile(const LogFile&) = delete;
    LogFile& operator=(const LogFile&) = delete;

    int fd() const { return fd_; }
    const std::filesystem::path& path() const { return path_; }

    // Writes every byte of `iov` at `position`, retrying short writes. `iov` is scratch: short
    // writes advance its entries in place. On failure the file may hold part of the data; the
    // caller truncates it back.
    Expected<void, StorageError> write_at(int64_t position, std::span<iovec> iov,
                                          const FaultInjector* faults);
    // Reads exactly out.size() bytes at `position`; a short file is a `corrupt` error.
    Expected<void, StorageError> read_at(int64_t position, std::span<std::byte> out) const;
    Expected<int64_t, StorageError> size() const;
    Expected<void, StorageError> truncate(int64_t size);
    // Allocates disk blocks for [position, position + length). Writes into reserved blocks skip
    // the file system's delayed allocation; on ext4 that was a third of the CPU cost of a
    // buffered write (tests/bench/RESULTS.md). With `grow` the file size grows to cover them
    // (fallocate mode 0: the new bytes read as zeros), otherwise it stays (FALLOC_FL_KEEP_SIZE).
    // Best effort: false only when the file system cannot reserve at all, so the caller stops
    // trying. truncate() to the data's end releases what is unused.
    bool reserve(int64_t position, int64_t length, bool grow = false);
    Expected<void, StorageError> sync();

  private:
    LogFile(int fd, std::filesystem::path path) : fd_(fd), path_(std::move(path)) {}
    int fd_;
    std::filesystem::path path_;
};

// Whether [from, to) of `file` holds zero bytes only: in a .log, the space durable mode grew the
// file by ahead of its data (LogSegment::append) rather than a torn or corrupt write.
Expected<bool, StorageError> only_zeros(const LogFile& file, int64_t from, int64_t to);

// Walks the batches of a .log file in [position, end). Reads the first header alone, then 64 KiB
// chunks while batches are small, so scanning many small batches costs few system calls; after
// a large batch, reads only the header of the next one, since a chunk would be mostly body
// bytes that a header-only scan skips (a fetch locating its start in 1 MiB batches read 64 KiB per
// batch: 7-9 % of the broker's CPU while consuming).
class BatchScanner {
  public:
    BatchScanner(const LogFile& file, int64_t position, int64_t end);

    struct Batch {
        protocol::BatchHeader header;
        int64_t position = 0;
        std::span<const std::byte> bytes;  // the whole batch, only when read with_body
    };
    // What the next position holds: a batch, the end of the range, or bytes that are not a
    // sound batch (torn write, garbage, CRC mismatch) described by `problem`.
    struct Step {
        std::optional<Batch> batch;
        std::string problem;  // empty with no batch: clean end of range
    };
    // with_body reads and CRC-checks the whole batch; otherwise only the header is read and the
    // framing (length, magic, fits in range) checked.
    Expected<Step, StorageError> next(bool with_body);
    int64_t position() const { return position_; }

  private:
    Expected<std::span<const std::byte>, StorageError> fill(int64_t length);

    const LogFile& file_;
    int64_t position_;
    int64_t end_;
    std::vector<std::byte> buffer_;
    int64_t buffer_position_ = 0;  // file position of buffer_[0]
    bool read_ahead_ = false;      // read whole chunks: the last batch seen was small
};

}  // namespace skiff::storage
