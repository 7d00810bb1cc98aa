#include "broker/control/request_capture.h"

#include "broker/topics/topic_ids.h"
#include "protocol/api_key.h"
#include "storage/partition_metadata.h"

namespace skiff::broker::control {

void RequestCapture::add(CapturedRequest request) {
    std::lock_guard lock(mutex_);
    request.sequence = next_++;
    if (capacity_ == 0)
        return;
    if (ring_.size() == capacity_)
        ring_.pop_front();
    ring_.push_back(std::move(request));
}

std::vector<CapturedRequest> RequestCapture::query(const CaptureFilter& filter) const {
    std::lock_guard lock(mutex_);
    std::vector<CapturedRequest> out;
    for (const auto& r : ring_) {
        if (r.sequence <= filter.after)
            continue;
        if (filter.api_key && *filter.api_key != r.api_key)
            continue;
        if (filter.client_id && *filter.client_id != r.client_id)
            continue;
        out.push_back(r);
    }
    // The newest `limit`, still oldest first: a test asks "what did it send last".
    if (filter.limit > 0 && out.size() > filter.limit)
        out.erase(out.begin(), out.end() - static_cast<std::ptrdiff_t>(filter.limit));
    return out;
}

size_t RequestCapture::clear() {
    std::lock_guard lock(mutex_);
    const size_t n = ring_.size();
    ring_.clear();
    return n;
}

uint64_t RequestCapture::total() const {
    std::lock_guard lock(mutex_);
    return next_ - 1;
}

nlohmann::json to_json(const CapturedRequest& r) {
    nlohmann::json j;
    j["sequence"] = r.sequence;
    j["time_ms"] =
        std::chrono::duration_cast<std::chrono::milliseconds>(r.at.time_since_epoch()).count();
    j["api"] = protocol::api_name(static_cast<protocol::ApiKey>(r.api_key));
    j["api_key"] = r.api_key;
    j["api_version"] = r.api_version;
    j["correlation_id"] = r.correlation_id;
    j["client_id"] = r.client_id;
    if (!r.software_name.empty()) {
        j["client_software_name"] = r.software_name;
        j["client_software_version"] = r.software_version;
    }
    j["principal"] = r.principal;
    j["listener"] = r.listener;
    j["peer"] = r.peer;
    nlohmann::json topics = nlohmann::json::array();
    for (const auto& t : r.facts.topics) {
        nlohmann::json topic;
        if (!t.name.empty())
            topic["name"] = t.name;
        if (t.topic_id != protocol::Uuid{})
            topic["topic_id"] =
                storage::to_string(to_topic_id(t.topic_id));  // as partition.metadata has it
        if (!t.partitions.empty())
            topic["partitions"] = t.partitions;
        topics.push_back(std::move(topic));
    }
    if (!topics.empty())
        j["topics"] = std::move(topics);
    if (r.facts.acks)
        j["acks"] = *r.facts.acks;
    if (r.facts.isolation_level)
        j["isolation_level"] =
            *r.facts.isolation_level == 1 ? "read_committed" : "read_uncommitted";
    if (!r.facts.groups.empty())
        j["groups"] = r.facts.groups;
    if (!r.facts.transactional_ids.empty())
        j["transactional_ids"] = r.facts.transactional_ids;
    if (r.fault_rule)
        j["fault_rule"] = *r.fault_rule;
    return j;
}

}  // namespace skiff::broker::control
