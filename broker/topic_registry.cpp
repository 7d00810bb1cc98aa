#include "broker/topic_registry.h"

namespace skiff::broker {

TopicRegistry::TopicRegistry(storage::LogManager& logs) : logs_(logs) {
    for (const auto& tp : logs_.partitions()) {
        auto& count = topics_[tp.topic];
        count = std::max(count, tp.partition + 1);
    }
}

std::optional<int32_t> TopicRegistry::partition_count(const std::string& topic) const {
    std::lock_guard lock(mutex_);
    auto it = topics_.find(topic);
    if (it == topics_.end())
        return std::nullopt;
    return it->second;
}

std::vector<TopicInfo> TopicRegistry::list() const {
    std::lock_guard lock(mutex_);
    std::vector<TopicInfo> out;
    out.reserve(topics_.size());
    for (const auto& [name, count] : topics_)
        out.push_back({name, count});
    return out;
}

TopicRegistry::CreateResult TopicRegistry::get_or_create(const std::string& topic,
                                                         int32_t partitions) {
    if (auto reason = invalid_topic_reason(topic))
        return {protocol::ErrorCode::invalid_topic_exception, 0, *reason};
    std::lock_guard lock(mutex_);
    if (auto it = topics_.find(topic); it != topics_.end())
        return {protocol::ErrorCode::none, it->second, {}};
    for (int32_t p = 0; p < partitions; ++p) {
        auto log = logs_.get_or_create({topic, p});
        if (!log)
            return {protocol::ErrorCode::kafka_storage_error, 0,
                    "cannot create partition " + std::to_string(p) + ": " + log.error().message};
    }
    topics_[topic] = partitions;
    return {protocol::ErrorCode::none, partitions, {}};
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
