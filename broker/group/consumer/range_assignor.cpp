// The range assignor: each topic is assigned on its own, in three steps (quotas, kept current
// partitions, ranges of the rest); see range_assignor.h for the rules.
#include "broker/group/consumer/range_assignor.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace skiff::broker::group::consumer {
namespace {

using assignor_detail::members_by_id;
using assignor_detail::subscribers_by_topic;
using assignor_detail::to_output;

// The number of partitions each subscriber (in id order) gets: the first P % N one more.
std::vector<int32_t> quotas(int32_t partition_count, size_t subscriber_count) {
    auto n = static_cast<int32_t>(subscriber_count);
    std::vector<int32_t> quota(subscriber_count, partition_count / n);
    for (int32_t i = 0; i < partition_count % n; ++i)
        ++quota[i];
    return quota;
}

// Keeps, for each subscriber, its lowest-numbered current partitions of the topic up to its quota
// (lowest first, as Kafka does, so co-partitioned topics keep the same numbers). A partition
// that is out of range, or already kept by an earlier member (a malformed input claiming it
// twice), is not kept. Marks the kept partitions in `held`.
std::vector<std::vector<int32_t>> keep_current(const std::vector<const AssignorMember*>& members,
                                               const std::vector<int>& subscribers,
                                               const std::string& topic,
                                               const std::vector<int32_t>& quota,
                                               std::vector<char>& held) {
    std::vector<std::vector<int32_t>> kept(subscribers.size());
    auto partition_count = static_cast<int32_t>(held.size());
    for (size_t s = 0; s < subscribers.size(); ++s) {
        const Assignment& current = members[subscribers[s]]->current;
        auto it = current.find(topic);
        if (it == current.end())
            continue;
        for (int32_t partition : it->second) {  // ascending
            if (static_cast<int32_t>(kept[s].size()) == quota[s])
                break;
            if (partition < 0 || partition >= partition_count || held[partition])
                continue;
            held[partition] = 1;
            kept[s].push_back(partition);
        }
    }
    return kept;
}

// Assigns one topic: the subscribers' partitions, in the order of `subscribers`.
std::vector<std::vector<int32_t>> assign_topic(const std::vector<const AssignorMember*>& members,
                                               const std::vector<int>& subscribers,
                                               const std::string& topic, int32_t partition_count) {
    std::vector<int32_t> quota = quotas(partition_count, subscribers.size());
    std::vector<char> held(partition_count, 0);
    std::vector<std::vector<int32_t>> assigned =
        keep_current(members, subscribers, topic, quota, held);
    // The quotas add up to P and the kept partitions are distinct, so the unheld partitions are
    // exactly what the quotas still miss; handing them out in ascending order, members in id
    // order, gives the classic contiguous ranges when nothing is kept.
    int32_t next = 0;
    for (size_t s = 0; s < subscribers.size(); ++s) {
        while (static_cast<int32_t>(assigned[s].size()) < quota[s]) {
            while (held[next])
                ++next;
            held[next] = 1;
            assigned[s].push_back(next);
        }
    }
    return assigned;
}

}  // namespace

AssignorOutput RangeAssignor::assign(const AssignorInput& input) const {
    std::vector<const AssignorMember*> members = members_by_id(input);
    std::vector<Assignment> assignments(members.size());
    for (const auto& [topic, subscribers] : subscribers_by_topic(members, input.topics)) {
        std::vector<std::vector<int32_t>> assigned =
            assign_topic(members, subscribers, topic, input.topics.at(topic));
        for (size_t s = 0; s < subscribers.size(); ++s) {
            if (assigned[s].empty())
                continue;  // more subscribers than partitions: no empty entry for this topic
            assignments[subscribers[s]][topic].insert(assigned[s].begin(), assigned[s].end());
        }
    }
    return to_output(members, std::move(assignments));
}

}  // namespace skiff::broker::group::consumer
