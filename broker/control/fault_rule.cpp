#include "broker/control/fault_rule.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "broker/control/fault_responses.h"
#include "protocol/api_table.h"

namespace skiff::broker::control {
namespace {

using nlohmann::json;

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

template <class T>
std::optional<T> parse_number(std::string_view text) {
    T value{};
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size())
        return std::nullopt;
    return value;
}

constexpr const char* kFields[] = {
    "api",       "min_version", "max_version", "topic", "partition",  "group", "transactional_id",
    "client_id", "listener",    "action",      "error", "latency_ms", "count", "probability"};

// A string field, or nullopt when absent; an error when present but not a non-empty string.
bool string_field(const json& body, const char* name, std::optional<std::string>& out,
                  std::string& error) {
    auto it = body.find(name);
    if (it == body.end() || it->is_null())
        return true;
    if (!it->is_string() || it->get<std::string>().empty()) {
        error = std::string("\"") + name + "\" must be a non-empty string";
        return false;
    }
    out = it->get<std::string>();
    return true;
}

template <class T>
bool integer_field(const json& body, const char* name, int64_t lo, int64_t hi,
                   std::optional<T>& out, std::string& error) {
    auto it = body.find(name);
    if (it == body.end() || it->is_null())
        return true;
    if (!it->is_number_integer() || it->get<int64_t>() < lo || it->get<int64_t>() > hi) {
        error = std::string("\"") + name + "\" must be an integer from " + std::to_string(lo) +
                " to " + std::to_string(hi);
        return false;
    }
    out = static_cast<T>(it->get<int64_t>());
    return true;
}

}  // namespace

std::string_view action_name(FaultAction action) {
    switch (action) {
        case FaultAction::error:
            return "error";
        case FaultAction::latency:
            return "latency";
        case FaultAction::close:
            return "close";
        case FaultAction::drop:
            return "drop";
        case FaultAction::fail_response:
            return "fail_response";
    }
    return "error";
}

std::optional<int16_t> parse_api(std::string_view text) {
    if (auto number = parse_number<int16_t>(text)) {
        if (protocol::find_api(*number))
            return number;
        return std::nullopt;
    }
    const std::string wanted = lower(text);
    for (const auto& api : protocol::supported_apis())
        if (lower(protocol::api_name(api.key)) == wanted)
            return static_cast<int16_t>(api.key);
    return std::nullopt;
}

std::optional<protocol::ErrorCode> parse_error_code(std::string_view text) {
    if (auto number = parse_number<int16_t>(text)) {
        auto code = static_cast<protocol::ErrorCode>(*number);
        if (std::string_view(protocol::error_name(code)) == "UNKNOWN_ERROR_CODE")
            return std::nullopt;
        return code;
    }
    std::string upper(text);
    std::transform(upper.begin(), upper.end(), upper.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
#define SKIFF_ERROR_BY_NAME(name, number, kafka_name) \
    if (upper == (kafka_name))                        \
        return protocol::ErrorCode::name;
    SKIFF_KAFKA_ERROR_CODES(SKIFF_ERROR_BY_NAME)
#undef SKIFF_ERROR_BY_NAME
    return std::nullopt;
}

bool error_action_supported(int16_t api_key) {
    return error_answer_kind(api_key) != ErrorAnswer::unsupported;
}

std::vector<std::string> error_action_apis() {
    std::vector<std::string> names;
    for (const auto& api : protocol::supported_apis())
        if (error_action_supported(static_cast<int16_t>(api.key)))
            names.emplace_back(protocol::api_name(api.key));
    return names;
}

ParsedRule parse_rule(const json& body) {
    ParsedRule out;
    auto& error = out.error;
    if (!body.is_object()) {
        error = "a rule is a JSON object";
        return out;
    }
    for (const auto& [key, value] : body.items())
        if (std::find(std::begin(kFields), std::end(kFields), key) == std::end(kFields)) {
            error = "unknown field \"" + key + "\"";
            return out;
        }
    FaultRule rule;
    auto& m = rule.match;
    if (auto it = body.find("api"); it != body.end() && !it->is_null()) {
        const std::string text =
            it->is_string() ? it->get<std::string>() : (it->is_number_integer() ? it->dump() : "");
        m.api_key = parse_api(text);
        if (!m.api_key) {
            error = "\"api\": " + it->dump() +
                    " is not an API skiff serves (a Kafka name such as \"Produce\", or its key)";
            return out;
        }
    }
    std::optional<int16_t> min_version, max_version;
    std::optional<int32_t> partition;
    if (!integer_field(body, "min_version", 0, INT16_MAX, min_version, error) ||
        !integer_field(body, "max_version", 0, INT16_MAX, max_version, error) ||
        !integer_field(body, "partition", 0, INT32_MAX, partition, error) ||
        !string_field(body, "topic", m.topic, error) ||
        !string_field(body, "group", m.group, error) ||
        !string_field(body, "transactional_id", m.transactional_id, error) ||
        !string_field(body, "client_id", m.client_id, error) ||
        !string_field(body, "listener", m.listener, error))
        return out;
    m.min_version = min_version.value_or(0);
    m.max_version = max_version.value_or(INT16_MAX);
    if (m.min_version > m.max_version) {
        error = "\"min_version\" is above \"max_version\"";
        return out;
    }
    m.partition = partition;
    if (m.partition && !m.topic) {
        error = "\"partition\" needs a \"topic\"";
        return out;
    }

    std::optional<std::string> action;
    if (!string_field(body, "action", action, error))
        return out;
    if (!action) {
        error = "\"action\" is required: error, latency, close, drop or fail_response";
        return out;
    }
    if (*action == "error")
        rule.action = FaultAction::error;
    else if (*action == "latency")
        rule.action = FaultAction::latency;
    else if (*action == "close")
        rule.action = FaultAction::close;
    else if (*action == "drop")
        rule.action = FaultAction::drop;
    else if (*action == "fail_response")
        rule.action = FaultAction::fail_response;
    else {
        error = "\"action\": \"" + *action +
                "\" is not one of error, latency, close, drop, fail_response";
        return out;
    }

    const bool needs_error =
        rule.action == FaultAction::error || rule.action == FaultAction::fail_response;
    auto err = body.find("error");
    const bool has_error = err != body.end() && !err->is_null();
    if (needs_error != has_error) {
        error = needs_error ? "\"error\" is required with action " + *action +
                                  " (a Kafka error name such as \"NOT_LEADER_OR_FOLLOWER\", or "
                                  "its code)"
                            : "\"error\" applies only to the actions error and fail_response";
        return out;
    }
    if (has_error) {
        const std::string text = err->is_string() ? err->get<std::string>()
                                                  : (err->is_number_integer() ? err->dump() : "");
        auto code = parse_error_code(text);
        if (!code || *code == protocol::ErrorCode::none) {
            error = "\"error\": " + err->dump() + " is not a Kafka error code";
            return out;
        }
        rule.error = *code;
    }
    std::optional<int64_t> latency;
    if (!integer_field(body, "latency_ms", 0, 3'600'000, latency, error))
        return out;
    if ((rule.action == FaultAction::latency) != latency.has_value()) {
        error = rule.action == FaultAction::latency
                    ? "\"latency_ms\" is required with action latency"
                    : "\"latency_ms\" applies only to the action latency";
        return out;
    }
    rule.latency = std::chrono::milliseconds(latency.value_or(0));
    if (rule.action == FaultAction::error) {
        if (!m.api_key) {
            error =
                "action error needs an \"api\": the answer is built per API (use "
                "fail_response, close or drop for every API)";
            return out;
        }
        if (!error_action_supported(*m.api_key)) {
            std::string list;
            for (const auto& name : error_action_apis())
                list += (list.empty() ? "" : ", ") + name;
            error = std::string("action error is not available for ") +
                    protocol::api_name(static_cast<protocol::ApiKey>(*m.api_key)) +
                    " (use fail_response); it is for " + list;
            return out;
        }
    }

    std::optional<uint64_t> count;
    if (!integer_field(body, "count", 1, INT64_MAX, count, error))
        return out;
    rule.remaining = count;
    if (auto p = body.find("probability"); p != body.end() && !p->is_null()) {
        if (!p->is_number() || p->get<double>() <= 0.0 || p->get<double>() > 1.0) {
            error = "\"probability\" must be a number above 0 and at most 1";
            return out;
        }
        rule.probability = p->get<double>();
    }
    out.rule = std::move(rule);
    return out;
}

json rule_to_json(const FaultRule& rule) {
    json j;
    j["id"] = rule.id;
    const auto& m = rule.match;
    if (m.api_key)
        j["api"] = protocol::api_name(static_cast<protocol::ApiKey>(*m.api_key));
    if (m.min_version != 0)
        j["min_version"] = m.min_version;
    if (m.max_version != INT16_MAX)
        j["max_version"] = m.max_version;
    if (m.topic)
        j["topic"] = *m.topic;
    if (m.partition)
        j["partition"] = *m.partition;
    if (m.group)
        j["group"] = *m.group;
    if (m.transactional_id)
        j["transactional_id"] = *m.transactional_id;
    if (m.client_id)
        j["client_id"] = *m.client_id;
    if (m.listener)
        j["listener"] = *m.listener;
    j["action"] = action_name(rule.action);
    if (rule.action == FaultAction::error || rule.action == FaultAction::fail_response)
        j["error"] = protocol::error_name(rule.error);
    if (rule.action == FaultAction::latency)
        j["latency_ms"] = rule.latency.count();
    if (rule.remaining)
        j["remaining"] = *rule.remaining;
    if (rule.probability)
        j["probability"] = *rule.probability;
    j["matched"] = rule.matched;
    j["fired"] = rule.fired;
    return j;
}

}  // namespace skiff::broker::control
