// Which topics exist and how many partitions each has. The partition directories in the log
// dir are the source of truth: at start-up the registry is rebuilt from them, and creating a
// topic creates its partition logs before the topic becomes visible.
//
// Thread-safe: handlers on every I/O thread consult it.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/error_code.h"
#include "storage/log_manager.h"

namespace skiff::broker {

struct TopicInfo {
    std::string name;
    int32_t partition_count = 0;
};

class TopicRegistry {
  public:
    explicit TopicRegistry(storage::LogManager& logs);

    std::optional<int32_t> partition_count(const std::string& topic) const;
    std::vector<TopicInfo> list() const;  // sorted by name

    // Creates the topic with `partitions` partitions, or returns the existing count when it is
    // already there. Errors: INVALID_TOPIC_EXCEPTION for a bad name, KAFKA_STORAGE_ERROR when a
    // partition directory cannot be created.
    struct CreateResult {
        protocol::ErrorCode error = protocol::ErrorCode::none;
        int32_t partition_count = 0;
        std::string message;
    };
    CreateResult get_or_create(const std::string& topic, int32_t partitions);

    // Kafka's rules: 1 to 249 characters of [a-zA-Z0-9._-], and not "." or "..". A name that
    // passes can never escape the log directory.
    static std::optional<std::string> invalid_topic_reason(std::string_view topic);

  private:
    storage::LogManager& logs_;
    mutable std::mutex mutex_;
    std::map<std::string, int32_t> topics_;
};

}  // namespace skiff::broker
