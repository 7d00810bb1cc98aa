#include "broker/control/fault_table.h"

#include <algorithm>

namespace skiff::broker::control {
namespace {

bool topic_is(const TopicFacts& t, const std::string& wanted, const RequestView& request) {
    if (!t.name.empty())
        return t.name == wanted;
    return request.topic_name && request.topic_name(t.topic_id) == wanted;
}

bool contains(const std::vector<std::string>& values, const std::string& wanted) {
    return std::find(values.begin(), values.end(), wanted) != values.end();
}

}  // namespace

bool Fired::targets(std::string_view name, const protocol::Uuid& id,
                    std::optional<int32_t> p) const {
    if (!topic)
        return true;
    if (name.empty() && topic_name)
        return topic_name(id) == *topic && (!partition || (p && *p == *partition));
    if (name != *topic)
        return false;
    if (!partition)
        return true;
    return p && *p == *partition;
}

FaultRule FaultTable::add(FaultRule rule) {
    std::lock_guard lock(mutex_);
    rule.id = next_id_++;
    rule.matched = rule.fired = 0;
    rules_.push_back(rule);
    count_.store(rules_.size(), std::memory_order_relaxed);
    return rule;
}

std::vector<FaultRule> FaultTable::list() const {
    std::lock_guard lock(mutex_);
    return rules_;
}

std::optional<FaultRule> FaultTable::get(uint64_t id) const {
    std::lock_guard lock(mutex_);
    for (const auto& r : rules_)
        if (r.id == id)
            return r;
    return std::nullopt;
}

bool FaultTable::remove(uint64_t id) {
    std::lock_guard lock(mutex_);
    auto it = std::find_if(rules_.begin(), rules_.end(), [&](const auto& r) { return r.id == id; });
    if (it == rules_.end())
        return false;
    rules_.erase(it);
    count_.store(rules_.size(), std::memory_order_relaxed);
    return true;
}

size_t FaultTable::clear() {
    std::lock_guard lock(mutex_);
    const size_t n = rules_.size();
    rules_.clear();
    count_.store(0, std::memory_order_relaxed);
    return n;
}

bool FaultTable::matches(const FaultMatch& m, const RequestView& request) {
    if (m.api_key && *m.api_key != request.api_key)
        return false;
    if (request.api_version < m.min_version || request.api_version > m.max_version)
        return false;
    if (m.client_id && *m.client_id != request.client_id)
        return false;
    if (m.listener && *m.listener != request.listener)
        return false;
    const RequestFacts empty;
    const RequestFacts& facts = request.facts ? *request.facts : empty;
    if (m.group && !contains(facts.groups, *m.group))
        return false;
    if (m.transactional_id && !contains(facts.transactional_ids, *m.transactional_id))
        return false;
    if (m.topic) {
        // A topic named without partitions (Metadata, CreateTopics) matches a partition rule
        // too: the partition is part of it.
        auto it = std::find_if(facts.topics.begin(), facts.topics.end(), [&](const auto& t) {
            return topic_is(t, *m.topic, request) &&
                   (!m.partition || t.partitions.empty() ||
                    std::find(t.partitions.begin(), t.partitions.end(), *m.partition) !=
                        t.partitions.end());
        });
        if (it == facts.topics.end())
            return false;
    }
    return true;
}

std::optional<Fired> FaultTable::match(const RequestView& request) {
    std::lock_guard lock(mutex_);
    for (auto& rule : rules_) {
        if (rule.remaining && *rule.remaining == 0)
            continue;  // used up; listed until removed, so a test can read its counts
        if (!matches(rule.match, request))
            continue;
        ++rule.matched;
        if (rule.probability &&
            std::uniform_real_distribution<double>(0.0, 1.0)(random_) >= *rule.probability)
            continue;
        ++rule.fired;
        if (rule.remaining)
            --*rule.remaining;
        return Fired{.rule_id = rule.id,
                     .action = rule.action,
                     .error = rule.error,
                     .latency = rule.latency,
                     .topic = rule.match.topic,
                     .partition = rule.match.partition,
                     .topic_name = request.topic_name};
    }
    return std::nullopt;
}

}  // namespace skiff::broker::control
