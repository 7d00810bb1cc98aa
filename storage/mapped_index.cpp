#include "storage/mapped_index.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "storage/sync_failure.h"
#include "storage/sync_timing.h"

namespace skiff::storage {

namespace fs = std::filesystem;

namespace {

// A descriptor closed when it goes out of scope: the index opens its file only for the call that
// needs it.
class ScopedFd {
  public:
    explicit ScopedFd(int fd) : fd_(fd) {}
    ~ScopedFd() {
        if (fd_ >= 0)
            ::close(fd_);
    }
    ScopedFd(const ScopedFd&) = delete;
    ScopedFd& operator=(const ScopedFd&) = delete;
    int get() const { return fd_; }
    bool ok() const { return fd_ >= 0; }

  private:
    int fd_;
};

}  // namespace

MappedIndex::MappedIndex(fs::path path, size_t entry_size)
    : path_(std::move(path)), entry_size_(entry_size) {}

MappedIndex::~MappedIndex() {
    if (base_)
        ::munmap(base_, mapped_bytes_);
}

Expected<void, StorageError> MappedIndex::map(int fd, size_t file_bytes, bool writable) {
    writable_ = writable;
    capacity_ = writable ? file_bytes / entry_size_ : 0;
    if (file_bytes == 0)
        return {};
    int prot = PROT_READ | (writable ? PROT_WRITE : 0);
    void* p = ::mmap(nullptr, file_bytes, prot, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        return unexpected(errno_error(errno, "mmap " + path_.string()));
    // No read-ahead on faults. An entry stored into a page of the preallocated (sparse) file
    // that is not yet cached faults, and the kernel's mmap read-around then fills a large
    // window of the file with zeros (ext4 with large folios: page_cache_ra_order ->
    // ext4_mpage_readpages -> zero_user_segments). With 1,000 partitions, that zeroing was 84 %
    // of the broker's CPU on a fresh topic (perf record -g; 100,000 messages of 100 bytes took
    // 17 s). Lookups are binary searches that touch a few pages anyway.
    (void)::madvise(p, file_bytes, MADV_RANDOM);
    base_ = static_cast<std::byte*>(p);
    mapped_bytes_ = file_bytes;
    return {};
}

static size_t preallocated_bytes(uint32_t max_bytes, size_t entry_size) {
    size_t whole = max_bytes / entry_size * entry_size;
    return std::max(whole, entry_size);  // room for at least one entry
}

Expected<std::unique_ptr<MappedIndex>, StorageError> MappedIndex::create(const fs::path& path,
                                                                         size_t entry_size,
                                                                         uint32_t max_bytes) {
    ScopedFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (!fd.ok())
        return unexpected(errno_error(errno, "create " + path.string()));
    std::unique_ptr<MappedIndex> index(new MappedIndex(path, entry_size));
    size_t bytes = preallocated_bytes(max_bytes, entry_size);
    if (::ftruncate(fd.get(), static_cast<off_t>(bytes)) != 0)
        return unexpected(errno_error(errno, "preallocate " + path.string()));
    auto m = index->map(fd.get(), bytes, true);
    if (!m)
        return unexpected(m.error());
    return index;
}

Expected<std::unique_ptr<MappedIndex>, StorageError> MappedIndex::open(const fs::path& path,
                                                                       size_t entry_size,
                                                                       uint32_t max_bytes,
                                                                       bool writable) {
    ScopedFd fd(::open(path.c_str(), (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC));
    if (!fd.ok()) {
        if (errno == ENOENT)
            return unexpected(StorageError{StorageErrc::not_found, path.string()});
        return unexpected(errno_error(errno, "open " + path.string()));
    }
    std::unique_ptr<MappedIndex> index(new MappedIndex(path, entry_size));
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0)
        return unexpected(errno_error(errno, "stat " + path.string()));
    auto existing = static_cast<size_t>(st.st_size);
    if (existing % entry_size != 0)
        return unexpected(StorageError{StorageErrc::corrupt,
                                       path.string() + ": size " + std::to_string(existing) +
                                           " is not a multiple of " + std::to_string(entry_size)});
    size_t bytes = existing;
    if (writable) {
        bytes = std::max(existing, preallocated_bytes(max_bytes, entry_size));
        if (bytes != existing && ::ftruncate(fd.get(), static_cast<off_t>(bytes)) != 0)
            return unexpected(errno_error(errno, "preallocate " + path.string()));
    }
    auto m = index->map(fd.get(), bytes, writable);
    if (!m)
        return unexpected(m.error());
    // An all-zero entry after entry 0 can only be the preallocated hole: offsets and timestamps
    // strictly grow, so a real entry after the first is never all zero, and the hole runs to
    // the end of the file. A binary search finds where it starts; a trimmed (sealed) index
    // costs one look at its last entry instead of a read of the whole file at start-up.
    auto is_zero = [&](size_t i) {
        const std::byte* e = index->entry(i);
        return std::all_of(e, e + entry_size, [](std::byte b) { return b == std::byte{0}; });
    };
    size_t count = existing / entry_size;
    if (count > 1 && is_zero(count - 1)) {
        size_t lo = 1, hi = count - 1;  // the first zero entry is in [lo, hi]
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (is_zero(mid))
                hi = mid;
            else
                lo = mid + 1;
        }
        count = lo;
    }
    index->entries_.store(count, std::memory_order_release);
    index->backed_bytes_ = count * entry_size / 4096 * 4096;  // whole pages holding entries
    return index;
}

bool MappedIndex::entry_is_zero(size_t i) const {
    const std::byte* e = entry(i);
    return std::all_of(e, e + entry_size_, [](std::byte b) { return b == std::byte{0}; });
}

bool MappedIndex::back_up_to(size_t end) {
    // The preallocated file is sparse. A store into a hole of a full file system raises SIGBUS
    // (the kernel cannot allocate the page on fault), which would kill the broker on the first
    // index entry after the disk fills. Allocating the blocks with fallocate(2) first turns that
    // into an error: the entry is skipped, which only costs lookup speed, as a full index does.
    constexpr size_t kStep = size_t{64} * 1024;
    if (end <= backed_bytes_)
        return true;
    const size_t to = std::min(mapped_bytes_, (end + kStep - 1) / kStep * kStep);
    if (allocate_blocks_) {
        ScopedFd fd(::open(path_.c_str(), O_RDWR | O_CLOEXEC));
        if (!fd.ok())
            return false;  // out of descriptors, say: the entry is skipped like a full index's
        if (::fallocate(fd.get(), 0, static_cast<off_t>(backed_bytes_),
                        static_cast<off_t>(to - backed_bytes_)) != 0) {
            if (errno != EOPNOTSUPP)
                return false;
            allocate_blocks_ = false;  // a file system without fallocate: store as before
        }
    }
    backed_bytes_ = to;
    return true;
}

bool MappedIndex::append(const std::byte* entry) {
    size_t n = entries_.load(std::memory_order_relaxed);
    if (!writable_ || n >= capacity_ || !back_up_to((n + 1) * entry_size_))
        return false;
    std::memcpy(base_ + n * entry_size_, entry, entry_size_);
    entries_.store(n + 1, std::memory_order_release);
    return true;
}

void MappedIndex::truncate_entries(size_t count) {
    size_t n = entries_.load(std::memory_order_relaxed);
    if (count >= n)
        return;
    entries_.store(count, std::memory_order_release);
    if (writable_)
        std::memset(base_ + count * entry_size_, 0, (n - count) * entry_size_);
}

Expected<void, StorageError> MappedIndex::trim() {
    if (!writable_)
        return {};  // opened sealed: already trimmed
    // No msync here: trim runs on the append path when a segment rolls, and the entries reach
    // the disk with the background flush of the sealed segment (flush() below, an fdatasync
    // that also writes the dirty pages of the mapping and the new size).
    size_t bytes = entries() * entry_size_;
    ScopedFd fd(::open(path_.c_str(), O_RDWR | O_CLOEXEC));
    if (!fd.ok() || ::ftruncate(fd.get(), static_cast<off_t>(bytes)) != 0)
        return unexpected(errno_error(errno, "trim " + path_.string()));
    writable_ = false;
    capacity_ = entries();
    return {};
}

Expected<void, StorageError> MappedIndex::flush() {
    if (writable_) {
        if (base_ && ::msync(base_, mapped_bytes_, MS_SYNC) != 0)
            return sync_failed(errno, "msync " + path_.string());
        return {};
    }
    // Trimmed or opened read-only: the file as it is, with dirty pages of a former writable
    // mapping and its trimmed size (dirty pages belong to the file, not to a descriptor, so a
    // new one syncs them). Once synced it never changes again.
    if (synced_.load(std::memory_order_acquire))
        return {};
    ScopedFd fd(::open(path_.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.ok()) {
        if (errno == ENOENT)
            return {};  // deleted by retention meanwhile: nothing to make durable
        return unexpected(errno_error(errno, "open " + path_.string()));
    }
    {
        SyncTimer timer(SyncKind::fsync);
        if (::fdatasync(fd.get()) != 0)
            return sync_failed(errno, "fsync " + path_.string());
    }
    synced_.store(true, std::memory_order_release);
    return {};
}

}  // namespace skiff::storage
