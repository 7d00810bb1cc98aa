#include "broker/group/consumer/consumer_group.h"

namespace skiff::broker::group::consumer {

using protocol::ErrorCode;

const char* state_name(MemberState state) {
    switch (state) {
        case MemberState::stable:
            return "stable";
        case MemberState::unrevoked_partitions:
            return "unrevoked_partitions";
        case MemberState::unreleased_partitions:
            return "unreleased_partitions";
    }
    return "unknown";
}

const ConsumerMember* ConsumerGroup::member(const std::string& member_id) const {
    auto it = members_.find(member_id);
    return it == members_.end() ? nullptr : &it->second;
}

void ConsumerGroup::forget_owner(const ConsumerMember& m) {
    for (const Assignment* a : {&m.assigned, &m.pending_revocation})
        for (const auto& [topic, partitions] : *a)
            for (int32_t p : partitions) {
                auto it = owners_.find({topic, p});
                if (it != owners_.end() && it->second == m.member_id)
                    owners_.erase(it);
            }
}

void ConsumerGroup::record_owner(const ConsumerMember& m) {
    for (const Assignment* a : {&m.assigned, &m.pending_revocation})
        for (const auto& [topic, partitions] : *a)
            for (int32_t p : partitions)
                owners_[{topic, p}] = m.member_id;
}

void ConsumerGroup::count_subscription(const ConsumerMember& m, int delta) {
    auto count = [delta](std::map<std::string, int>& refs, const std::string& key) {
        if ((refs[key] += delta) <= 0)
            refs.erase(key);
    };
    for (const auto& name : m.subscribed_topic_names)
        count(name_refs_, name);
    if (m.subscribed_topic_regex)
        count(regex_refs_, *m.subscribed_topic_regex);
}

void ConsumerGroup::put(ConsumerMember m) {
    auto it = members_.find(m.member_id);
    if (it != members_.end()) {
        forget_owner(it->second);
        count_subscription(it->second, -1);
    }
    record_owner(m);
    count_subscription(m, +1);
    if (m.instance_id)
        static_members[*m.instance_id] = m.member_id;
    const std::string id = m.member_id;
    changed_members_.insert(id);
    members_.insert_or_assign(id, std::move(m));
}

bool ConsumerGroup::remove(const std::string& member_id, int64_t now_wall_ms) {
    auto it = members_.find(member_id);
    if (it == members_.end())
        return false;
    forget_owner(it->second);
    count_subscription(it->second, -1);
    if (it->second.instance_id) {
        auto s = static_members.find(*it->second.instance_id);
        if (s != static_members.end() && s->second == member_id)
            static_members.erase(s);
    }
    members_.erase(it);
    target.erase(member_id);
    changed_members_.insert(member_id);
    if (members_.empty())
        empty_since_wall_ms_ = now_wall_ms;
    return true;
}

bool ConsumerGroup::owned_elsewhere(const std::string& topic, int32_t partition,
                                    const std::string& member_id) const {
    auto it = owners_.find({topic, partition});
    return it != owners_.end() && it->second != member_id;
}

std::set<std::string> ConsumerGroup::subscription_of(const ConsumerMember& m) const {
    std::set<std::string> out(m.subscribed_topic_names.begin(), m.subscribed_topic_names.end());
    if (m.subscribed_topic_regex)
        if (auto it = regexes.find(*m.subscribed_topic_regex); it != regexes.end())
            out.insert(it->second.topics.begin(), it->second.topics.end());
    return out;
}

std::set<std::string> ConsumerGroup::subscribed_topic_names() const {
    std::set<std::string> out;
    for (const auto& [name, n] : name_refs_)
        out.insert(name);
    for (const auto& [pattern, n] : regex_refs_)
        if (auto it = regexes.find(pattern); it != regexes.end())
            out.insert(it->second.topics.begin(), it->second.topics.end());
    return out;
}

const char* ConsumerGroup::state() const {
    if (dead)
        return "Dead";
    if (members_.empty())
        return "Empty";
    if (group_epoch > assignment_epoch)
        return "Assigning";
    for (const auto& [id, m] : members_)
        if (m.state != MemberState::stable || m.member_epoch != assignment_epoch)
            return "Reconciling";
    return "Stable";
}

protocol::ListedGroup ConsumerGroup::listed() const {
    return {group_id(), "consumer", state(), std::string(type_name(kType))};
}

// DescribeGroups is the classic protocol's: Kafka answers it for a consumer group with
// GROUP_ID_NOT_FOUND (ConsumerGroupDescribe is the one for these groups).
protocol::DescribedGroup ConsumerGroup::described() const {
    protocol::DescribedGroup d;
    d.group_id = group_id();
    d.error_code = ErrorCode::group_id_not_found;
    d.error_message = "Group " + group_id() + " is not a classic group.";
    d.group_state = "Dead";
    return d;
}

std::optional<int64_t> ConsumerGroup::empty_since() const {
    if (!members_.empty())
        return std::nullopt;
    return empty_since_wall_ms_;
}

// Kafka's ConsumerGroup.validateOffsetCommit: a commit without member epoch (an admin client,
// or a consumer outside group management) only while the group is empty; a member's from
// OffsetCommit v9 or later, with its current member epoch.
ErrorCode ConsumerGroup::validate_offset_commit(int32_t member_epoch, const std::string& member_id,
                                                const std::optional<std::string>& group_instance_id,
                                                bool transactional, int16_t api_version,
                                                int64_t now_ms) {
    (void)group_instance_id;
    (void)now_ms;
    if (dead)
        return ErrorCode::coordinator_not_available;
    if (member_epoch < 0 && members_.empty())
        return ErrorCode::none;
    if (transactional && member_epoch < 0 && member_id.empty())
        return ErrorCode::none;
    auto it = members_.find(member_id);
    if (it == members_.end())
        return ErrorCode::unknown_member_id;
    if (it->second.classic)  // a classic member: its generation is its member epoch
        return member_epoch == it->second.member_epoch ? ErrorCode::none
                                                       : ErrorCode::illegal_generation;
    if (!transactional && api_version < 9)
        return ErrorCode::unsupported_version;
    if (member_epoch > it->second.member_epoch)
        return ErrorCode::fenced_member_epoch;
    if (member_epoch < it->second.member_epoch)
        return ErrorCode::stale_member_epoch;
    return ErrorCode::none;
}

ErrorCode ConsumerGroup::validate_offset_fetch(const std::optional<std::string>& member_id,
                                               int32_t member_epoch) const {
    if (!member_id || (member_id->empty() && member_epoch < 0))
        return ErrorCode::none;
    auto it = members_.find(*member_id);
    if (it == members_.end())
        return ErrorCode::unknown_member_id;
    if (member_epoch != it->second.member_epoch)
        return ErrorCode::stale_member_epoch;
    return ErrorCode::none;
}

ErrorCode ConsumerGroup::validate_delete() const {
    return members_.empty() ? ErrorCode::none : ErrorCode::non_empty_group;
}

ErrorCode ConsumerGroup::validate_offset_delete() const {
    return dead ? ErrorCode::group_id_not_found : ErrorCode::none;
}

}  // namespace skiff::broker::group::consumer
