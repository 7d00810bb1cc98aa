#include "broker/group/share/simple_assignor.h"

#include <vector>

namespace skiff::broker::group::share {

namespace {

// One topic among its subscribers (in member id order).
void assign_topic(const std::string& topic, int32_t partitions,
                  const std::vector<std::string>& subscribers,
                  const std::map<std::string, SimpleAssignorMember>& members,
                  std::map<std::string, consumer::Assignment>& out) {
    const auto m = static_cast<int64_t>(subscribers.size());
    if (m == 0 || partitions <= 0)
        return;
    const int64_t sharing = (m + partitions - 1) / partitions;  // members per partition
    const int64_t slots = sharing * partitions;
    std::vector<int64_t> desired(subscribers.size(), slots / m);
    for (int64_t i = 0; i < slots % m; ++i)
        ++desired[i];
    std::vector<std::set<size_t>> holders(partitions);
    std::vector<int64_t> count(subscribers.size(), 0);
    // Keep what each member had, within its desired count and the partition's sharing.
    for (size_t i = 0; i < subscribers.size(); ++i) {
        const auto& current = members.at(subscribers[i]).current;
        auto it = current.find(topic);
        if (it == current.end())
            continue;
        for (int32_t p : it->second) {
            if (p < 0 || p >= partitions || count[i] >= desired[i] ||
                static_cast<int64_t>(holders[p].size()) >= sharing)
                continue;
            holders[p].insert(i);
            ++count[i];
        }
    }
    // Fill each partition's missing places, round robin over the members still below their
    // count. A partition no such member can take (they all hold it) stays short, as Kafka's.
    size_t next = 0;
    for (int32_t p = 0; p < partitions; ++p) {
        for (size_t tried = 0;
             static_cast<int64_t>(holders[p].size()) < sharing && tried < subscribers.size();
             ++tried, next = (next + 1) % subscribers.size()) {
            if (count[next] >= desired[next] || holders[p].count(next))
                continue;
            holders[p].insert(next);
            ++count[next];
            tried = 0;
        }
    }
    for (int32_t p = 0; p < partitions; ++p)
        for (size_t i : holders[p])
            out[subscribers[i]][topic].insert(p);
}

}  // namespace

std::map<std::string, consumer::Assignment> simple_assign(
    const std::map<std::string, SimpleAssignorMember>& members,
    const std::map<std::string, int32_t>& topics) {
    std::map<std::string, consumer::Assignment> out;
    for (const auto& [id, m] : members)
        out[id];  // every member gets an answer, even an empty one
    for (const auto& [topic, partitions] : topics) {
        std::vector<std::string> subscribers;
        for (const auto& [id, m] : members)
            if (m.subscribed_topics.count(topic))
                subscribers.push_back(id);
        assign_topic(topic, partitions, subscribers, members, out);
    }
    return out;
}

}  // namespace skiff::broker::group::share
