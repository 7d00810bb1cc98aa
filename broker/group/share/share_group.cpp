#include "broker/group/share/share_group.h"

namespace skiff::broker::group::share {

using protocol::ErrorCode;

const ShareMember* ShareGroup::member(const std::string& member_id) const {
    auto it = members_.find(member_id);
    return it == members_.end() ? nullptr : &it->second;
}

void ShareGroup::put(ShareMember m) {
    changed_members_.insert(m.member_id);
    auto it = members_.find(m.member_id);
    if (it != members_.end())
        for (const auto& t : it->second.subscribed_topic_names)
            if (--name_refs_[t] == 0)
                name_refs_.erase(t);
    for (const auto& t : m.subscribed_topic_names)
        ++name_refs_[t];
    std::string id = m.member_id;
    members_.insert_or_assign(std::move(id), std::move(m));
}

bool ShareGroup::remove(const std::string& member_id, int64_t now_wall_ms) {
    auto it = members_.find(member_id);
    if (it == members_.end())
        return false;
    for (const auto& t : it->second.subscribed_topic_names)
        if (--name_refs_[t] == 0)
            name_refs_.erase(t);
    members_.erase(it);
    target.erase(member_id);
    changed_members_.insert(member_id);
    if (members_.empty())
        empty_since_wall_ms_ = now_wall_ms;
    return true;
}

std::set<std::string> ShareGroup::subscribed_topic_names() const {
    std::set<std::string> out;
    for (const auto& [name, n] : name_refs_)
        out.insert(name);
    return out;
}

const char* ShareGroup::state() const {
    if (dead)
        return "Dead";
    return members_.empty() ? "Empty" : "Stable";
}

protocol::ListedGroup ShareGroup::listed() const {
    return {group_id(), "share", state(), std::string(type_name(kType))};
}

// DescribeGroups is the classic protocol's: Kafka answers it for a share group as for a consumer
// group, GROUP_ID_NOT_FOUND (ShareGroupDescribe is the one for these groups).
protocol::DescribedGroup ShareGroup::described() const {
    protocol::DescribedGroup d;
    d.group_id = group_id();
    d.error_code = ErrorCode::group_id_not_found;
    d.error_message = "Group " + group_id() + " is not a classic group.";
    d.group_state = "Dead";
    return d;
}

std::optional<int64_t> ShareGroup::empty_since() const {
    if (!members_.empty())
        return std::nullopt;
    return empty_since_wall_ms_;
}

// A share group has no committed offsets (its progress is each share-partition's start offset,
// in __share_group_state): Kafka refuses OffsetCommit and TxnOffsetCommit for it with
// GROUP_ID_NOT_FOUND, the group not being one that commits.
ErrorCode ShareGroup::validate_offset_commit(int32_t, const std::string&,
                                             const std::optional<std::string>&, bool, int16_t,
                                             int64_t) {
    return ErrorCode::group_id_not_found;
}

ErrorCode ShareGroup::validate_delete() const {
    return members_.empty() ? ErrorCode::none : ErrorCode::non_empty_group;
}

ErrorCode ShareGroup::validate_offset_delete() const {
    return ErrorCode::group_id_not_found;
}

}  // namespace skiff::broker::group::share
