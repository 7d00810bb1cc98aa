#include "storage/transaction_index.h"

#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <iterator>

#include "storage/big_endian.h"
#include "storage/sync_failure.h"

namespace skiff::storage {

namespace fs = std::filesystem;

namespace {

void encode(const TxnIndexEntry& e, std::byte* p) {
    store_be<int16_t>(p, 0);
    store_be<int64_t>(p + 2, e.producer_id);
    store_be<int64_t>(p + 10, e.first_offset);
    store_be<int64_t>(p + 18, e.last_offset);
    store_be<int64_t>(p + 26, e.last_stable_offset);
}

Expected<void, StorageError> write_all(int fd, const std::byte* data, size_t size,
                                       const fs::path& path) {
    size_t done = 0;
    while (done < size) {
        ssize_t n = ::write(fd, data + done, size - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return unexpected(errno_error(errno, "write " + path.string()));
        }
        done += static_cast<size_t>(n);
    }
    return {};
}

}  // namespace

std::vector<TxnIndexEntry> parse_txn_index(std::span<const std::byte> bytes, std::string* problem) {
    std::vector<TxnIndexEntry> out;
    size_t at = 0;
    for (; at + kTxnIndexEntrySize <= bytes.size(); at += kTxnIndexEntrySize) {
        const std::byte* p = bytes.data() + at;
        if (int16_t version = load_be<int16_t>(p); version != 0) {
            if (problem)
                *problem = "entry " + std::to_string(out.size()) + " has version " +
                           std::to_string(version);
            return out;
        }
        out.push_back({load_be<int64_t>(p + 2), load_be<int64_t>(p + 10), load_be<int64_t>(p + 18),
                       load_be<int64_t>(p + 26)});
    }
    if (at != bytes.size() && problem)
        *problem = std::to_string(bytes.size() - at) + " bytes after the last whole entry";
    return out;
}

void TransactionIndex::load_locked() const {
    if (loaded_)
        return;
    loaded_ = true;
    std::ifstream in(path_, std::ios::binary);
    if (!in)
        return;
    std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    entries_ = parse_txn_index(
        std::span(reinterpret_cast<const std::byte*>(chars.data()), chars.size()), nullptr);
}

Expected<void, StorageError> TransactionIndex::append(const TxnIndexEntry& entry) {
    std::lock_guard lock(mutex_);
    load_locked();
    if (!entries_.empty() && entry.last_offset <= entries_.back().last_offset)
        return unexpected(StorageError{StorageErrc::invalid_argument,
                                       path_.string() + ": last offset " +
                                           std::to_string(entry.last_offset) + " is not above " +
                                           std::to_string(entries_.back().last_offset)});
    std::byte bytes[kTxnIndexEntrySize];
    encode(entry, bytes);
    int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return unexpected(errno_error(errno, "open " + path_.string()));
    auto written = write_all(fd, bytes, sizeof bytes, path_);
    ::close(fd);
    if (!written)
        return written;
    entries_.push_back(entry);
    dirty_ = true;
    return {};
}

std::vector<TxnIndexEntry> TransactionIndex::entries() const {
    std::lock_guard lock(mutex_);
    load_locked();
    return entries_;
}

Expected<void, StorageError> TransactionIndex::rewrite_locked() {
    if (entries_.empty()) {
        std::error_code ec;
        fs::remove(path_, ec);
        return {};
    }
    std::vector<std::byte> bytes(entries_.size() * kTxnIndexEntrySize);
    for (size_t i = 0; i < entries_.size(); ++i)
        encode(entries_[i], bytes.data() + i * kTxnIndexEntrySize);
    int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return unexpected(errno_error(errno, "open " + path_.string()));
    auto written = write_all(fd, bytes.data(), bytes.size(), path_);
    ::close(fd);
    dirty_ = true;
    return written;
}

Expected<void, StorageError> TransactionIndex::truncate_to(int64_t offset) {
    std::lock_guard lock(mutex_);
    load_locked();
    size_t keep = 0;
    while (keep < entries_.size() && entries_[keep].last_offset < offset)
        ++keep;
    if (keep == entries_.size())
        return {};
    entries_.resize(keep);
    return rewrite_locked();
}

void TransactionIndex::reset() {
    std::lock_guard lock(mutex_);
    loaded_ = true;
    entries_.clear();
    dirty_ = false;
    std::error_code ec;
    fs::remove(path_, ec);
}

Expected<void, StorageError> TransactionIndex::flush() {
    std::lock_guard lock(mutex_);
    if (!dirty_)
        return {};
    int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        dirty_ = false;  // removed: nothing to sync
        return {};
    }
    int rc = ::fdatasync(fd);
    int err = errno;
    ::close(fd);
    if (rc != 0)
        return sync_failed(err, "fdatasync " + path_.string());
    dirty_ = false;
    return {};
}

void TransactionIndex::delete_file() {
    std::lock_guard lock(mutex_);
    std::error_code ec;
    fs::remove(path_, ec);
}

}  // namespace skiff::storage
