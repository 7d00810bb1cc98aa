#include "broker/group/consumer/consumer_records.h"

#include "storage/log_config.h"

namespace skiff::broker::group::consumer {
namespace {

constexpr int16_t kValueVersion = 0;

int8_t state_code(MemberState s) {
    switch (s) {
        case MemberState::stable:
            return 0;
        case MemberState::unrevoked_partitions:
            return 1;
        case MemberState::unreleased_partitions:
            return 2;
    }
    return 0;
}

MemberState state_of(int8_t code) {
    switch (code) {
        case 1:
            return MemberState::unrevoked_partitions;
        case 2:
            return MemberState::unreleased_partitions;
        default:
            return MemberState::stable;
    }
}

void member_records(const ConsumerGroup& g, const std::string& member_id, GroupRecords& out,
                    const TopicView& topics, bool with_target) {
    const std::string& id = g.group_id();
    const ConsumerMember* m = g.member(member_id);
    if (!m) {
        for (int16_t type : {kConsumerGroupCurrentAssignmentType, kConsumerGroupTargetMemberType,
                             kConsumerGroupMemberMetadataType})
            out.push_back({member_record_key(id, member_id, type), std::nullopt});
        return;
    }
    ConsumerGroupMemberMetadataValue meta;
    meta.instance_id = m->instance_id;
    meta.rack_id = m->rack_id;
    meta.client_id = m->client_id;
    meta.client_host = m->client_host;
    meta.subscribed_topic_names = m->subscribed_topic_names;
    meta.subscribed_topic_regex = m->subscribed_topic_regex;
    meta.rebalance_timeout_ms = m->rebalance_timeout_ms;
    meta.server_assignor = m->server_assignor;
    if (m->classic) {
        RecordClassicMemberMetadata c;
        c.session_timeout_ms = m->classic->session_timeout_ms;
        for (const auto& [name, metadata] : m->classic->protocols)
            c.supported_protocols.push_back({name, metadata});
        meta.classic_member_metadata = std::move(c);
    }
    out.push_back({member_record_key(id, member_id, kConsumerGroupMemberMetadataType),
                   encode_record(meta, kValueVersion)});
    if (with_target) {
        ConsumerGroupTargetMemberValue target;
        if (auto t = g.target.find(member_id); t != g.target.end())
            target.topic_partitions = assignment_by_id(t->second, topics);
        out.push_back({member_record_key(id, member_id, kConsumerGroupTargetMemberType),
                       encode_record(target, kValueVersion)});
    }
    ConsumerGroupCurrentAssignmentValue current;
    current.member_epoch = m->member_epoch;
    current.previous_member_epoch = m->previous_member_epoch;
    current.state = state_code(m->state);
    current.assigned_partitions = assignment_by_id(m->assigned, topics);
    current.partitions_pending_revocation = assignment_by_id(m->pending_revocation, topics);
    out.push_back({member_record_key(id, member_id, kConsumerGroupCurrentAssignmentType),
                   encode_record(current, kValueVersion)});
}

}  // namespace

std::string group_record_key(const std::string& group_id, int16_t type) {
    return encode_record(ConsumerGroupKey{group_id}, type);
}

std::string member_record_key(const std::string& group_id, const std::string& member_id,
                              int16_t type) {
    return encode_record(ConsumerGroupMemberKey{group_id, member_id}, type);
}

std::vector<RecordTopicPartitions> assignment_by_id(const Assignment& a, const TopicView& topics) {
    std::vector<RecordTopicPartitions> out;
    if (!topics.id)
        return out;  // a coordinator without topics (unit tests)
    for (const auto& [topic, partitions] : a) {
        auto id = topics.id(topic);
        if (!id || partitions.empty())
            continue;  // deleted: the next group epoch drops it anyway
        out.push_back({*id, std::vector<int32_t>(partitions.begin(), partitions.end())});
    }
    return out;
}

Assignment assignment_by_name(const std::vector<RecordTopicPartitions>& tps,
                              const TopicView& topics) {
    Assignment out;
    if (!topics.name)
        return out;
    for (const auto& tp : tps)
        if (auto name = topics.name(tp.topic_id))
            out[*name].insert(tp.partitions.begin(), tp.partitions.end());
    return out;
}

bool is_consumer_group_record(int16_t key_version) {
    return (key_version >= kConsumerGroupMetadataType &&
            key_version <= kConsumerGroupCurrentAssignmentType) ||
           key_version == kConsumerGroupRegexType;
}

void take_consumer_changes(ConsumerGroup& g, GroupRecords& out, const TopicView& topics,
                           bool everything) {
    const std::string& id = g.group_id();
    std::set<std::string> changed;
    changed.swap(g.changed_members());
    if (everything)
        for (const auto& [member_id, m] : g.members())
            changed.insert(member_id);
    const bool targets = everything || g.assignment_epoch != g.persisted_assignment_epoch;
    for (const auto& member_id : changed)
        // A member's target is written with the others when the assignment epoch moved, and
        // with the member otherwise (a static member taking over its old place).
        member_records(g, member_id, out, topics, !targets || !g.member(member_id));
    if (targets) {
        for (const auto& [member_id, m] : g.members()) {
            ConsumerGroupTargetMemberValue target;
            if (auto t = g.target.find(member_id); t != g.target.end())
                target.topic_partitions = assignment_by_id(t->second, topics);
            out.push_back({member_record_key(id, member_id, kConsumerGroupTargetMemberType),
                           encode_record(target, kValueVersion)});
        }
        out.push_back({group_record_key(id, kConsumerGroupTargetMetadataType),
                       encode_record(ConsumerGroupEpochValue{g.assignment_epoch}, kValueVersion)});
        g.persisted_assignment_epoch = g.assignment_epoch;
    }
    if (everything || g.group_epoch != g.persisted_group_epoch) {
        out.push_back({group_record_key(id, kConsumerGroupMetadataType),
                       encode_record(ConsumerGroupEpochValue{g.group_epoch}, kValueVersion)});
        g.persisted_group_epoch = g.group_epoch;
    }
    // Regular expressions: written when what they match changed; those no member uses go.
    std::map<std::string, int64_t> now;
    for (const auto& [pattern, r] : g.regexes) {
        if (!r.regex || r.topics_changed_wall_ms == 0)
            continue;  // not resolved yet
        now[pattern] = r.topics_changed_wall_ms;
        auto p = g.persisted_regexes.find(pattern);
        if (!everything && p != g.persisted_regexes.end() && p->second == r.topics_changed_wall_ms)
            continue;
        ConsumerGroupRegexValue v;
        v.topics.assign(r.topics.begin(), r.topics.end());
        v.timestamp = r.topics_changed_wall_ms;
        out.push_back({encode_record(ConsumerGroupRegexKey{id, pattern}, kConsumerGroupRegexType),
                       encode_record(v, kValueVersion)});
    }
    for (const auto& [pattern, when] : g.persisted_regexes)
        if (!now.count(pattern))
            out.push_back(
                {encode_record(ConsumerGroupRegexKey{id, pattern}, kConsumerGroupRegexType),
                 std::nullopt});
    g.persisted_regexes = std::move(now);
}

void ConsumerGroup::take_records(GroupRecords& out, const TopicView& topics, bool everything) {
    take_consumer_changes(*this, out, topics, everything);
}

Expected<std::unique_ptr<ConsumerGroup>, std::string> restore_consumer_group(
    const std::string& group_id, const std::map<std::string, std::string>& records,
    const TopicView& topics, int32_t session_timeout_ms, int64_t now_ms) {
    int32_t group_epoch = 0;
    int32_t assignment_epoch = 0;
    std::map<std::string, ConsumerGroupMemberMetadataValue> metadata;
    std::map<std::string, ConsumerGroupCurrentAssignmentValue> current;
    std::map<std::string, Assignment> target;
    std::map<std::string, ConsumerGroupRegexValue> regexes;
    auto fail = [&](int16_t type, const protocol::DecodeError& e) {
        return unexpected("group " + group_id + ": unreadable record of type " +
                          std::to_string(type) + ": " + e.message);
    };
    for (const auto& [key_bytes, value_bytes] : records) {
        const auto key = record_bytes(key_bytes);
        const auto value = record_bytes(value_bytes);
        auto type = record_version(key);
        if (!type || !is_consumer_group_record(*type))
            continue;
        switch (*type) {
            case kConsumerGroupMetadataType:
            case kConsumerGroupTargetMetadataType: {
                auto v = decode_record<ConsumerGroupEpochValue>(value);
                if (!v)
                    return fail(*type, v.error());
                (*type == kConsumerGroupMetadataType ? group_epoch : assignment_epoch) = v->epoch;
                break;
            }
            case kConsumerGroupMemberMetadataType:
            case kConsumerGroupTargetMemberType:
            case kConsumerGroupCurrentAssignmentType: {
                auto k = decode_record<ConsumerGroupMemberKey>(key);
                if (!k)
                    return fail(*type, k.error());
                if (*type == kConsumerGroupMemberMetadataType) {
                    auto v = decode_record<ConsumerGroupMemberMetadataValue>(value);
                    if (!v)
                        return fail(*type, v.error());
                    metadata[k->member_id] = std::move(*v);
                } else if (*type == kConsumerGroupTargetMemberType) {
                    auto v = decode_record<ConsumerGroupTargetMemberValue>(value);
                    if (!v)
                        return fail(*type, v.error());
                    target[k->member_id] = assignment_by_name(v->topic_partitions, topics);
                } else {
                    auto v = decode_record<ConsumerGroupCurrentAssignmentValue>(value);
                    if (!v)
                        return fail(*type, v.error());
                    current[k->member_id] = std::move(*v);
                }
                break;
            }
            case kConsumerGroupRegexType: {
                auto k = decode_record<ConsumerGroupRegexKey>(key);
                if (!k)
                    return fail(*type, k.error());
                auto v = decode_record<ConsumerGroupRegexValue>(value);
                if (!v)
                    return fail(*type, v.error());
                regexes[k->regular_expression] = std::move(*v);
                break;
            }
            default:
                break;  // type 4 (partition metadata): not needed
        }
    }
    auto g = std::make_unique<ConsumerGroup>(group_id, storage::wall_clock_ms());
    g->group_epoch = group_epoch;
    g->assignment_epoch = assignment_epoch;
    for (auto& [member_id, meta] : metadata) {
        ConsumerMember m;
        m.member_id = member_id;
        m.instance_id = std::move(meta.instance_id);
        m.rack_id = std::move(meta.rack_id);
        m.client_id = std::move(meta.client_id);
        m.client_host = std::move(meta.client_host);
        m.subscribed_topic_names = std::move(meta.subscribed_topic_names);
        m.subscribed_topic_regex = std::move(meta.subscribed_topic_regex);
        m.rebalance_timeout_ms = meta.rebalance_timeout_ms;
        m.server_assignor = std::move(meta.server_assignor);
        if (meta.classic_member_metadata) {
            ClassicMembership c;
            c.session_timeout_ms = meta.classic_member_metadata->session_timeout_ms;
            for (auto& p : meta.classic_member_metadata->supported_protocols)
                c.protocols.emplace_back(std::move(p.name), std::move(p.metadata));
            m.classic = std::move(c);
        }
        if (auto c = current.find(member_id); c != current.end()) {
            m.member_epoch = c->second.member_epoch;
            m.previous_member_epoch = c->second.previous_member_epoch;
            m.state = state_of(c->second.state);
            m.assigned = assignment_by_name(c->second.assigned_partitions, topics);
            m.pending_revocation =
                assignment_by_name(c->second.partitions_pending_revocation, topics);
        }
        m.session_deadline_ms =
            now_ms + (m.classic ? m.classic->session_timeout_ms : session_timeout_ms);
        if (m.state == MemberState::unrevoked_partitions)
            m.revocation_deadline_ms = now_ms + m.rebalance_timeout_ms;
        if (auto t = target.find(member_id); t != target.end())
            g->target[member_id] = std::move(t->second);
        g->put(std::move(m));
    }
    for (auto& [pattern, v] : regexes) {
        auto compiled = TopicRegex::compile(pattern, nullptr);
        if (!compiled)
            continue;  // the next heartbeat with it answers INVALID_REGULAR_EXPRESSION
        auto& r = g->regexes[pattern];
        r.regex = std::move(compiled);
        r.topics.insert(v.topics.begin(), v.topics.end());
        r.topics_changed_wall_ms = v.timestamp;
        g->persisted_regexes[pattern] = v.timestamp;
    }
    for (const auto& name : g->subscribed_topic_names())
        if (auto n = topics.size ? topics.size(name) : std::nullopt)
            g->topic_sizes[name] = *n;
    g->persisted_group_epoch = group_epoch;
    g->persisted_assignment_epoch = assignment_epoch;
    g->changed_members().clear();
    return g;
}

}  // namespace skiff::broker::group::consumer
