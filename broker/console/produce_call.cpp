#include "broker/console/produce_call.h"

#include <limits>
#include <span>

#include "protocol/produce.h"

namespace skiff::broker::console {

Expected<ProduceOutcome, std::string> produce_batch(
    KafkaCall& kafka, const std::string& topic, int32_t partition, const protocol::BatchSpec& spec,
    const std::vector<protocol::RecordSpec>& records) {
    const auto batch = protocol::build_record_batch(spec, records);
    protocol::ProduceRequest request;
    request.acks = -1;
    request.timeout_ms = 30000;
    protocol::TopicProduceData data;
    data.name = topic;
    data.partition_data.push_back({partition, std::span<const std::byte>(batch)});
    request.topic_data.push_back(std::move(data));
    auto reply = kafka.call<protocol::ProduceResponse>(request, 9);
    if (!reply)
        return unexpected(reply.error());
    if (reply->message.responses.size() != 1 ||
        reply->message.responses.front().partition_responses.size() != 1)
        return unexpected(std::string("Produce answered no partition"));
    const auto& answer = reply->message.responses.front().partition_responses.front();
    return ProduceOutcome{answer.error_code, answer.error_message.value_or(""), answer.base_offset,
                          answer.log_append_time_ms};
}

std::optional<int64_t> json_int64(const nlohmann::json& v) {
    if (v.is_number_unsigned()) {
        const auto u = v.get<uint64_t>();
        if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
            return std::nullopt;
        return static_cast<int64_t>(u);
    }
    if (v.is_number_integer())
        return v.get<int64_t>();
    return std::nullopt;
}

}  // namespace skiff::broker::console
