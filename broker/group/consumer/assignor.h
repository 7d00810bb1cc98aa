// The server-side partition assignors of the consumer group protocol (KIP-848, Kafka's
// ConsumerGroupPartitionAssignor): given the members' subscriptions and current target
// assignments and the topics' partition counts, compute every member's new target assignment.
// Two are offered, as in Kafka: "uniform" (the default; balanced and sticky, uniform_assignor.h)
// and "range" (per-topic ranges, co-partitioned and sticky, range_assignor.h).
//
// Assignors are stateless: assign() is a pure function of its input, safe to call from any
// thread, and gives the same output for the same input whatever the order of its members.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace skiff::broker::group::consumer {

// topic name -> partition numbers
using Assignment = std::map<std::string, std::set<int32_t>>;

struct AssignorMember {
    std::string member_id;
    std::optional<std::string> instance_id;
    std::optional<std::string> rack_id;
    // names, already resolved (regexes expanded); may include topics that do not exist
    std::set<std::string> subscribed_topics;
    Assignment current;  // this member's current target assignment (stickiness input)
};

struct AssignorInput {
    std::vector<AssignorMember> members;  // any order; member ids unique
    // existing topics -> partition count (a subscribed topic missing here does not exist:
    // assign nothing of it)
    std::map<std::string, int32_t> topics;
};

// member id -> assignment; EVERY input member appears (possibly empty)
using AssignorOutput = std::map<std::string, Assignment>;

class Assignor {
  public:
    virtual ~Assignor() = default;
    virtual std::string_view name() const = 0;
    virtual AssignorOutput assign(const AssignorInput& input) const = 0;
};

// "uniform" or "range"; nullptr for any other name.
const Assignor* find_assignor(std::string_view name);

// Pieces both assignors share.
namespace assignor_detail {

// The input's members sorted by member id. Ties are broken in this order everywhere, so the
// output does not depend on the order the caller listed the members in.
std::vector<const AssignorMember*> members_by_id(const AssignorInput& input);

// For each existing topic with at least one partition that some member subscribes to: its
// subscribers, as ascending indices into `members`. Topics in name order.
std::map<std::string, std::vector<int>> subscribers_by_topic(
    const std::vector<const AssignorMember*>& members,
    const std::map<std::string, int32_t>& topics);

// The output of `members`' per-index assignments (as many as members): every member appears.
AssignorOutput to_output(const std::vector<const AssignorMember*>& members,
                         std::vector<Assignment> assignments);

}  // namespace assignor_detail

}  // namespace skiff::broker::group::consumer
