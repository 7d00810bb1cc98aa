#include "broker/group/share/share_records.h"

#include "storage/log_config.h"

namespace skiff::broker::group::share {
namespace {

using consumer::assignment_by_id;
using consumer::assignment_by_name;
using consumer::ConsumerGroupEpochValue;
using consumer::ConsumerGroupKey;
using consumer::ConsumerGroupMemberKey;
using consumer::ConsumerGroupTargetMemberValue;
using consumer::group_record_key;
using consumer::member_record_key;
using consumer::RecordTopicPartitions;

constexpr int16_t kValueVersion = 0;

std::string target_value(const ShareGroup& g, const std::string& member_id,
                         const TopicView& topics) {
    ConsumerGroupTargetMemberValue target;
    if (auto t = g.target.find(member_id); t != g.target.end())
        target.topic_partitions = assignment_by_id(t->second, topics);
    return encode_record(target, kValueVersion);
}

void member_records(const ShareGroup& g, const std::string& member_id, GroupRecords& out,
                    const TopicView& topics, bool with_target) {
    const std::string& id = g.group_id();
    const ShareMember* m = g.member(member_id);
    if (!m) {
        for (int16_t type : {kShareGroupCurrentAssignmentType, kShareGroupTargetMemberType,
                             kShareGroupMemberMetadataType})
            out.push_back({member_record_key(id, member_id, type), std::nullopt});
        return;
    }
    ShareGroupMemberMetadataValue meta;
    meta.rack_id = m->rack_id;
    meta.client_id = m->client_id;
    meta.client_host = m->client_host;
    meta.subscribed_topic_names = m->subscribed_topic_names;
    out.push_back({member_record_key(id, member_id, kShareGroupMemberMetadataType),
                   encode_record(meta, kValueVersion)});
    if (with_target)
        out.push_back({member_record_key(id, member_id, kShareGroupTargetMemberType),
                       target_value(g, member_id, topics)});
    ShareGroupCurrentAssignmentValue current;
    current.member_epoch = m->member_epoch;
    current.previous_member_epoch = m->previous_member_epoch;
    current.assigned_partitions = assignment_by_id(m->assigned, topics);
    out.push_back({member_record_key(id, member_id, kShareGroupCurrentAssignmentType),
                   encode_record(current, kValueVersion)});
}

}  // namespace

bool is_share_group_record(int16_t key_version) {
    return key_version >= 9 && key_version <= 15;
}

void take_share_changes(ShareGroup& g, GroupRecords& out, const TopicView& topics,
                        bool everything) {
    const std::string& id = g.group_id();
    std::set<std::string> changed;
    changed.swap(g.changed_members());
    if (everything)
        for (const auto& [member_id, m] : g.members())
            changed.insert(member_id);
    const bool targets = everything || g.assignment_epoch != g.persisted_assignment_epoch;
    for (const auto& member_id : changed)
        member_records(g, member_id, out, topics, !targets || !g.member(member_id));
    if (targets) {
        for (const auto& [member_id, m] : g.members())
            out.push_back({member_record_key(id, member_id, kShareGroupTargetMemberType),
                           target_value(g, member_id, topics)});
        out.push_back({group_record_key(id, kShareGroupTargetMetadataType),
                       encode_record(ConsumerGroupEpochValue{g.assignment_epoch}, kValueVersion)});
        g.persisted_assignment_epoch = g.assignment_epoch;
    }
    if (everything || g.group_epoch != g.persisted_group_epoch) {
        out.push_back({group_record_key(id, kShareGroupMetadataType),
                       encode_record(ConsumerGroupEpochValue{g.group_epoch}, kValueVersion)});
        g.persisted_group_epoch = g.group_epoch;
    }
}

void ShareGroup::take_records(GroupRecords& out, const TopicView& topics, bool everything) {
    take_share_changes(*this, out, topics, everything);
}

Expected<std::unique_ptr<ShareGroup>, std::string> restore_share_group(
    const std::string& group_id, const std::map<std::string, std::string>& records,
    const TopicView& topics, int32_t session_timeout_ms, int64_t now_ms) {
    int32_t group_epoch = 0;
    int32_t assignment_epoch = 0;
    std::map<std::string, ShareGroupMemberMetadataValue> metadata;
    std::map<std::string, ShareGroupCurrentAssignmentValue> current;
    std::map<std::string, Assignment> target;
    auto fail = [&](int16_t type, const protocol::DecodeError& e) {
        return unexpected("share group " + group_id + ": unreadable record of type " +
                          std::to_string(type) + ": " + e.message);
    };
    for (const auto& [key_bytes, value_bytes] : records) {
        const auto key = record_bytes(key_bytes);
        const auto value = record_bytes(value_bytes);
        auto type = record_version(key);
        if (!type)
            continue;
        switch (*type) {
            case kShareGroupMetadataType:
            case kShareGroupTargetMetadataType: {
                auto v = decode_record<ConsumerGroupEpochValue>(value);
                if (!v)
                    return fail(*type, v.error());
                (*type == kShareGroupMetadataType ? group_epoch : assignment_epoch) = v->epoch;
                break;
            }
            case kShareGroupMemberMetadataType:
            case kShareGroupTargetMemberType:
            case kShareGroupCurrentAssignmentType: {
                auto k = decode_record<ConsumerGroupMemberKey>(key);
                if (!k)
                    return fail(*type, k.error());
                if (*type == kShareGroupMemberMetadataType) {
                    auto v = decode_record<ShareGroupMemberMetadataValue>(value);
                    if (!v)
                        return fail(*type, v.error());
                    metadata[k->member_id] = std::move(*v);
                } else if (*type == kShareGroupTargetMemberType) {
                    auto v = decode_record<ConsumerGroupTargetMemberValue>(value);
                    if (!v)
                        return fail(*type, v.error());
                    target[k->member_id] = assignment_by_name(v->topic_partitions, topics);
                } else {
                    auto v = decode_record<ShareGroupCurrentAssignmentValue>(value);
                    if (!v)
                        return fail(*type, v.error());
                    current[k->member_id] = std::move(*v);
                }
                break;
            }
            default:
                break;
        }
    }
    auto g = std::make_unique<ShareGroup>(group_id, storage::wall_clock_ms());
    g->group_epoch = group_epoch;
    g->assignment_epoch = assignment_epoch;
    for (auto& [member_id, meta] : metadata) {
        ShareMember m;
        m.member_id = member_id;
        m.rack_id = std::move(meta.rack_id);
        m.client_id = std::move(meta.client_id);
        m.client_host = std::move(meta.client_host);
        m.subscribed_topic_names = std::move(meta.subscribed_topic_names);
        if (auto c = current.find(member_id); c != current.end()) {
            m.member_epoch = c->second.member_epoch;
            m.previous_member_epoch = c->second.previous_member_epoch;
            m.assigned = assignment_by_name(c->second.assigned_partitions, topics);
        }
        m.session_deadline_ms = now_ms + session_timeout_ms;
        if (auto t = target.find(member_id); t != target.end())
            g->target[member_id] = std::move(t->second);
        g->put(std::move(m));
    }
    for (const auto& name : g->subscribed_topic_names())
        if (auto n = topics.size ? topics.size(name) : std::nullopt)
            g->topic_sizes[name] = *n;
    g->persisted_group_epoch = group_epoch;
    g->persisted_assignment_epoch = assignment_epoch;
    g->changed_members().clear();
    return g;
}

}  // namespace skiff::broker::group::share
