// Topic ids and the partition.metadata file that records a partition's topic id, as Kafka keeps
// it in every partition directory (its PartitionMetadataFile):
//     version: 0
//     topic_id: 5JTQlZPURLuG0NXM3C2S7w
// The id is 16 bytes written as Kafka's Uuid.toString does: base64url without padding, 22
// characters. Written atomically (write_file_atomically in checkpoint_file.h).
//
// A topic's id is a random version-4 UUID drawn at creation; every partition of the topic holds
// the same one. It is never the zero UUID (Kafka's "no id") or Kafka's reserved ONE_UUID (the
// metadata topic's id), and like Kafka's Uuid.randomUuid never one whose text starts with '-'
// (it would read as a command-line option).
//
// Stateless functions; safe from any thread for different directories.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/expected.h"
#include "storage/storage_error.h"

namespace skiff::storage {

inline constexpr const char* kPartitionMetadataFile = "partition.metadata";

struct TopicId {
    std::array<uint8_t, 16> bytes{};
    bool is_zero() const { return bytes == std::array<uint8_t, 16>{}; }
    friend bool operator==(const TopicId&, const TopicId&) = default;
    // clang-tidy 14 takes the `<=> 0` a defaulted operator<=> is rewritten to for a null pointer
    // constant (a false positive, as in topic_partition.h).
    // NOLINTNEXTLINE(modernize-use-nullptr)
    friend auto operator<=>(const TopicId&, const TopicId&) = default;
};

// A fresh random id (see above for the ids it never returns).
TopicId random_topic_id();
// Kafka's text form: base64url, no padding.
std::string to_string(const TopicId& id);
// The reverse; nullopt unless `text` is exactly 22 base64url characters decoding to 16 bytes.
std::optional<TopicId> parse_topic_id(std::string_view text);

// Writes <partition_dir>/partition.metadata.
Expected<void, StorageError> write_partition_metadata(const std::filesystem::path& partition_dir,
                                                      const TopicId& id);
// Reads it back: nullopt when the file does not exist; `corrupt` (naming the file) when it
// cannot be parsed, has another version than 0 or holds the zero id.
Expected<std::optional<TopicId>, StorageError> read_partition_metadata(
    const std::filesystem::path& partition_dir);

}  // namespace skiff::storage
