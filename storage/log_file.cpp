#include "storage/log_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "storage/disk_delay.h"
#include "storage/sync_failure.h"
#include "storage/sync_timing.h"

namespace skiff::storage {

namespace fs = std::filesystem;

Expected<std::shared_ptr<LogFile>, StorageError> LogFile::open(fs::path path, bool create) {
    int flags = O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0);
    int fd = ::open(path.c_str(), flags, 0644);
    if (fd < 0) {
        int err = errno;
        if (err == ENOENT)
            return unexpected(StorageError{StorageErrc::not_found, path.string()});
        return unexpected(errno_error(err, "open " + path.string()));
    }
    return std::shared_ptr<LogFile>(new LogFile(fd, std::move(path)));
}

Expected<std::shared_ptr<LogFile>, StorageError> LogFile::open_read_only(fs::path path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return unexpected(errno_error(errno, "open " + path.string()));
    return std::shared_ptr<LogFile>(new LogFile(fd, std::move(path)));
}

LogFile::~LogFile() {
    ::close(fd_);
}

Expected<void, StorageError> LogFile::write_at(int64_t position, std::span<iovec> iov,
                                               const FaultInjector* faults) {
    size_t first = 0;
    int64_t total = 0;
    for (const iovec& v : iov)
        total += static_cast<int64_t>(v.iov_len);

    delay_write();
    int64_t fail_after = -1;
    int fail_errno = 0;
    if (faults && faults->before_log_write) {
        WriteFault f = faults->before_log_write(path_, position, total);
        if (f.error != 0) {
            fail_errno = f.error;
            fail_after = std::clamp<int64_t>(f.bytes_written_first, 0, total);
        }
    }
    int64_t written = 0;
    while (first < iov.size()) {
        if (fail_after >= 0 && written >= fail_after)
            return unexpected(errno_error(fail_errno, "write " + path_.string()));
        size_t count = std::min<size_t>(iov.size() - first, IOV_MAX);
        // Only for the injected partial write: cut the vector so exactly fail_after bytes land.
        std::vector<iovec> limited;
        const iovec* vec = iov.data() + first;
        if (fail_after >= 0) {
            int64_t budget = fail_after - written;
            for (size_t i = 0; i < count && budget > 0; ++i) {
                iovec v = iov[first + i];
                v.iov_len = std::min<size_t>(v.iov_len, static_cast<size_t>(budget));
                budget -= static_cast<int64_t>(v.iov_len);
                limited.push_back(v);
            }
            vec = limited.data();
            count = limited.size();
        }
        ssize_t n = ::pwritev(fd_, vec, static_cast<int>(count), position + written);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return unexpected(errno_error(errno, "write " + path_.string()));
        }
        written += n;
        auto left = static_cast<size_t>(n);
        while (first < iov.size() && left >= iov[first].iov_len) {
            left -= iov[first].iov_len;
            ++first;
        }
        if (left > 0) {
            iov[first].iov_base = static_cast<char*>(iov[first].iov_base) + left;
            iov[first].iov_len -= left;
        }
    }
    return {};
}

Expected<void, StorageError> LogFile::read_at(int64_t position, std::span<std::byte> out) const {
    size_t done = 0;
    while (done < out.size()) {
        ssize_t n = ::pread(fd_, out.data() + done, out.size() - done,
                            position + static_cast<int64_t>(done));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return unexpected(errno_error(errno, "read " + path_.string()));
        }
        if (n == 0)
            return unexpected(StorageError{
                StorageErrc::corrupt,
                "unexpected end of " + path_.string() + " at " + std::to_string(position + done)});
        done += static_cast<size_t>(n);
    }
    return {};
}

Expected<int64_t, StorageError> LogFile::size() const {
    struct stat st {};
    if (::fstat(fd_, &st) != 0)
        return unexpected(errno_error(errno, "stat " + path_.string()));
    return static_cast<int64_t>(st.st_size);
}

Expected<void, StorageError> LogFile::truncate(int64_t size) {
    if (::ftruncate(fd_, size) != 0)
        return unexpected(errno_error(errno, "truncate " + path_.string()));
    return {};
}

bool LogFile::reserve(int64_t position, int64_t length, bool grow) {
    if (::fallocate(fd_, grow ? 0 : FALLOC_FL_KEEP_SIZE, position, length) == 0)
        return true;
    // ENOSPC and the like are left to the write itself, which reports them properly.
    return errno != EOPNOTSUPP && errno != ENOSYS && errno != EINVAL;
}

Expected<void, StorageError> LogFile::sync() {
    SyncTimer timer(SyncKind::fsync);
    delay_sync();
    if (::fdatasync(fd_) != 0)
        return sync_failed(errno, "fsync " + path_.string());
    return {};
}

Expected<bool, StorageError> only_zeros(const LogFile& file, int64_t from, int64_t to) {
    std::vector<std::byte> chunk(
        std::min<int64_t>(std::max<int64_t>(to - from, 0), int64_t{64} * 1024));
    for (int64_t at = from; at < to;) {
        const auto n = static_cast<size_t>(std::min<int64_t>(to - at, std::ssize(chunk)));
        if (auto read = file.read_at(at, {chunk.data(), n}); !read)
            return unexpected(read.error());
        if (std::any_of(chunk.begin(), chunk.begin() + static_cast<ptrdiff_t>(n),
                        [](std::byte b) { return b != std::byte{0}; }))
            return false;
        at += static_cast<int64_t>(n);
    }
    return true;
}

BatchScanner::BatchScanner(const LogFile& file, int64_t position, int64_t end)
    : file_(file), position_(position), end_(end), buffer_position_(position) {}

Expected<std::span<const std::byte>, StorageError> BatchScanner::fill(int64_t length) {
    constexpr int64_t kChunk = int64_t{64} * 1024;
    int64_t have_from = position_ - buffer_position_;
    if (have_from >= 0 && have_from + length <= static_cast<int64_t>(buffer_.size()))
        return std::span<const std::byte>(buffer_.data() + have_from, static_cast<size_t>(length));
    int64_t want = std::min(read_ahead_ ? std::max(length, kChunk) : length, end_ - position_);
    buffer_.resize(static_cast<size_t>(want));
    buffer_position_ = position_;
    auto r = file_.read_at(position_, buffer_);
    if (!r)
        return unexpected(r.error());
    return std::span<const std::byte>(buffer_.data(), static_cast<size_t>(length));
}

Expected<BatchScanner::Step, StorageError> BatchScanner::next(bool with_body) {
    Step step;
    int64_t left = end_ - position_;
    if (left <= 0)
        return step;
    if (left < static_cast<int64_t>(protocol::kBatchHeaderSize)) {
        step.problem = "only " + std::to_string(left) + " bytes left, less than a batch header";
        return step;
    }
    auto head = fill(protocol::kBatchHeaderSize);
    if (!head)
        return unexpected(head.error());
    protocol::BatchHeader h = protocol::read_batch_header(*head);
    if (h.magic != protocol::kCurrentMagic) {
        step.problem = "magic " + std::to_string(h.magic) + " is not 2";
        return step;
    }
    if (h.length < static_cast<int32_t>(protocol::kBatchHeaderSize - protocol::kBatchLogOverhead) ||
        static_cast<int64_t>(h.size_bytes()) > left) {
        step.problem = "batch length " + std::to_string(h.length) + " does not fit the " +
                       std::to_string(left) + " bytes left";
        return step;
    }
    Batch b;
    b.position = position_;
    b.header = h;
    // A batch of a quarter chunk or more: the next header is unlikely to be in the next chunk.
    constexpr int64_t kLargeBatch = int64_t{16} * 1024;
    read_ahead_ = static_cast<int64_t>(h.size_bytes()) < kLargeBatch;
    if (with_body) {
        auto body = fill(static_cast<int64_t>(h.size_bytes()));
        if (!body)
            return unexpected(body.error());
        auto checked = protocol::check_batch(*body);
        if (!checked) {
            step.problem = checked.error().message;
            return step;
        }
        b.bytes = *body;
    }
    position_ += static_cast<int64_t>(h.size_bytes());
    step.batch = b;
    return step;
}

}  // namespace skiff::storage
