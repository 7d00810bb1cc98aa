// The console API's topics (docs/console-api.md, "Topics"): the list and one topic, each the
// Kafka requests a client would send for it, as the caller: Metadata (topics it may not DESCRIBE
// left out, or 403 for one asked by name), ListOffsets (earliest, latest, and latest with
// read_committed for the last stable offset), DescribeLogDirs for sizes (null when the caller
// may not DESCRIBE the cluster, as Kafka requires for it), DescribeConfigs with sources.
#include <algorithm>
#include <charconv>
#include <map>
#include <utility>

#include "broker/broker.h"
#include "broker/console/api/topic_api.h"
#include "broker/topics/topic_ids.h"
#include "protocol/describe_configs.h"
#include "protocol/describe_log_dirs.h"
#include "protocol/list_offsets.h"
#include "protocol/metadata.h"

namespace skiff::broker::console {
namespace {

using protocol::ErrorCode;
using PartitionKey = std::pair<std::string, int32_t>;

// Metadata of `topics` (nullopt: all), never creating one.
Expected<KafkaReply<protocol::MetadataResponse>, std::string> metadata(
    ApiCall& call, const std::optional<std::string>& topic) {
    protocol::MetadataRequest request;
    request.allow_auto_topic_creation = false;
    if (topic) {
        protocol::MetadataRequestTopic t;
        t.name = *topic;
        request.topics = std::vector<protocol::MetadataRequestTopic>{t};
    }
    return call.kafka.call<protocol::MetadataResponse>(request, 12);
}

// ListOffsets at `timestamp` (earliest / latest) for every partition the Metadata answer
// showed; partitions with an error are left out.
std::map<PartitionKey, int64_t> list_offsets(ApiCall& call,
                                             const std::vector<protocol::MetadataResponseTopic>& ts,
                                             int64_t timestamp, int8_t isolation_level) {
    protocol::ListOffsetsRequest request;
    request.isolation_level = isolation_level;
    for (const auto& t : ts) {
        if (t.error_code != ErrorCode::none || !t.name)
            continue;
        protocol::ListOffsetsTopic lt;
        lt.name = *t.name;
        for (const auto& p : t.partitions) {
            protocol::ListOffsetsPartition lp;
            lp.partition_index = p.partition_index;
            lp.timestamp = timestamp;
            lt.partitions.push_back(lp);
        }
        request.topics.push_back(std::move(lt));
    }
    std::map<PartitionKey, int64_t> offsets;
    if (request.topics.empty())
        return offsets;
    auto reply = call.kafka.call<protocol::ListOffsetsResponse>(request, 7);
    if (!reply)
        return offsets;
    for (const auto& t : reply->message.topics)
        for (const auto& p : t.partitions)
            if (p.error_code == ErrorCode::none)
                offsets[{t.name, p.partition_index}] = p.offset;
    return offsets;
}

// Partition sizes from DescribeLogDirs for the partitions Metadata showed; nullopt when the
// caller may not see them (Kafka asks DESCRIBE on the cluster for it).
std::optional<std::map<PartitionKey, int64_t>> partition_sizes(
    ApiCall& call, const std::vector<protocol::MetadataResponseTopic>& ts) {
    protocol::DescribeLogDirsRequest request;
    request.topics.emplace();
    for (const auto& t : ts) {
        if (t.error_code != ErrorCode::none || !t.name)
            continue;
        protocol::DescribableLogDirTopic lt;
        lt.topic = *t.name;
        for (const auto& p : t.partitions)
            lt.partitions.push_back(p.partition_index);
        request.topics->push_back(std::move(lt));
    }
    std::map<PartitionKey, int64_t> sizes;
    if (request.topics->empty())
        return sizes;
    auto reply = call.kafka.call<protocol::DescribeLogDirsResponse>(request, 4);
    if (!reply || reply->message.error_code != ErrorCode::none)
        return std::nullopt;
    for (const auto& dir : reply->message.results) {
        if (dir.error_code != ErrorCode::none)
            return std::nullopt;
        for (const auto& t : dir.topics)
            for (const auto& p : t.partitions)
                sizes[{t.name, p.partition_index}] = p.partition_size;
    }
    return sizes;
}

http::HttpResponse list_topics(ApiCall& call) {
    auto reply = metadata(call, std::nullopt);
    if (!reply)
        return error_response(500, reply.error());
    const auto& ts = reply->message.topics;
    const auto earliest = list_offsets(call, ts, protocol::kListOffsetsEarliest, 0);
    const auto latest = list_offsets(call, ts, protocol::kListOffsetsLatest, 0);
    const auto sizes = partition_sizes(call, ts);
    nlohmann::json topics = nlohmann::json::array();
    for (const auto& topic : ts) {
        if (topic.error_code != ErrorCode::none || !topic.name)
            continue;
        int64_t records = 0, size = 0;
        for (const auto& p : topic.partitions) {
            const PartitionKey key{*topic.name, p.partition_index};
            auto start = earliest.find(key);
            auto end = latest.find(key);
            if (start != earliest.end() && end != latest.end() && end->second > start->second)
                records += end->second - start->second;
            if (sizes) {
                if (auto s = sizes->find(key); s != sizes->end())
                    size += s->second;
            }
        }
        topics.push_back({{"name", *topic.name},
                          {"internal", topic.is_internal},
                          {"partitions", topic.partitions.size()},
                          {"size_bytes", sizes ? nlohmann::json(size) : nlohmann::json(nullptr)},
                          {"records", records}});
    }
    return json_response(200, nlohmann::json{{"topics", topics}});
}

std::string config_source_name(int8_t source) {
    using protocol::ConfigSource;
    switch (static_cast<ConfigSource>(source)) {
        case ConfigSource::dynamic_topic_config:
            return "DYNAMIC_TOPIC_CONFIG";
        case ConfigSource::dynamic_broker_config:
            return "DYNAMIC_BROKER_CONFIG";
        case ConfigSource::dynamic_default_broker_config:
            return "DYNAMIC_DEFAULT_BROKER_CONFIG";
        case ConfigSource::static_broker_config:
            return "STATIC_BROKER_CONFIG";
        case ConfigSource::default_config:
            return "DEFAULT_CONFIG";
        case ConfigSource::group_config:
            return "GROUP_CONFIG";
        default:
            return "UNKNOWN";
    }
}

std::string uuid_text(const protocol::Uuid& id) {
    return storage::to_string(to_topic_id(id));
}

http::HttpResponse get_topic(ApiCall& call) {
    return topic_response(call, call.params.at("topic"), 200);
}

}  // namespace

TopicConfigs describe_topic_configs(ApiCall& call, const std::string& topic) {
    TopicConfigs out;
    protocol::DescribeConfigsRequest request;
    request.resources.push_back({protocol::kResourceTypeTopic, topic, std::nullopt});
    auto reply = call.kafka.call<protocol::DescribeConfigsResponse>(request, 4);
    if (!reply) {
        out.error = error_response(500, reply.error());
        return out;
    }
    for (const auto& result : reply->message.results) {
        if (result.error_code != ErrorCode::none) {
            out.error = kafka_error_response(static_cast<int16_t>(result.error_code),
                                             result.error_message.value_or(""));
            return out;
        }
        for (const auto& c : result.configs)
            out.configs.push_back(
                {{"name", c.name},
                 {"value", c.value ? nlohmann::json(*c.value) : nlohmann::json(nullptr)},
                 {"source", config_source_name(c.config_source)},
                 {"read_only", c.read_only},
                 {"sensitive", c.is_sensitive}});
    }
    return out;
}

http::HttpResponse topic_response(ApiCall& call, const std::string& name, int status) {
    auto reply = metadata(call, name);
    if (!reply)
        return error_response(500, reply.error());
    if (reply->message.topics.empty())
        return kafka_error_response(static_cast<int16_t>(ErrorCode::unknown_topic_or_partition));
    const auto& topic = reply->message.topics.front();
    if (topic.error_code != ErrorCode::none)
        return kafka_error_response(static_cast<int16_t>(topic.error_code));
    const auto& ts = reply->message.topics;
    const auto earliest = list_offsets(call, ts, protocol::kListOffsetsEarliest, 0);
    const auto latest = list_offsets(call, ts, protocol::kListOffsetsLatest, 0);
    const auto stable = list_offsets(call, ts, protocol::kListOffsetsLatest, 1);
    const auto sizes = partition_sizes(call, ts);
    auto offset_of = [](const std::map<PartitionKey, int64_t>& m, const PartitionKey& k) {
        auto it = m.find(k);
        return it == m.end() ? nlohmann::json(nullptr) : nlohmann::json(it->second);
    };
    auto partitions_sorted = topic.partitions;
    std::sort(partitions_sorted.begin(), partitions_sorted.end(),
              [](const auto& a, const auto& b) { return a.partition_index < b.partition_index; });
    nlohmann::json partitions = nlohmann::json::array();
    for (const auto& p : partitions_sorted) {
        const PartitionKey key{name, p.partition_index};
        // The log end offset and segment count are no Kafka API's; Metadata above has checked
        // that the caller may DESCRIBE the topic.
        nlohmann::json log_end = nullptr, segments = nullptr;
        if (auto* log = call.broker.logs().get({name, p.partition_index})) {
            log_end = log->log_end_offset();
            segments = log->segment_count();
        }
        nlohmann::json size = nullptr;
        if (sizes) {
            if (auto s = sizes->find(key); s != sizes->end())
                size = s->second;
        }
        partitions.push_back({{"partition", p.partition_index},
                              {"leader", p.leader_id},
                              {"log_start_offset", offset_of(earliest, key)},
                              {"log_end_offset", log_end},
                              {"high_watermark", offset_of(latest, key)},
                              {"last_stable_offset", offset_of(stable, key)},
                              {"size_bytes", size},
                              {"segments", segments}});
    }
    nlohmann::json body = {{"name", name},
                           {"topic_id", uuid_text(topic.topic_id)},
                           {"internal", topic.is_internal},
                           {"partitions", partitions}};
    auto configs = describe_topic_configs(call, name);
    body["configs"] = configs.configs;
    if (configs.error)  // e.g. DESCRIBE without DESCRIBE_CONFIGS: the topic, without configs
        body["configs_error"] = nlohmann::json::parse(configs.error->body, nullptr, false);
    return json_response(status, body);
}

std::optional<int32_t> parse_int32(std::string_view text, int32_t min, int32_t max) {
    if (text.empty() || text.size() > 11)
        return std::nullopt;
    int64_t value = 0;
    const auto* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc() || ptr != end || value < min || value > max)
        return std::nullopt;
    return static_cast<int32_t>(value);
}

void add_topic_routes(RouteTable& routes) {
    routes.push_back({"GET", "/api/topics", false, list_topics});
    routes.push_back({"GET", "/api/topics/{topic}", false, get_topic});
    add_segment_routes(routes);
    add_topic_write_routes(routes);
}

}  // namespace skiff::broker::console
