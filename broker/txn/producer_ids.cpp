#include "broker/txn/producer_ids.h"

#include <charconv>
#include <fstream>
#include <sstream>
#include <string>

#include "storage/durable_file.h"

namespace skiff::broker {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kKey = "next.block.start=";

int64_t read_block_start(const fs::path& file) {
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
        if (!line.starts_with(kKey))
            continue;
        int64_t v = 0;
        auto text = std::string_view(line).substr(kKey.size());
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec == std::errc() && v >= 0)
            return v;
    }
    return 0;
}

bool write_block_start(const fs::path& file, int64_t value) {
    // Durable before any id of the block is handed out: a block that came back older after a
    // power cut would issue the same producer ids twice.
    return storage::write_file_atomically(file, std::string(kKey) + std::to_string(value) + "\n")
        .has_value();
}

}  // namespace

ProducerIdAllocator::ProducerIdAllocator(const fs::path& log_dir)
    : file_(log_dir / "producer-id-block"), issued_end_(read_block_start(file_)) {}

int64_t ProducerIdAllocator::next() {
    std::lock_guard lock(mutex_);
    if (next_id_ == block_end_) {
        // Re-read on every block so the file, not memory, decides: ids stay unique even if the
        // first block of this process is being reserved right after a restart.
        const int64_t start = std::max(read_block_start(file_), block_end_);
        if (!write_block_start(file_, start + kBlockSize))
            return -1;
        next_id_ = start;
        block_end_ = start + kBlockSize;
    }
    const int64_t id = next_id_++;
    if (issued_end_.load() < next_id_)
        issued_end_.store(next_id_);
    return id;
}

}  // namespace skiff::broker
