#include "storage/checkpoint_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>

namespace skiff::storage {

namespace fs = std::filesystem;

namespace {

Expected<void, StorageError> fsync_path(const fs::path& path, int flags) {
    int fd = ::open(path.c_str(), flags | O_CLOEXEC);
    if (fd < 0)
        return unexpected(errno_error(errno, "open " + path.string()));
    int rc = ::fsync(fd);
    int err = errno;
    ::close(fd);
    if (rc != 0)
        return unexpected(errno_error(err, "fsync " + path.string()));
    return {};
}

}  // namespace

Expected<void, StorageError> write_file_atomically(const fs::path& file, const std::string& text) {
    fs::path tmp = file;
    tmp += ".tmp";
    {
        std::ofstream out(tmp, std::ios::trunc);
        out << text;
        out.flush();
        if (!out)
            return unexpected(StorageError{StorageErrc::io_error, "write " + tmp.string()});
    }
    auto synced = fsync_path(tmp, O_RDONLY);
    if (!synced)
        return synced;
    std::error_code ec;
    fs::rename(tmp, file, ec);
    if (ec)
        return unexpected(
            StorageError{StorageErrc::io_error, "rename " + tmp.string() + ": " + ec.message()});
    return fsync_path(file.parent_path(), O_RDONLY | O_DIRECTORY);
}

Expected<void, StorageError> write_checkpoint(const fs::path& file,
                                              const OffsetCheckpoint& offsets) {
    std::ostringstream text;
    text << "0\n" << offsets.size() << "\n";
    for (const auto& [tp, offset] : offsets)
        text << tp.topic << ' ' << tp.partition << ' ' << offset << '\n';
    return write_file_atomically(file, text.str());
}

Expected<OffsetCheckpoint, StorageError> read_checkpoint(const fs::path& file) {
    OffsetCheckpoint offsets;
    std::ifstream in(file);
    if (!in)
        return offsets;
    auto corrupt = [&](const std::string& why) {
        return unexpected(StorageError{StorageErrc::corrupt, file.string() + ": " + why});
    };
    int version = -1;
    size_t count = 0;
    if (!(in >> version) || version != 0)
        return corrupt("unsupported version");
    if (!(in >> count))
        return corrupt("missing entry count");
    for (size_t i = 0; i < count; ++i) {
        TopicPartition tp;
        int64_t offset = 0;
        if (!(in >> tp.topic >> tp.partition >> offset))
            return corrupt("truncated entries");
        offsets[tp] = offset;
    }
    return offsets;
}

}  // namespace skiff::storage
