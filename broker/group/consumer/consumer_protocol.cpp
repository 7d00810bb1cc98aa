#include "broker/group/consumer/consumer_protocol.h"

#include <algorithm>
#include <map>

#include "broker/group/consumer/reconciliation.h"
#include "storage/log_config.h"

namespace skiff::broker::group::consumer {

using protocol::ErrorCode;

namespace {

HeartbeatResult failure(ErrorCode error, std::string message) {
    HeartbeatResult r;
    r.error = error;
    r.error_message = std::move(message);
    return r;
}

std::vector<std::string> sorted_unique(std::vector<std::string> names) {
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
}

}  // namespace

ConsumerProtocol::ConsumerProtocol(ConsumerConfig config, GroupRegistry& groups, Clock now)
    : config_(std::move(config)), groups_(groups), now_(std::move(now)) {}

// Kafka's throwIfConsumerGroupHeartbeatRequestIsInvalid, and the assignor check.
std::optional<HeartbeatResult> ConsumerProtocol::invalid(const HeartbeatParams& p) const {
    if (p.group_id.empty())
        return failure(ErrorCode::invalid_request, "GroupId can't be empty.");
    if (p.instance_id && p.instance_id->empty())
        return failure(ErrorCode::invalid_request, "InstanceId can't be empty.");
    if (p.rack_id && p.rack_id->empty())
        return failure(ErrorCode::invalid_request, "RackId can't be empty.");
    // v1 (KIP-1082): the client generates its member id before it joins.
    if (p.member_id.empty() && (p.api_version >= 1 || p.member_epoch != 0))
        return failure(ErrorCode::invalid_request, "MemberId can't be empty.");
    if (p.member_epoch < kLeaveGroupStaticEpoch)
        return failure(ErrorCode::invalid_request, "MemberEpoch is invalid.");
    if (p.member_epoch == kLeaveGroupStaticEpoch && !p.instance_id)
        return failure(ErrorCode::invalid_request, "InstanceId can't be null.");
    if (p.member_epoch == 0) {
        if (p.rebalance_timeout_ms == -1)
            return failure(ErrorCode::invalid_request,
                           "RebalanceTimeoutMs must be provided in first request.");
        if (!p.owned || !p.owned->empty())
            return failure(ErrorCode::invalid_request,
                           "TopicPartitions must be empty when (re-)joining.");
        if (!p.subscribed_topic_names && !p.subscribed_topic_regex)
            return failure(ErrorCode::invalid_request,
                           "SubscribedTopicNames or SubscribedTopicRegex must be set in first "
                           "request.");
    }
    // An empty pattern is no pattern: librdkafka 2.15 sends "" with a subscription by names
    // (to clear a regular expression it had), as Kafka accepts.
    if (p.subscribed_topic_regex && !p.subscribed_topic_regex->empty()) {
        std::string error;
        if (!TopicRegex::compile(*p.subscribed_topic_regex, &error))
            return failure(ErrorCode::invalid_regular_expression,
                           "SubscribedTopicRegex `" + *p.subscribed_topic_regex +
                               "` is not a valid regular expression: " + error + ".");
    }
    if (p.server_assignor && std::find(config_.assignors.begin(), config_.assignors.end(),
                                       *p.server_assignor) == config_.assignors.end())
        return failure(ErrorCode::unsupported_assignor,
                       "ServerAssignor " + *p.server_assignor + " is not supported.");
    return std::nullopt;
}

std::string ConsumerProtocol::new_member_id() {
    // Kafka's form: a random UUID in base64url (22 characters).
    static constexpr char kAlphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    std::string id;
    for (int i = 0; i < 22; ++i)
        id += kAlphabet[random_() % 64];
    return id;
}

void ConsumerProtocol::remove_member(ConsumerGroup& g, const std::string& member_id) {
    if (g.remove(member_id, storage::wall_clock_ms()))
        ++g.group_epoch;
}

HeartbeatResult ConsumerProtocol::leave(ConsumerGroup& g, const HeartbeatParams& p) {
    const ConsumerMember* m = g.member(p.member_id);
    if (!m)
        return failure(ErrorCode::unknown_member_id,
                       "Member " + p.member_id + " is not a member of group " + p.group_id + ".");
    HeartbeatResult r;
    r.member_id = p.member_id;
    r.member_epoch = p.member_epoch;
    if (p.member_epoch == kLeaveGroupStaticEpoch) {
        // It keeps its place and partitions until its session ends or it comes back.
        ConsumerMember left = *m;
        left.member_epoch = kLeaveGroupStaticEpoch;
        g.put(std::move(left));
        return r;
    }
    remove_member(g, p.member_id);
    return r;
}

ConsumerProtocol::Found ConsumerProtocol::find_member(ConsumerGroup& g, const HeartbeatParams& p) {
    Found f;
    const ConsumerMember* existing = g.member(p.member_id);
    if (p.member_epoch == 0) {
        if (p.instance_id) {
            auto s = g.static_members.find(*p.instance_id);
            if (s != g.static_members.end() && s->second != p.member_id) {
                const ConsumerMember* old = g.member(s->second);
                if (old && old->member_epoch != kLeaveGroupStaticEpoch) {
                    f.error = failure(ErrorCode::unreleased_instance_id,
                                      "Static member " + old->member_id + " with instance id " +
                                          *p.instance_id + " is still active.");
                    return f;
                }
                // A static member back after a restart: it takes its old place, epoch and
                // partitions (KIP-345), without a new group epoch.
                ConsumerMember replaced = old ? *old : ConsumerMember{};
                const std::string old_id = s->second;
                Assignment target = g.target.count(old_id) > 0 ? g.target[old_id] : Assignment{};
                g.remove(old_id, storage::wall_clock_ms());
                replaced.member_id = p.member_id.empty() ? new_member_id() : p.member_id;
                replaced.instance_id = p.instance_id;
                if (replaced.member_epoch == kLeaveGroupStaticEpoch)
                    replaced.member_epoch = replaced.previous_member_epoch;
                g.target[replaced.member_id] = std::move(target);
                f.member = std::move(replaced);
                return f;
            }
        }
        if (existing) {
            // The same member joining again (it lost its state): it starts from epoch 0 and is
            // given its assignment again.
            f.member = *existing;
            f.member.member_epoch = 0;
            f.member.previous_member_epoch = 0;
            f.member.state = MemberState::stable;
            return f;
        }
        if (static_cast<int64_t>(g.members().size()) >= config_.max_size) {
            f.error = failure(ErrorCode::group_max_size_reached,
                              "The consumer group has reached its maximum capacity of " +
                                  std::to_string(config_.max_size) + " members.");
            return f;
        }
        f.member.member_id = p.member_id.empty() ? new_member_id() : p.member_id;
        f.member.instance_id = p.instance_id;
        f.is_new = true;
        return f;
    }
    if (!existing) {
        f.error =
            failure(ErrorCode::unknown_member_id,
                    "Member " + p.member_id + " is not a member of group " + p.group_id + ".");
        return f;
    }
    if (p.instance_id && existing->instance_id != p.instance_id) {
        f.error =
            failure(ErrorCode::fenced_instance_id,
                    "Instance id " + *p.instance_id + " is not member " + p.member_id + "'s.");
        return f;
    }
    // Kafka's throwIfMemberEpochIsInvalid: the previous epoch is accepted from a member that
    // owns no more than its assignment (the response that moved it on may have been lost).
    if (p.member_epoch > existing->member_epoch ||
        (p.member_epoch < existing->member_epoch &&
         (p.member_epoch != existing->previous_member_epoch || !p.owned ||
          !is_subset(*p.owned, existing->assigned)))) {
        f.error = failure(ErrorCode::fenced_member_epoch,
                          "The consumer group member has a member epoch (" +
                              std::to_string(p.member_epoch) +
                              ") other than the one known by the "
                              "group coordinator (" +
                              std::to_string(existing->member_epoch) +
                              "). The member must abandon all its partitions and rejoin.");
        return f;
    }
    f.member = *existing;
    return f;
}

void ConsumerProtocol::maybe_bump(ConsumerGroup& g, bool changed, const TopicView& topics) {
    std::map<std::string, int32_t> sizes;
    for (const auto& name : g.subscribed_topic_names())
        if (auto n = topics.size(name))
            sizes[name] = *n;
    if (changed || sizes != g.topic_sizes) {
        ++g.group_epoch;
        g.topic_sizes = std::move(sizes);
    }
}

// The assignor most members ask for (ties: the order of group.consumer.assignors), else the
// first of group.consumer.assignors.
std::string ConsumerProtocol::choose_assignor(const ConsumerGroup& g) const {
    std::map<std::string, int> votes;
    for (const auto& [id, m] : g.members())
        if (m.server_assignor)
            ++votes[*m.server_assignor];
    std::string best = config_.assignors.front();
    int best_votes = 0;
    for (const auto& name : config_.assignors)
        if (auto it = votes.find(name); it != votes.end() && it->second > best_votes) {
            best = name;
            best_votes = it->second;
        }
    return best;
}

void ConsumerProtocol::compute_target(ConsumerGroup& g) {
    const std::string name = choose_assignor(g);
    const Assignor* assignor = find_assignor(name);
    AssignorInput input;
    input.topics = g.topic_sizes;
    for (const auto& [id, m] : g.members()) {
        AssignorMember am;
        am.member_id = id;
        am.instance_id = m.instance_id;
        am.rack_id = m.rack_id;
        am.subscribed_topics = g.subscription_of(m);
        if (auto t = g.target.find(id); t != g.target.end())
            am.current = t->second;
        input.members.push_back(std::move(am));
    }
    AssignorOutput output = assignor ? assignor->assign(input) : AssignorOutput{};
    g.target.clear();
    for (auto& [id, a] : output)
        g.target[id] = std::move(a);
    g.assignment_epoch = g.group_epoch;
    g.assignor_name = name;
}

HeartbeatResult ConsumerProtocol::heartbeat(const HeartbeatParams& p, const TopicView& topics) {
    if (auto bad = invalid(p))
        return *bad;
    Group* any = groups_.find(p.group_id);
    auto* g = groups_.find_as<ConsumerGroup>(p.group_id);
    if (any && !g) {
        // An empty classic group (one that only has offsets) becomes a consumer group, its
        // offsets kept. One with members the coordinator upgraded already if it could
        // (migration.h): group.consumer.migration.policy or its protocol type forbade it.
        if (p.member_epoch != 0 || !any->is_empty() || any->type() != GroupType::classic)
            return failure(ErrorCode::group_id_not_found,
                           "Group " + p.group_id + " is not a consumer group.");
        groups_.erase(p.group_id);
        any = nullptr;
    }
    if (!g) {
        if (p.member_epoch != 0)
            return failure(ErrorCode::unknown_member_id,
                           "Consumer group " + p.group_id + " not found.");
        g = &groups_.add(std::make_unique<ConsumerGroup>(p.group_id, storage::wall_clock_ms()));
    }
    if (p.member_epoch == kLeaveGroupEpoch || p.member_epoch == kLeaveGroupStaticEpoch)
        return leave(*g, p);

    const int64_t now = now_();
    // The pattern the member asks for: nullopt unchanged, "" none.
    const std::optional<std::string>& asked = p.subscribed_topic_regex;
    const std::optional<std::string> pattern =
        asked && !asked->empty() ? asked : std::optional<std::string>();
    if (auto bad = refresh_regexes(*g, pattern, topics, now))
        return *bad;
    Found found = find_member(*g, p);
    if (found.error)
        return *found.error;
    ConsumerMember m = std::move(found.member);
    const Assignment assigned_before = m.assigned;
    bool changed = found.is_new;
    if (p.subscribed_topic_names) {
        auto names = sorted_unique(*p.subscribed_topic_names);
        changed = changed || names != m.subscribed_topic_names;
        m.subscribed_topic_names = std::move(names);
    }
    if (asked && pattern != m.subscribed_topic_regex) {
        m.subscribed_topic_regex = pattern;
        changed = true;
    }
    if (p.server_assignor && p.server_assignor != m.server_assignor) {
        m.server_assignor = p.server_assignor;
        changed = true;
    }
    if (p.rebalance_timeout_ms != -1)
        m.rebalance_timeout_ms = p.rebalance_timeout_ms;
    if (p.rack_id)
        m.rack_id = p.rack_id;
    m.client_id = p.client_id;
    m.client_host = p.client_host;
    m.session_deadline_ms = now + p.session_timeout_ms.value_or(config_.session_timeout_ms);
    g->put(m);  // the subscription counts in the bump below

    maybe_bump(*g, changed, topics);
    if (g->group_epoch > g->assignment_epoch)
        compute_target(*g);

    const MemberState state_before = m.state;
    const auto target = g->target.find(m.member_id);
    m = reconcile(m, g->assignment_epoch, target == g->target.end() ? Assignment{} : target->second,
                  p.owned, [&](const std::string& topic, int32_t partition, const std::string& id) {
                      return g->owned_elsewhere(topic, partition, id);
                  });
    if (m.state == MemberState::unrevoked_partitions &&
        state_before != MemberState::unrevoked_partitions)
        m.revocation_deadline_ms = now + m.rebalance_timeout_ms;
    g->put(m);

    HeartbeatResult r;
    r.member_id = m.member_id;
    r.member_epoch = m.member_epoch;
    r.heartbeat_interval_ms = p.heartbeat_interval_ms.value_or(config_.heartbeat_interval_ms);
    const bool full_request =
        p.member_epoch == 0 || (p.rebalance_timeout_ms != -1 &&
                                (p.subscribed_topic_names || p.subscribed_topic_regex) && p.owned);
    if (full_request || m.assigned != assigned_before)
        r.assignment = m.assigned;
    return r;
}

std::optional<HeartbeatResult> ConsumerProtocol::refresh_regexes(
    ConsumerGroup& g, const std::optional<std::string>& pattern, const TopicView& topics,
    int64_t now) {
    // Patterns no member uses go first: Kafka deletes a pattern with its last user, so one asked
    // for again after its members left (librdkafka's unsubscribe is a leave) is new again.
    std::erase_if(g.regexes,
                  [&](const auto& entry) { return g.regex_users().count(entry.first) == 0; });
    // A pattern new to the group matches nothing in the heartbeat that brings it: Kafka resolves
    // it off the request path, so that heartbeat's assignment has the literal topics only and a
    // later one the pattern's (librdkafka's 0045 expects that order).
    const ConsumerGroup::ResolvedRegex* added = nullptr;
    if (pattern && g.regexes.count(*pattern) == 0) {
        std::string error;
        auto regex = TopicRegex::compile(*pattern, &error);
        if (!regex)
            return failure(ErrorCode::invalid_regular_expression, "SubscribedTopicRegex `" +
                                                                      *pattern +
                                                                      "` is not a valid regular "
                                                                      "expression: " +
                                                                      error + ".");
        added = &(g.regexes[*pattern] = {std::move(regex), {}, 0, 0});
    }
    std::optional<std::vector<std::string>> names;  // listed once, when a pattern needs it
    for (auto& entry : g.regexes) {
        auto& r = entry.second;
        if (&r == added || (r.resolved_ms != 0 && now - r.resolved_ms < kRegexRefreshMs))
            continue;
        if (!names)
            names = topics.names();
        auto topics_now = r.regex->resolve(*names);
        if (topics_now != r.topics || r.topics_changed_wall_ms == 0) {
            r.topics = std::move(topics_now);
            r.topics_changed_wall_ms = storage::wall_clock_ms();
        }
        r.resolved_ms = now;
    }
    return std::nullopt;
}

DescribedConsumerGroup ConsumerProtocol::describe(const std::string& group_id) const {
    DescribedConsumerGroup d;
    d.group_id = group_id;
    const auto* g = groups_.find_as<ConsumerGroup>(group_id);
    if (!g || g->is_dead()) {
        d.error = ErrorCode::group_id_not_found;
        d.error_message = groups_.contains(group_id)
                              ? "Group " + group_id + " is not a consumer group."
                              : "Group " + group_id + " not found.";
        d.state = "Dead";
        return d;
    }
    d.state = g->state();
    d.group_epoch = g->group_epoch;
    d.assignment_epoch = g->assignment_epoch;
    d.assignor_name = g->assignor_name.empty() ? config_.assignors.front() : g->assignor_name;
    for (const auto& [id, m] : g->members()) {
        DescribedMember dm{m, {}};
        if (auto t = g->target.find(id); t != g->target.end())
            dm.target = t->second;
        d.members.push_back(std::move(dm));
    }
    return d;
}

void ConsumerProtocol::tick(int64_t now_ms) {
    groups_.for_each_of<ConsumerGroup>([&](ConsumerGroup& g) {
        std::vector<std::string> expired;
        auto passed = [now_ms](int64_t deadline) { return deadline != 0 && now_ms > deadline; };
        for (const auto& [id, m] : g.members())
            if (now_ms > m.session_deadline_ms ||
                (m.state == MemberState::unrevoked_partitions &&
                 now_ms > m.revocation_deadline_ms) ||
                passed(m.classic_sync_deadline_ms) || passed(m.classic_join_deadline_ms))
                expired.push_back(id);
        for (const auto& id : expired)
            remove_member(g, id);
    });
}

}  // namespace skiff::broker::group::consumer
