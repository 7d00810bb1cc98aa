#include "storage/partition_metadata.h"

#include <fstream>
#include <random>
#include <sstream>

#include "storage/checkpoint_file.h"

namespace skiff::storage {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int decode_char(char c) {
    auto at = kAlphabet.find(c);
    return at == std::string_view::npos ? -1 : static_cast<int>(at);
}

bool reserved(const TopicId& id) {
    TopicId one;
    one.bytes[15] = 1;  // Kafka's ONE_UUID: the metadata topic
    return id.is_zero() || id == one;
}

}  // namespace

TopicId random_topic_id() {
    thread_local std::random_device device;  // getrandom(2)
    TopicId id;
    do {
        for (size_t i = 0; i < id.bytes.size(); i += 4) {
            uint32_t r = device();
            for (size_t j = 0; j < 4; ++j)
                id.bytes[i + j] = static_cast<uint8_t>(r >> (8 * j));
        }
        id.bytes[6] = static_cast<uint8_t>((id.bytes[6] & 0x0f) | 0x40);  // version 4
        id.bytes[8] = static_cast<uint8_t>((id.bytes[8] & 0x3f) | 0x80);  // IETF variant
    } while (reserved(id) || to_string(id).front() == '-');
    return id;
}

std::string to_string(const TopicId& id) {
    std::string out;
    out.reserve(22);
    uint32_t acc = 0;
    int bits = 0;
    for (uint8_t b : id.bytes) {
        acc = (acc << 8) | b;
        bits += 8;
        while (bits >= 6) {
            bits -= 6;
            out.push_back(kAlphabet[(acc >> bits) & 0x3f]);
        }
    }
    if (bits > 0)  // 128 bits = 21 characters and 2 bits left over
        out.push_back(kAlphabet[(acc << (6 - bits)) & 0x3f]);
    return out;
}

std::optional<TopicId> parse_topic_id(std::string_view text) {
    if (text.size() != 22)
        return std::nullopt;
    TopicId id;
    uint32_t acc = 0;
    int bits = 0;
    size_t n = 0;
    for (char c : text) {
        int v = decode_char(c);
        if (v < 0)
            return std::nullopt;
        acc = (acc << 6) | static_cast<uint32_t>(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            id.bytes[n++] = static_cast<uint8_t>(acc >> bits);
        }
    }
    if ((acc & ((1u << bits) - 1)) != 0)  // the 4 padding bits of the last character must be 0
        return std::nullopt;
    return id;
}

Expected<void, StorageError> write_partition_metadata(const fs::path& partition_dir,
                                                      const TopicId& id) {
    return write_file_atomically(partition_dir / kPartitionMetadataFile,
                                 "version: 0\ntopic_id: " + to_string(id) + "\n");
}

Expected<std::optional<TopicId>, StorageError> read_partition_metadata(
    const fs::path& partition_dir) {
    const fs::path file = partition_dir / kPartitionMetadataFile;
    std::ifstream in(file);
    if (!in) {
        std::error_code ec;
        if (!fs::exists(file, ec) && !ec)
            return std::optional<TopicId>{};
        return unexpected(errno_error(errno, "open " + file.string()));
    }
    auto corrupt = [&](const std::string& why) {
        return unexpected(StorageError{StorageErrc::corrupt, file.string() + ": " + why});
    };
    // Kafka's reader: "version: <n>" then "topic_id: <id>", each split at ": ".
    std::string line;
    if (!std::getline(in, line) || !line.starts_with("version: "))
        return corrupt("expected 'version: 0' on the first line");
    if (line != "version: 0")
        return corrupt("unsupported version '" + line.substr(9) + "'");
    if (!std::getline(in, line) || !line.starts_with("topic_id: "))
        return corrupt("expected 'topic_id: <id>' on the second line");
    auto id = parse_topic_id(std::string_view(line).substr(10));
    if (!id)
        return corrupt("malformed topic id '" + line.substr(10) + "'");
    if (id->is_zero())
        return corrupt("the topic id is the zero UUID");
    return std::optional<TopicId>{*id};
}

}  // namespace skiff::storage
