// The uniform assignor, in three phases over all the subscribed topics at once:
//   1. keep: each member keeps the current partitions of the topics it still subscribes to;
//   2. hand out: every partition nobody holds goes to the least loaded subscriber of its topic,
//      topics with the most partitions per subscriber first (as Kafka does: they are the
//      hardest to spread, the others fill the gaps they leave);
//   3. balance: while some topic has a holder with at least two partitions more (over all
//      topics) than another of its subscribers, one partition moves across the largest such gap
//      (topics with the same subscribers pooled, see Balancer).
// Phase 3 ends: each move lowers the sum of the squared loads. It takes from a member the
// partitions it was handed in this call before those it kept, so a member that kept more than
// its share gives up only the excess.
#include "broker/group/consumer/uniform_assignor.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace skiff::broker::group::consumer {
namespace {

using assignor_detail::members_by_id;
using assignor_detail::subscribers_by_topic;
using assignor_detail::to_output;

constexpr int kNobody = -1;

// One subscribed topic while the assignment is built. Members are indices into the id-sorted
// member list; a "slot" is a position in `subscribers`.
struct TopicState {
    std::string name;
    int32_t partition_count = 0;
    std::vector<int> subscribers;  // ascending
    std::vector<int> owner;        // per partition: the member holding it, or kNobody
    std::vector<int> previous;     // per partition: the member that kept it in phase 1, or kNobody

    int member(int slot) const { return subscribers[slot]; }
    size_t slots() const { return subscribers.size(); }
    int slot_of(int member_index) const {
        auto it = std::lower_bound(subscribers.begin(), subscribers.end(), member_index);
        return it != subscribers.end() && *it == member_index
                   ? static_cast<int>(it - subscribers.begin())
                   : kNobody;
    }
};

// Phase 3. Topics with the same subscribers are balanced together, as one "class": who may take
// a partition depends only on its topic's subscribers, and a member's load changes then cost
// one update per class it belongs to rather than per topic (a single class when every member
// subscribes to the same topics).
//
// One partition moves at a time, along the largest gap of any class: from its most loaded holder
// to its least loaded subscriber. Load so flows where it is needed most, where balancing one
// class fully could overshoot and leave its subscribers' other classes to undo it. Per class,
// two sets ordered so that begin() is the least loaded subscriber and the most loaded holder,
// ties to the lowest member index (deterministic).
class Balancer {
  public:
    Balancer(std::vector<TopicState>& topics, std::vector<int>& load);
    // Moves partitions until no class has a gap of two or more.
    void run();

  private:
    struct Partition {
        size_t topic;
        int32_t partition;
    };
    struct Class {
        std::vector<int> subscribers;  // ascending, the same for each of its topics
        std::vector<int> held;         // per slot: how many of the class's partitions it holds
        std::set<std::pair<int, int>> receivers;  // (load, slot) of every subscriber
        std::set<std::pair<int, int>> givers;     // (-load, slot) of the subscribers holding some
        // Per slot, the partitions it holds, split by whether it kept them in phase 1: the
        // others move first, so a member gives up current partitions only when it must.
        std::vector<std::vector<Partition>> handed;
        std::vector<std::vector<Partition>> kept;
    };

    void group_topics();
    void index_partitions(Class& c, size_t t);
    int load(const Class& c, int slot) const { return load_[c.subscribers[slot]]; }
    void unlist(Class& c, int slot);
    void list(Class& c, int slot);
    void refresh_gap(size_t c);
    Partition take(Class& c, int slot);
    void move(size_t c, int from, int to);

    std::vector<TopicState>& topics_;
    std::vector<int>& load_;
    std::vector<Class> classes_;
    std::vector<std::vector<std::pair<size_t, int>>> memberships_;  // member -> (class, slot)
    std::set<std::pair<int, size_t>> gaps_;  // (-gap, class) of the classes with a gap >= 2
    std::vector<int> listed_gap_;            // per class: its gap in gaps_, 0 if not there
};

Balancer::Balancer(std::vector<TopicState>& topics, std::vector<int>& load)
    : topics_(topics), load_(load), memberships_(load.size()) {
    group_topics();
    listed_gap_.assign(classes_.size(), 0);
    for (size_t c = 0; c < classes_.size(); ++c) {
        for (size_t s = 0; s < classes_[c].subscribers.size(); ++s) {
            memberships_[classes_[c].subscribers[s]].emplace_back(c, s);
            list(classes_[c], static_cast<int>(s));
        }
        refresh_gap(c);
    }
}

void Balancer::group_topics() {
    std::map<std::vector<int>, size_t> class_of;  // subscribers -> class
    for (size_t t = 0; t < topics_.size(); ++t) {
        // A single subscriber has nobody to give its partitions to.
        if (topics_[t].slots() < 2)
            continue;
        auto [it, fresh] = class_of.emplace(topics_[t].subscribers, classes_.size());
        if (fresh) {
            Class& c = classes_.emplace_back();
            c.subscribers = topics_[t].subscribers;
            c.held.assign(c.subscribers.size(), 0);
            c.handed.resize(c.subscribers.size());
            c.kept.resize(c.subscribers.size());
        }
        index_partitions(classes_[it->second], t);
    }
}

void Balancer::index_partitions(Class& c, size_t t) {
    const TopicState& topic = topics_[t];
    for (int32_t p = 0; p < topic.partition_count; ++p) {
        int slot = topic.slot_of(topic.owner[p]);
        ++c.held[slot];
        (topic.previous[p] == topic.owner[p] ? c.kept : c.handed)[slot].push_back({t, p});
    }
}

void Balancer::unlist(Class& c, int slot) {
    c.receivers.erase({load(c, slot), slot});
    if (c.held[slot] > 0)
        c.givers.erase({-load(c, slot), slot});
}

void Balancer::list(Class& c, int slot) {
    c.receivers.insert({load(c, slot), slot});
    if (c.held[slot] > 0)
        c.givers.insert({-load(c, slot), slot});
}

void Balancer::refresh_gap(size_t c) {
    if (listed_gap_[c] != 0)
        gaps_.erase({-listed_gap_[c], c});
    listed_gap_[c] = 0;
    const Class& cls = classes_[c];
    // Every partition has a holder, so a class (of topics with partitions) always has a giver.
    int gap = -cls.givers.begin()->first - cls.receivers.begin()->first;
    if (gap >= 2) {
        gaps_.insert({-gap, c});
        listed_gap_[c] = gap;
    }
}

Balancer::Partition Balancer::take(Class& c, int slot) {
    std::vector<Partition>& from = c.handed[slot].empty() ? c.kept[slot] : c.handed[slot];
    Partition partition = from.back();
    from.pop_back();
    return partition;
}

void Balancer::move(size_t c, int from, int to) {
    Class& cls = classes_[c];
    int giver = cls.subscribers[from];
    int receiver = cls.subscribers[to];
    // Both members' loads change: re-key them in every class they belong to.
    for (int m : {giver, receiver}) {
        for (auto [u, slot] : memberships_[m])
            unlist(classes_[u], slot);
    }
    Partition moved = take(cls, from);
    TopicState& topic = topics_[moved.topic];
    topic.owner[moved.partition] = receiver;
    // Moving back to the member that kept it counts as kept again.
    (topic.previous[moved.partition] == receiver ? cls.kept : cls.handed)[to].push_back(moved);
    --cls.held[from];
    ++cls.held[to];
    --load_[giver];
    ++load_[receiver];
    for (int m : {giver, receiver}) {
        for (auto [u, slot] : memberships_[m])
            list(classes_[u], slot);
    }
    for (int m : {giver, receiver}) {
        for (auto [u, slot] : memberships_[m])
            refresh_gap(u);
    }
}

void Balancer::run() {
    // Each move lowers the sum of the squared loads (by at least 2), so this ends.
    while (!gaps_.empty()) {
        size_t c = gaps_.begin()->second;
        move(c, classes_[c].givers.begin()->second, classes_[c].receivers.begin()->second);
    }
}

class UniformBuilder {
  public:
    explicit UniformBuilder(const AssignorInput& input);
    AssignorOutput build();

  private:
    void hand(TopicState& topic, int32_t partition, int slot);
    void keep_current();
    std::vector<size_t> topics_hardest_first() const;
    void hand_out(TopicState& topic);
    void balance();
    AssignorOutput output() const;

    std::vector<const AssignorMember*> members_;
    std::vector<TopicState> topics_;                  // by name
    std::map<std::string_view, size_t> topic_index_;  // name -> index in topics_
    std::vector<int> load_;                           // member -> partitions it holds
};

UniformBuilder::UniformBuilder(const AssignorInput& input)
    : members_(members_by_id(input)), load_(members_.size()) {
    for (auto& [name, subscribers] : subscribers_by_topic(members_, input.topics)) {
        TopicState& topic = topics_.emplace_back();
        topic.name = name;
        topic.partition_count = input.topics.at(name);
        topic.subscribers = std::move(subscribers);
        topic.owner.assign(topic.partition_count, kNobody);
        topic.previous.assign(topic.partition_count, kNobody);
    }
    // Only now: the names must not move once viewed.
    for (size_t t = 0; t < topics_.size(); ++t)
        topic_index_.emplace(topics_[t].name, t);
}

void UniformBuilder::hand(TopicState& topic, int32_t partition, int slot) {
    topic.owner[partition] = topic.member(slot);
    ++load_[topic.member(slot)];
}

void UniformBuilder::keep_current() {
    for (size_t m = 0; m < members_.size(); ++m) {
        for (const auto& [name, partitions] : members_[m]->current) {
            auto it = topic_index_.find(name);
            if (it == topic_index_.end())
                continue;  // deleted, or subscribed by nobody
            TopicState& topic = topics_[it->second];
            int slot = topic.slot_of(static_cast<int>(m));
            if (slot == kNobody)
                continue;  // this member no longer subscribes to it
            for (int32_t p : partitions) {
                // Out of range after a shrink that never happens in Kafka, or claimed twice by a
                // malformed input: the first member in id order keeps it.
                if (p < 0 || p >= topic.partition_count || topic.owner[p] != kNobody)
                    continue;
                hand(topic, p, slot);
                topic.previous[p] = static_cast<int>(m);
            }
        }
    }
}

std::vector<size_t> UniformBuilder::topics_hardest_first() const {
    std::vector<size_t> order(topics_.size());
    for (size_t t = 0; t < order.size(); ++t)
        order[t] = t;
    std::sort(order.begin(), order.end(), [this](size_t a, size_t b) {
        const TopicState& x = topics_[a];
        const TopicState& y = topics_[b];
        // Partitions per subscriber, descending, compared without rounding.
        int64_t lhs = int64_t{x.partition_count} * static_cast<int64_t>(y.slots());
        int64_t rhs = int64_t{y.partition_count} * static_cast<int64_t>(x.slots());
        if (lhs != rhs)
            return lhs > rhs;
        if (x.slots() != y.slots())
            return x.slots() < y.slots();
        return a < b;
    });
    return order;
}

void UniformBuilder::hand_out(TopicState& topic) {
    std::set<std::pair<int, int>> by_load;  // (load, slot): begin() is the least loaded
    for (size_t s = 0; s < topic.slots(); ++s)
        by_load.insert({load_[topic.member(static_cast<int>(s))], static_cast<int>(s)});
    for (int32_t p = 0; p < topic.partition_count; ++p) {
        if (topic.owner[p] != kNobody)
            continue;
        auto [load, slot] = *by_load.begin();
        by_load.erase(by_load.begin());
        hand(topic, p, slot);
        by_load.insert({load + 1, slot});
    }
}

void UniformBuilder::balance() {
    Balancer(topics_, load_).run();
}

AssignorOutput UniformBuilder::output() const {
    std::vector<Assignment> assignments(members_.size());
    for (const TopicState& topic : topics_) {
        for (int32_t p = 0; p < topic.partition_count; ++p) {
            std::set<int32_t>& partitions = assignments[topic.owner[p]][topic.name];
            partitions.emplace_hint(partitions.end(), p);
        }
    }
    return to_output(members_, std::move(assignments));
}

AssignorOutput UniformBuilder::build() {
    keep_current();
    for (size_t t : topics_hardest_first())
        hand_out(topics_[t]);
    balance();
    return output();
}

}  // namespace

AssignorOutput UniformAssignor::assign(const AssignorInput& input) const {
    return UniformBuilder(input).build();
}

}  // namespace skiff::broker::group::consumer
