// Which topics exist, how many partitions each has and which settings it overrides. The
// partition directories in the log dir are the source of truth for topics and partitions: at
// start-up the registry is rebuilt from them, and creating a topic creates its partition logs
// before the topic becomes visible. Overrides live in topic-configs/ (topic_config.h), written
// before the partitions are created and applied to the topic's logs through the LogManager.
//
// Creation is all or nothing (CreateTopics, Metadata auto-creation, CreatePartitions): when one
// partition cannot be created (too many open files, a full disk, ...), the partitions made for
// the request are closed and their directories removed, a topic's overrides file and config are
// dropped, and nothing of it shows in list()/partition_count(). The answer is
// KAFKA_STORAGE_ERROR: what Kafka's LogManager.getOrCreateLog throws (KafkaStorageException)
// when creating a log fails with an IOException, which is how the JVM reports EMFILE and
// ENOSPC there.
//
// Metadata auto-creation is retried by clients every few hundred ms for as long as they wait
// for the topic; auto_create() remembers a failed topic and does not try it again for a while
// (kAutoCreateBackoffMin doubling per consecutive failure up to kAutoCreateBackoffMax), so a
// topic that cannot be made costs one attempt per back-off, not thousands of partition
// creations per metadata request.
//
// Thread-safe: handlers on every I/O thread consult it.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/topics/topic_config.h"
#include "protocol/error_code.h"
#include "storage/log_manager.h"

namespace skiff::broker {

struct TopicInfo {
    std::string name;
    int32_t partition_count = 0;
    storage::TopicId id;  // from the partitions' partition.metadata (storage/log_manager.h)
};

class TopicRegistry {
  public:
    explicit TopicRegistry(storage::LogManager& logs);

    std::optional<int32_t> partition_count(const std::string& topic) const;
    std::vector<TopicInfo> list() const;  // sorted by name
    // Topic ids both ways: the id of a topic, and the topic holding an id (nullopt when none
    // does, e.g. an id of a topic deleted since).
    std::optional<storage::TopicId> topic_id(const std::string& topic) const;
    std::optional<TopicInfo> find_by_id(const storage::TopicId& id) const;

    // Creates the topic with `partitions` partitions, or returns the existing count when it is
    // already there. Errors: INVALID_TOPIC_EXCEPTION for a bad name, KAFKA_STORAGE_ERROR when a
    // partition directory cannot be created.
    struct CreateResult {
        protocol::ErrorCode error = protocol::ErrorCode::none;
        int32_t partition_count = 0;
        std::string message;
        // auto_create() only: the topic failed recently and was not tried again (error and
        // message are those of the failure).
        bool backing_off = false;
    };
    CreateResult get_or_create(const std::string& topic, int32_t partitions);

    // Metadata auto-creation: get_or_create, except that a topic whose creation failed is not
    // tried again until its back-off is over (answered with backing_off set meanwhile).
    using Clock = std::chrono::steady_clock;
    static constexpr std::chrono::seconds kAutoCreateBackoffMin{5};
    static constexpr std::chrono::seconds kAutoCreateBackoffMax{60};
    static constexpr size_t kMaxRememberedFailures = 1024;  // names come from clients
    CreateResult auto_create(const std::string& topic, int32_t partitions,
                             Clock::time_point now = Clock::now());

    // CreateTopics: TOPIC_ALREADY_EXISTS, INVALID_TOPIC_EXCEPTION, INVALID_PARTITIONS (< 1),
    // INVALID_CONFIG (naming the key), KAFKA_STORAGE_ERROR. validate_only checks and creates
    // nothing.
    CreateResult create(const std::string& topic, int32_t partitions,
                        const TopicOverrides& overrides, bool validate_only);
    // DeleteTopics: closes the logs and schedules their files for deletion.
    // UNKNOWN_TOPIC_OR_PARTITION for a missing topic.
    protocol::ErrorCode remove(const std::string& topic);
    // broker/control's reset and restore: removes every topic, internal ones included, as
    // remove() does (LogManager::remove_all, their overrides files deleted). Returns their names.
    std::vector<std::string> remove_all();
    // broker/control's restore: forgets what it knew and reads the topics again from the
    // LogManager's logs and the overrides files, as the constructor does at start-up.
    void reload();
    // CreatePartitions: grows the topic to `new_count` partitions (INVALID_PARTITIONS unless it
    // is larger than the current count).
    CreateResult add_partitions(const std::string& topic, int32_t new_count, bool validate_only);
    // The topic's overrides; nullopt for an unknown topic.
    std::optional<TopicOverrides> overrides(const std::string& topic) const;
    // Replaces the topic's overrides (validated) and applies them to its logs at once.
    CreateResult set_overrides(const std::string& topic, const TopicOverrides& overrides,
                               bool validate_only);
    // The topic's max.message.bytes override, if any.
    std::optional<int64_t> max_message_bytes(const std::string& topic) const;
    // The topic's compression.type override (producer, uncompressed, gzip, ...), if it has one.
    std::optional<std::string> compression_type(const std::string& topic) const;
    // The topic's cleanup.policy override (delete, compact, compact,delete), if it has one.
    std::optional<std::string> cleanup_policy(const std::string& topic) const;
    // The topic's message.timestamp.* over the broker's defaults (the produce path's checks).
    TimestampPolicy timestamp_policy(const std::string& topic,
                                     const config::BrokerConfig& config) const;
    // The topic's broker-side schema validation, when its overrides turn it on.
    std::optional<SchemaValidation> schema_validation(const std::string& topic) const;

    // Kafka's rules: 1 to 249 characters of [a-zA-Z0-9._-], and not "." or "..". A name that
    // passes can never escape the log directory.
    static std::optional<std::string> invalid_topic_reason(std::string_view topic);
    // Topics whose name starts with "__" (committed offsets) belong to the broker: clients may
    // read them but not delete, grow or reconfigure them.
    static bool is_internal(std::string_view topic) { return topic.starts_with("__"); }

  private:
    struct Topic {
        int32_t partition_count = 0;
        TopicOverrides overrides;
        storage::TopicId id;
    };
    // After the topic's partitions were created: records its id (LogManager drew it).
    void record_id_locked(const std::string& topic, Topic& entry);
    CreateResult create_partitions_locked(const std::string& topic, int32_t from, int32_t to);
    struct Failure {
        Clock::time_point retry_at;
        int failures = 0;  // consecutive
        CreateResult result;
    };
    void remember_failure_locked(const std::string& topic, const CreateResult& result,
                                 Clock::time_point now);

    storage::LogManager& logs_;
    mutable std::mutex mutex_;
    std::map<std::string, Topic> topics_;
    std::map<storage::TopicId, std::string> names_by_id_;  // guarded by mutex_
    std::map<std::string, Failure> failed_auto_creates_;   // guarded by mutex_
};

}  // namespace skiff::broker
