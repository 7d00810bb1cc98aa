#include "storage/checkpoint_file.h"

#include <fstream>
#include <sstream>

namespace skiff::storage {

namespace fs = std::filesystem;

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
