// The assignors by name, and the input preparation both of them share.
#include "broker/group/consumer/assignor.h"

#include <algorithm>
#include <utility>

#include "broker/group/consumer/range_assignor.h"
#include "broker/group/consumer/uniform_assignor.h"

namespace skiff::broker::group::consumer {

const Assignor* find_assignor(std::string_view name) {
    // Stateless and immutable, so one shared instance of each serves every group and thread.
    static const UniformAssignor uniform;
    static const RangeAssignor range;
    if (name == uniform.name())
        return &uniform;
    if (name == range.name())
        return &range;
    return nullptr;
}

namespace assignor_detail {

std::vector<const AssignorMember*> members_by_id(const AssignorInput& input) {
    std::vector<const AssignorMember*> members;
    members.reserve(input.members.size());
    for (const AssignorMember& member : input.members)
        members.push_back(&member);
    std::sort(members.begin(), members.end(), [](const AssignorMember* a, const AssignorMember* b) {
        return a->member_id < b->member_id;
    });
    return members;
}

std::map<std::string, std::vector<int>> subscribers_by_topic(
    const std::vector<const AssignorMember*>& members,
    const std::map<std::string, int32_t>& topics) {
    std::map<std::string, std::vector<int>> subscribers;
    for (size_t i = 0; i < members.size(); ++i) {
        for (const std::string& topic : members[i]->subscribed_topics) {
            auto it = topics.find(topic);
            // A topic that does not exist (or has no partition) has nothing to hand out.
            if (it == topics.end() || it->second <= 0)
                continue;
            // Members are visited in index order, so each list comes out ascending.
            subscribers[topic].push_back(static_cast<int>(i));
        }
    }
    return subscribers;
}

AssignorOutput to_output(const std::vector<const AssignorMember*>& members,
                         std::vector<Assignment> assignments) {
    AssignorOutput output;
    for (size_t i = 0; i < members.size(); ++i)
        output.emplace(members[i]->member_id, std::move(assignments[i]));
    return output;
}

}  // namespace assignor_detail

}  // namespace skiff::broker::group::consumer
