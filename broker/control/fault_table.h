// The fault rules in force (docs/control-api.md), shared by every I/O thread: added and removed
// through the control API, matched against each request. The first rule that matches a request
// and fires acts on it; one rule acts at most once per request, however many of its partitions
// match.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "broker/control/fault_rule.h"
#include "broker/control/message_walk.h"

namespace skiff::broker::control {

// The request as the rules see it.
struct RequestView {
    int16_t api_key = -1;
    int16_t api_version = 0;
    std::string_view client_id;
    std::string_view listener;
    const RequestFacts* facts = nullptr;
    // The name of a topic a request names by id only (v13 Produce and Fetch); "" when unknown.
    std::function<std::string(const protocol::Uuid&)> topic_name;
};

// What a rule that fired does to the request.
struct Fired {
    uint64_t rule_id = 0;
    FaultAction action = FaultAction::error;
    protocol::ErrorCode error = protocol::ErrorCode::none;
    std::chrono::milliseconds latency{0};
    std::optional<std::string> topic;  // the rule's target within the request, if narrower
    std::optional<int32_t> partition;
    std::function<std::string(const protocol::Uuid&)> topic_name;

    // Whether the error goes into this topic (partition: nullopt) or partition of the request.
    bool targets(std::string_view name, const protocol::Uuid& id,
                 std::optional<int32_t> partition) const;
};

class FaultTable {
  public:
    // Gives the rule its id (1, 2, ...; never reused) and returns it as stored.
    FaultRule add(FaultRule rule);
    std::vector<FaultRule> list() const;
    std::optional<FaultRule> get(uint64_t id) const;
    bool remove(uint64_t id);
    size_t clear();
    // Without rules matching costs one atomic load.
    bool empty() const { return count_.load(std::memory_order_relaxed) == 0; }

    std::optional<Fired> match(const RequestView& request);

  private:
    static bool matches(const FaultMatch& m, const RequestView& request);

    mutable std::mutex mutex_;
    std::vector<FaultRule> rules_;
    uint64_t next_id_ = 1;
    std::atomic<size_t> count_{0};
    std::mt19937_64 random_{std::random_device{}()};
};

}  // namespace skiff::broker::control
