#include "broker/topics/topic_registry.h"

#include <charconv>

namespace skiff::broker {

using protocol::ErrorCode;

TopicRegistry::TopicRegistry(storage::LogManager& logs) : logs_(logs) {
    reload();
}

void TopicRegistry::reload() {
    std::lock_guard lock(mutex_);
    topics_.clear();
    names_by_id_.clear();
    failed_auto_creates_.clear();
    for (const auto& tp : logs_.partitions()) {
        auto& topic = topics_[tp.topic];
        topic.partition_count = std::max(topic.partition_count, tp.partition + 1);
    }
    for (auto& [name, topic] : topics_)
        record_id_locked(name, topic);
    for (auto& [name, overrides] : read_all_topic_overrides(logs_.log_dir())) {
        auto it = topics_.find(name);
        if (it == topics_.end()) {  // the topic was deleted after its config was written
            remove_topic_overrides(logs_.log_dir(), name);
            continue;
        }
        logs_.set_topic_config(name, apply_overrides(logs_.defaults(), overrides));
        it->second.overrides = std::move(overrides);
    }
}

std::optional<int32_t> TopicRegistry::partition_count(const std::string& topic) const {
    std::lock_guard lock(mutex_);
    auto it = topics_.find(topic);
    if (it == topics_.end())
        return std::nullopt;
    return it->second.partition_count;
}

std::vector<TopicInfo> TopicRegistry::list() const {
    std::lock_guard lock(mutex_);
    std::vector<TopicInfo> out;
    out.reserve(topics_.size());
    for (const auto& [name, topic] : topics_)
        out.push_back({name, topic.partition_count, topic.id});
    return out;
}

std::optional<storage::TopicId> TopicRegistry::topic_id(const std::string& topic) const {
    std::lock_guard lock(mutex_);
    auto it = topics_.find(topic);
    if (it == topics_.end())
        return std::nullopt;
    return it->second.id;
}

std::optional<TopicInfo> TopicRegistry::find_by_id(const storage::TopicId& id) const {
    std::lock_guard lock(mutex_);
    auto named = names_by_id_.find(id);
    if (named == names_by_id_.end())
        return std::nullopt;
    auto it = topics_.find(named->second);
    if (it == topics_.end())
        return std::nullopt;
    return TopicInfo{it->first, it->second.partition_count, it->second.id};
}

void TopicRegistry::record_id_locked(const std::string& topic, Topic& entry) {
    if (auto id = logs_.topic_id(topic)) {
        entry.id = *id;
        names_by_id_[*id] = topic;
    }
}

TopicRegistry::CreateResult TopicRegistry::create_partitions_locked(const std::string& topic,
                                                                    int32_t from, int32_t to) {
    // All or nothing (LogManager::create_partitions rolls back what it made). Kafka answers
    // KAFKA_STORAGE_ERROR for a log it cannot create (see the header); CreateTopics v1+ and
    // CreatePartitions carry the message, which names the partition and the errno text.
    auto created = logs_.create_partitions(topic, from, to);
    if (!created)
        return {ErrorCode::kafka_storage_error, 0, created.error().message};
    return {ErrorCode::none, to, {}};
}

void TopicRegistry::remember_failure_locked(const std::string& topic, const CreateResult& result,
                                            Clock::time_point now) {
    auto it = failed_auto_creates_.find(topic);
    if (it == failed_auto_creates_.end()) {
        if (failed_auto_creates_.size() >= kMaxRememberedFailures) {
            // Forget those whose back-off is over; if none is, the one due soonest.
            std::erase_if(failed_auto_creates_,
                          [&](const auto& entry) { return entry.second.retry_at <= now; });
            if (failed_auto_creates_.size() >= kMaxRememberedFailures) {
                auto soonest = failed_auto_creates_.begin();
                for (auto f = failed_auto_creates_.begin(); f != failed_auto_creates_.end(); ++f)
                    if (f->second.retry_at < soonest->second.retry_at)
                        soonest = f;
                failed_auto_creates_.erase(soonest);
            }
        }
        it = failed_auto_creates_.emplace(topic, Failure{}).first;
    }
    Failure& f = it->second;
    f.failures = std::min(f.failures + 1, 16);
    auto backoff = std::chrono::duration_cast<Clock::duration>(kAutoCreateBackoffMin) *
                   (int64_t{1} << (f.failures - 1));
    f.retry_at = now + std::min<Clock::duration>(backoff, kAutoCreateBackoffMax);
    f.result = result;
}

TopicRegistry::CreateResult TopicRegistry::auto_create(const std::string& topic, int32_t partitions,
                                                       Clock::time_point now) {
    if (auto reason = invalid_topic_reason(topic))
        return {ErrorCode::invalid_topic_exception, 0, *reason};
    std::lock_guard lock(mutex_);
    if (auto it = topics_.find(topic); it != topics_.end())
        return {ErrorCode::none, it->second.partition_count, {}};
    if (auto it = failed_auto_creates_.find(topic);
        it != failed_auto_creates_.end() && now < it->second.retry_at) {
        CreateResult r = it->second.result;
        r.backing_off = true;
        return r;
    }
    auto created = create_partitions_locked(topic, 0, partitions);
    if (created.error != ErrorCode::none) {
        remember_failure_locked(topic, created, now);
        return created;
    }
    failed_auto_creates_.erase(topic);
    auto& entry = topics_[topic];
    entry.partition_count = partitions;
    record_id_locked(topic, entry);
    return created;
}

TopicRegistry::CreateResult TopicRegistry::get_or_create(const std::string& topic,
                                                         int32_t partitions) {
    if (auto reason = invalid_topic_reason(topic))
        return {ErrorCode::invalid_topic_exception, 0, *reason};
    std::lock_guard lock(mutex_);
    if (auto it = topics_.find(topic); it != topics_.end())
        return {ErrorCode::none, it->second.partition_count, {}};
    auto created = create_partitions_locked(topic, 0, partitions);
    if (created.error != ErrorCode::none)
        return created;
    auto& entry = topics_[topic];
    entry.partition_count = partitions;
    record_id_locked(topic, entry);
    return created;
}

TopicRegistry::CreateResult TopicRegistry::create(const std::string& topic, int32_t partitions,
                                                  const TopicOverrides& overrides,
                                                  bool validate_only) {
    if (auto reason = invalid_topic_reason(topic))
        return {ErrorCode::invalid_topic_exception, 0, *reason};
    if (partitions < 1)
        return {ErrorCode::invalid_partitions, 0, "number of partitions must be at least 1"};
    for (const auto& [name, value] : overrides)
        if (auto reason = invalid_topic_config(name, value))
            return {ErrorCode::invalid_config, 0, *reason};
    if (auto reason = conflicting_topic_configs(apply_overrides(logs_.defaults(), overrides)))
        return {ErrorCode::invalid_config, 0, *reason};
    std::lock_guard lock(mutex_);
    if (topics_.count(topic))
        return {ErrorCode::topic_already_exists, 0, "topic '" + topic + "' already exists"};
    if (validate_only)
        return {ErrorCode::none, partitions, {}};
    // Overrides first, so a crash never leaves partitions that were meant to have them without.
    if (!overrides.empty()) {
        auto written = write_topic_overrides(logs_.log_dir(), topic, overrides);
        if (!written)
            return {ErrorCode::kafka_storage_error, 0, written.error()};
        logs_.set_topic_config(topic, apply_overrides(logs_.defaults(), overrides));
    }
    auto created = create_partitions_locked(topic, 0, partitions);
    if (created.error != ErrorCode::none) {
        // Rolled back: the partitions are gone, and so must the overrides be, or a later
        // creation of the same name (or a restart) would find them.
        if (!overrides.empty()) {
            remove_topic_overrides(logs_.log_dir(), topic);
            logs_.clear_topic_config(topic);
        }
        return created;
    }
    failed_auto_creates_.erase(topic);
    auto& entry = topics_[topic] = Topic{partitions, overrides, {}};
    record_id_locked(topic, entry);
    return created;
}

std::vector<std::string> TopicRegistry::remove_all() {
    std::lock_guard lock(mutex_);
    topics_.clear();
    names_by_id_.clear();
    failed_auto_creates_.clear();
    auto removed = logs_.remove_all();
    // Every overrides file, also one left by a topic whose partitions are gone.
    for (auto& [name, overrides] : read_all_topic_overrides(logs_.log_dir()))
        remove_topic_overrides(logs_.log_dir(), name);
    return removed;
}

ErrorCode TopicRegistry::remove(const std::string& topic) {
    std::lock_guard lock(mutex_);
    auto it = topics_.find(topic);
    if (it == topics_.end())
        return ErrorCode::unknown_topic_or_partition;
    names_by_id_.erase(it->second.id);
    topics_.erase(it);
    logs_.remove(topic);
    remove_topic_overrides(logs_.log_dir(), topic);
    return ErrorCode::none;
}

TopicRegistry::CreateResult TopicRegistry::add_partitions(const std::string& topic,
                                                          int32_t new_count, bool validate_only) {
    if (is_internal(topic))
        return {ErrorCode::invalid_request, 0,
                "internal topic " + topic + " is managed by the broker"};
    std::lock_guard lock(mutex_);
    auto it = topics_.find(topic);
    if (it == topics_.end())
        return {ErrorCode::unknown_topic_or_partition, 0, "topic '" + topic + "' does not exist"};
    const int32_t current = it->second.partition_count;
    if (new_count <= current)
        return {ErrorCode::invalid_partitions, current,
                "topic currently has " + std::to_string(current) +
                    " partitions, which is higher than or equal to the requested " +
                    std::to_string(new_count)};
    if (validate_only)
        return {ErrorCode::none, new_count, {}};
    auto created = create_partitions_locked(topic, current, new_count);
    if (created.error != ErrorCode::none)
        return created;
    it->second.partition_count = new_count;
    return created;
}

std::optional<TopicOverrides> TopicRegistry::overrides(const std::string& topic) const {
    std::lock_guard lock(mutex_);
    auto it = topics_.find(topic);
    if (it == topics_.end())
        return std::nullopt;
    return it->second.overrides;
}

TopicRegistry::CreateResult TopicRegistry::set_overrides(const std::string& topic,
                                                         const TopicOverrides& overrides,
                                                         bool validate_only) {
    if (is_internal(topic))
        return {ErrorCode::invalid_request, 0,
                "internal topic " + topic + " is managed by the broker"};
    std::lock_guard lock(mutex_);
    // Kafka looks for the topic before it validates the configs (0081_admin relies on it).
    auto it = topics_.find(topic);
    if (it == topics_.end())
        return {ErrorCode::unknown_topic_or_partition, 0, "topic '" + topic + "' does not exist"};
    for (const auto& [name, value] : overrides)
        if (auto reason = invalid_topic_config(name, value))
            return {ErrorCode::invalid_config, 0, *reason};
    if (auto reason = conflicting_topic_configs(apply_overrides(logs_.defaults(), overrides)))
        return {ErrorCode::invalid_config, 0, *reason};
    if (validate_only)
        return {ErrorCode::none, it->second.partition_count, {}};
    if (overrides.empty()) {
        remove_topic_overrides(logs_.log_dir(), topic);
    } else {
        auto written = write_topic_overrides(logs_.log_dir(), topic, overrides);
        if (!written)
            return {ErrorCode::kafka_storage_error, 0, written.error()};
    }
    logs_.set_topic_config(topic, apply_overrides(logs_.defaults(), overrides));
    it->second.overrides = overrides;
    return {ErrorCode::none, it->second.partition_count, {}};
}

std::optional<int64_t> TopicRegistry::max_message_bytes(const std::string& topic) const {
    std::lock_guard lock(mutex_);
    auto it = topics_.find(topic);
    if (it == topics_.end())
        return std::nullopt;
    static const std::string kKey = "max.message.bytes";  // looked up on every produce
    auto found = it->second.overrides.find(kKey);
    if (found == it->second.overrides.end())
        return std::nullopt;
    int64_t v = 0;
    const std::string& text = found->second;
    std::from_chars(text.data(), text.data() + text.size(), v);
    return v;
}

std::optional<std::string> TopicRegistry::cleanup_policy(const std::string& topic) const {
    std::lock_guard lock(mutex_);
    auto it = topics_.find(topic);
    if (it == topics_.end())
        return std::nullopt;
    static const std::string kKey = "cleanup.policy";  // looked up on every produce
    auto found = it->second.overrides.find(kKey);
    if (found == it->second.overrides.end())
        return std::nullopt;
    return found->second;  // a short string: no allocation
}

std::optional<std::string> TopicRegistry::compression_type(const std::string& topic) const {
    std::lock_guard lock(mutex_);
    auto it = topics_.find(topic);
    if (it == topics_.end())
        return std::nullopt;
    static const std::string kKey = "compression.type";  // looked up on every produce
    auto found = it->second.overrides.find(kKey);
    if (found == it->second.overrides.end())
        return std::nullopt;
    return found->second;  // a short string: no allocation
}

TimestampPolicy TopicRegistry::timestamp_policy(const std::string& topic,
                                                const config::BrokerConfig& config) const {
    std::lock_guard lock(mutex_);
    static const TopicOverrides kNone;
    auto it = topics_.find(topic);
    return timestamp_policy_of(it == topics_.end() ? kNone : it->second.overrides, config);
}

std::optional<SchemaValidation> TopicRegistry::schema_validation(const std::string& topic) const {
    std::lock_guard lock(mutex_);
    auto it = topics_.find(topic);
    if (it == topics_.end())
        return std::nullopt;
    return schema_validation_of(it->second.overrides);
}

std::optional<std::string> TopicRegistry::invalid_topic_reason(std::string_view topic) {
    if (topic.empty())
        return "topic name is empty";
    if (topic.size() > 249)
        return "topic name is longer than 249 characters";
    if (topic == "." || topic == "..")
        return "topic name cannot be '.' or '..'";
    for (char c : topic) {
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '_' || c == '-';
        if (!ok)
            return "topic name contains a character outside [a-zA-Z0-9._-]";
    }
    return std::nullopt;
}

}  // namespace skiff::broker
