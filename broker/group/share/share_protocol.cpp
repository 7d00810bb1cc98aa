#include "broker/group/share/share_protocol.h"

#include <algorithm>

#include "broker/group/share/simple_assignor.h"
#include "storage/log_config.h"

namespace skiff::broker::group::share {

using protocol::ErrorCode;

namespace {

HeartbeatResult failure(ErrorCode error, std::string message) {
    HeartbeatResult r;
    r.error = error;
    r.error_message = std::move(message);
    return r;
}

// Kafka's throwIfShareGroupHeartbeatRequestIsInvalid.
std::optional<HeartbeatResult> invalid(const HeartbeatParams& p) {
    if (p.group_id.empty())
        return failure(ErrorCode::invalid_request, "GroupId can't be empty.");
    if (p.member_id.empty())
        return failure(ErrorCode::invalid_request, "MemberId can't be empty.");
    if (p.rack_id && p.rack_id->empty())
        return failure(ErrorCode::invalid_request, "RackId can't be empty.");
    if (p.member_epoch < kLeaveGroupEpoch)
        return failure(ErrorCode::invalid_request, "MemberEpoch is invalid.");
    if (p.member_epoch == 0 && (!p.subscribed_topic_names || p.subscribed_topic_names->empty()))
        return failure(ErrorCode::invalid_request,
                       "SubscribedTopicNames must be set in first request.");
    return std::nullopt;
}

std::vector<std::string> sorted_unique(std::vector<std::string> names) {
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
}

}  // namespace

ShareProtocol::ShareProtocol(ShareConfig config, GroupRegistry& groups, Clock now)
    : config_(config), groups_(groups), now_(std::move(now)) {}

void ShareProtocol::remove_member(ShareGroup& g, const std::string& member_id) {
    if (g.remove(member_id, storage::wall_clock_ms()))
        ++g.group_epoch;
}

void ShareProtocol::maybe_bump(ShareGroup& g, bool changed, const TopicView& topics) {
    std::map<std::string, int32_t> sizes;
    for (const auto& name : g.subscribed_topic_names())
        if (auto n = topics.size ? topics.size(name) : std::nullopt)
            sizes[name] = *n;
    if (changed || sizes != g.topic_sizes) {
        ++g.group_epoch;
        g.topic_sizes = std::move(sizes);
    }
}

void ShareProtocol::compute_target(ShareGroup& g) {
    std::map<std::string, SimpleAssignorMember> input;
    for (const auto& [id, m] : g.members()) {
        SimpleAssignorMember am;
        am.subscribed_topics.insert(m.subscribed_topic_names.begin(),
                                    m.subscribed_topic_names.end());
        if (auto t = g.target.find(id); t != g.target.end())
            am.current = t->second;
        input.emplace(id, std::move(am));
    }
    g.target = simple_assign(input, g.topic_sizes);
    g.assignment_epoch = g.group_epoch;
}

HeartbeatResult ShareProtocol::heartbeat(const HeartbeatParams& p, const TopicView& topics) {
    if (auto bad = invalid(p))
        return *bad;
    if (groups_.find(p.group_id) && !groups_.find_as<ShareGroup>(p.group_id))
        return failure(ErrorCode::group_id_not_found,
                       "Group " + p.group_id + " is not a share group.");
    auto* g = groups_.find_as<ShareGroup>(p.group_id);
    if (g && g->is_dead())
        return failure(ErrorCode::group_id_not_found, "Group " + p.group_id + " is being deleted.");
    if (!g) {
        if (p.member_epoch != 0)
            return failure(ErrorCode::unknown_member_id,
                           "Share group " + p.group_id + " not found.");
        g = &groups_.add(std::make_unique<ShareGroup>(p.group_id, storage::wall_clock_ms()));
    }
    const ShareMember* existing = g->member(p.member_id);
    if (p.member_epoch == kLeaveGroupEpoch) {
        if (!existing)
            return failure(
                ErrorCode::unknown_member_id,
                "Member " + p.member_id + " is not a member of group " + p.group_id + ".");
        remove_member(*g, p.member_id);
        HeartbeatResult r;
        r.member_id = p.member_id;
        r.member_epoch = kLeaveGroupEpoch;
        r.left = true;
        return r;
    }
    ShareMember m;
    bool changed = false;
    if (p.member_epoch == 0) {
        if (existing) {
            // The same member joining again (it lost its state): it starts over at epoch 0 and
            // is given its assignment again.
            m = *existing;
        } else {
            if (static_cast<int64_t>(g->members().size()) >= config_.max_size)
                return failure(ErrorCode::group_max_size_reached,
                               "The share group has reached its maximum capacity of " +
                                   std::to_string(config_.max_size) + " members.");
            m.member_id = p.member_id;
            changed = true;
        }
        m.member_epoch = 0;
        m.previous_member_epoch = 0;
    } else {
        if (!existing)
            return failure(
                ErrorCode::unknown_member_id,
                "Member " + p.member_id + " is not a member of group " + p.group_id + ".");
        // Kafka's throwIfMemberEpochIsInvalid for share groups: only the member's epoch (a
        // share member never owns partitions another waits for, so the previous epoch gives
        // nothing to accept).
        if (p.member_epoch != existing->member_epoch)
            return failure(ErrorCode::fenced_member_epoch,
                           "The share group member has a member epoch (" +
                               std::to_string(p.member_epoch) +
                               ") other than the one known by the group coordinator (" +
                               std::to_string(existing->member_epoch) +
                               "). The member must abandon all its partitions and rejoin.");
        m = *existing;
    }
    const Assignment assigned_before = m.assigned;
    const int32_t epoch_before = m.member_epoch;
    if (p.subscribed_topic_names) {
        auto names = sorted_unique(*p.subscribed_topic_names);
        changed = changed || names != m.subscribed_topic_names;
        m.subscribed_topic_names = std::move(names);
    }
    if (p.rack_id)
        m.rack_id = p.rack_id;
    m.client_id = p.client_id;
    m.client_host = p.client_host;
    m.session_deadline_ms = now_() + p.session_timeout_ms.value_or(config_.session_timeout_ms);
    g->put(m);

    maybe_bump(*g, changed, topics);
    if (g->group_epoch > g->assignment_epoch)
        compute_target(*g);
    // No revocation in share groups: the member takes its target at the assignment epoch.
    if (m.member_epoch != g->assignment_epoch) {
        m.previous_member_epoch = m.member_epoch;
        m.member_epoch = g->assignment_epoch;
    }
    auto t = g->target.find(m.member_id);
    m.assigned = t == g->target.end() ? Assignment{} : t->second;
    if (m.member_epoch != epoch_before || m.assigned != assigned_before)
        g->put(m);

    HeartbeatResult r;
    r.member_id = m.member_id;
    r.member_epoch = m.member_epoch;
    r.heartbeat_interval_ms = p.heartbeat_interval_ms.value_or(config_.heartbeat_interval_ms);
    if (p.member_epoch == 0 || m.assigned != assigned_before)
        r.assignment = m.assigned;
    return r;
}

DescribedShareGroup ShareProtocol::describe(const std::string& group_id) const {
    DescribedShareGroup d;
    d.group_id = group_id;
    const auto* g = groups_.find_as<ShareGroup>(group_id);
    if (!g || g->is_dead()) {
        d.error = ErrorCode::group_id_not_found;
        d.error_message = groups_.contains(group_id)
                              ? "Group " + group_id + " is not a share group."
                              : "Group " + group_id + " not found.";
        d.state = "Dead";
        return d;
    }
    d.state = g->state();
    d.group_epoch = g->group_epoch;
    d.assignment_epoch = g->assignment_epoch;
    for (const auto& [id, m] : g->members())
        d.members.push_back(m);
    return d;
}

void ShareProtocol::tick(int64_t now_ms,
                         std::vector<std::pair<std::string, std::string>>& expired) {
    groups_.for_each_of<ShareGroup>([&](ShareGroup& g) {
        std::vector<std::string> gone;
        for (const auto& [id, m] : g.members())
            if (now_ms > m.session_deadline_ms)
                gone.push_back(id);
        for (const auto& id : gone) {
            remove_member(g, id);
            expired.emplace_back(g.group_id(), id);
        }
    });
}

}  // namespace skiff::broker::group::share
