#include "storage/durable_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace skiff::storage {

namespace fs = std::filesystem;

namespace {

fs::path directory_of(const fs::path& file) {
    return file.parent_path().empty() ? fs::path(".") : file.parent_path();
}

}  // namespace

Expected<void, StorageError> fsync_directory(const fs::path& dir) {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return unexpected(errno_error(errno, "open " + dir.string()));
    const int rc = ::fsync(fd);
    const int err = errno;
    ::close(fd);
    if (rc != 0)
        return unexpected(errno_error(err, "fsync " + dir.string()));
    return {};
}

Expected<void, StorageError> write_file_atomically(const fs::path& file, std::string_view bytes,
                                                   mode_t mode) {
    fs::path tmp = file;
    tmp += ".tmp";
    // O_EXCL on a fresh name: the mode applies (an existing file keeps its own), which matters
    // for the credential store's 0600.
    if (::unlink(tmp.c_str()) != 0 && errno != ENOENT)
        return unexpected(errno_error(errno, "remove " + tmp.string()));
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd < 0)
        return unexpected(errno_error(errno, "create " + tmp.string()));
    size_t written = 0;
    while (written < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            const int err = n < 0 ? errno : EIO;
            ::close(fd);
            return unexpected(errno_error(err, "write " + tmp.string()));
        }
        written += static_cast<size_t>(n);
    }
    if (::fsync(fd) != 0) {
        const int err = errno;
        ::close(fd);
        return unexpected(errno_error(err, "fsync " + tmp.string()));
    }
    if (::close(fd) != 0)
        return unexpected(errno_error(errno, "close " + tmp.string()));
    if (::rename(tmp.c_str(), file.c_str()) != 0)
        return unexpected(errno_error(errno, "rename " + tmp.string() + " to " + file.string()));
    return fsync_directory(directory_of(file));
}

Expected<void, StorageError> remove_file_durably(const fs::path& file) {
    if (::unlink(file.c_str()) != 0) {
        if (errno == ENOENT)
            return {};
        return unexpected(errno_error(errno, "remove " + file.string()));
    }
    return fsync_directory(directory_of(file));
}

}  // namespace skiff::storage
