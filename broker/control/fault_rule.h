// One fault-injection rule of the test-control API (docs/control-api.md): which requests it
// matches, what it does to them and how often. Rules come in as JSON and are listed as JSON;
// parsing refuses anything it does not understand (an unknown API, error name or field) with a
// message saying what, so that a typo in a test never turns into a rule that silently matches
// nothing.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "protocol/error_code.h"

namespace skiff::broker::control {

enum class FaultAction {
    error,          // answer error E without applying the request
    latency,        // hold the request L ms, then handle it normally
    close,          // close the connection on receipt: nothing applied, no answer
    drop,           // swallow the request: nothing applied, no answer, the connection stays
    fail_response,  // apply the request, then answer error E
};

std::string_view action_name(FaultAction action);

struct FaultMatch {
    std::optional<int16_t> api_key;  // none: every API
    int16_t min_version = 0;
    int16_t max_version = INT16_MAX;
    std::optional<std::string> topic;
    std::optional<int32_t> partition;  // only with a topic
    std::optional<std::string> group;
    std::optional<std::string> transactional_id;
    std::optional<std::string> client_id;
    std::optional<std::string> listener;
};

struct FaultRule {
    uint64_t id = 0;
    FaultMatch match;
    FaultAction action = FaultAction::error;
    protocol::ErrorCode error = protocol::ErrorCode::none;  // error and fail_response
    std::chrono::milliseconds latency{0};                   // latency
    std::optional<uint64_t> remaining;                      // "count": the next N matches
    std::optional<double> probability;                      // each match fires with this chance
    uint64_t matched = 0;                                   // requests that matched
    uint64_t fired = 0;                                     // of which the rule acted on
};

// A rule from the JSON body of POST /control/faults, or why not.
struct ParsedRule {
    std::optional<FaultRule> rule;
    std::string error;
};
ParsedRule parse_rule(const nlohmann::json& body);

nlohmann::json rule_to_json(const FaultRule& rule);

// "Produce", "produce", "PRODUCE" or "0" -> 0; nullopt for an API skiff does not serve.
std::optional<int16_t> parse_api(std::string_view text);
// "NOT_LEADER_OR_FOLLOWER" (any case) or its number -> the code; nullopt when Kafka has none.
std::optional<protocol::ErrorCode> parse_error_code(std::string_view text);

// Whether the error action can answer this API without applying it (fault_responses.h), and
// the APIs it can, for the error message.
bool error_action_supported(int16_t api_key);
std::vector<std::string> error_action_apis();

}  // namespace skiff::broker::control
