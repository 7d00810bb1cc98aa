// One batch of records produced to one partition as the console's caller, with acks=all: what the
// console's test message (api/record_routes.cpp) and REST Proxy v3's produce (rest_v3/) both
// send, through the Produce handler like any client's batch.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "broker/console/kafka_call.h"
#include "protocol/error_code.h"
#include "protocol/record_builder.h"

namespace skiff::broker::console {

struct ProduceOutcome {
    protocol::ErrorCode error = protocol::ErrorCode::none;
    std::string message;              // the broker's error message, if any
    int64_t base_offset = -1;         // of the batch's first record
    int64_t log_append_time_ms = -1;  // the broker's time on a LogAppendTime topic, else -1
};

// The partition's answer, or why there is none (the request could not be served).
Expected<ProduceOutcome, std::string> produce_batch(
    KafkaCall& kafka, const std::string& topic, int32_t partition, const protocol::BatchSpec& spec,
    const std::vector<protocol::RecordSpec>& records);

// A JSON integer that fits int64_t; nullopt for anything else (huge, fractional, not a number).
std::optional<int64_t> json_int64(const nlohmann::json& v);

}  // namespace skiff::broker::console
