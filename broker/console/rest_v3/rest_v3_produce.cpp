// REST Proxy v3's record production: each record of the body (one JSON object, or several back
// to back) is answered with its own result, in order, as REST Proxy answers a streamed request.
// The records go to Kafka as one Produce request (acks=all) of one batch per partition, built
// with protocol/record_builder.h and served by skiff's own Produce handler as the caller, so
// ACLs, max.message.bytes, timestamp rules and the rest apply as they would to a client.
#include <chrono>
#include <map>
#include <random>

#include "broker/broker.h"
#include "broker/console/console_route.h"
#include "broker/console/murmur2.h"
#include "broker/console/produce_call.h"
#include "broker/console/rest_v3/produce_request.h"
#include "broker/console/rest_v3/rest_v3.h"
#include "broker/console/rest_v3/schema_serializer.h"
#include "protocol/produce.h"
#include "protocol/record_builder.h"

namespace skiff::broker::console::rest_v3 {

using nlohmann::json;
using protocol::ErrorCode;

namespace {

constexpr const char* kNotHosted = "This server does not host this topic-partition.";

// One record on its way: where it goes, and its result once known.
struct Pending {
    ProduceRecord record;
    int32_t partition = 0;
    int64_t timestamp_ms = 0;
    std::optional<RecordError> error;
    int64_t offset = -1;
};

// A Kafka error as REST Proxy reports it for a record.
RecordError from_kafka(ErrorCode code, const std::optional<std::string>& message) {
    std::string text = protocol::error_name(code);
    if (message && !message->empty())
        text += ": " + *message;
    switch (code) {
        case ErrorCode::unknown_topic_or_partition:
            return {40403, kNotHosted};
        case ErrorCode::topic_authorization_failed:
        case ErrorCode::cluster_authorization_failed:
            return {40301, text};
        case ErrorCode::message_too_large:
        case ErrorCode::record_list_too_large:
        case ErrorCode::invalid_record:
        case ErrorCode::invalid_timestamp:
        case ErrorCode::corrupt_message:
        case ErrorCode::policy_violation:
            return {400, text};
        default:
            return {50002, text};  // REST Proxy's code for an error of Kafka's
    }
}

// REST Proxy's five-digit codes begin with their HTTP status.
int status_of(int error_code) {
    return error_code >= 10000 ? error_code / 100 : error_code;
}

// Produces `batch` (records of one partition, in order) and records each one's offset or error.
void produce_partition(ApiCall& call, const std::string& topic, int32_t partition,
                       const std::vector<Pending*>& batch) {
    std::vector<protocol::RecordSpec> specs;
    int64_t base_timestamp = batch.front()->timestamp_ms;
    for (const Pending* p : batch)
        base_timestamp = std::min(base_timestamp, p->timestamp_ms);
    for (const Pending* p : batch) {
        protocol::RecordSpec spec;
        if (p->record.key)
            spec.key = p->record.key->data;
        if (p->record.value)
            spec.value = p->record.value->data;
        spec.headers = p->record.headers;
        spec.timestamp_delta = p->timestamp_ms - base_timestamp;
        specs.push_back(std::move(spec));
    }
    protocol::BatchSpec spec;
    spec.base_timestamp = base_timestamp;
    auto outcome = produce_batch(call.kafka, topic, partition, spec, specs);

    std::optional<RecordError> failed;
    int64_t base_offset = -1;
    int64_t append_time = -1;
    if (!outcome) {
        failed = RecordError{50002, outcome.error()};
    } else {
        if (outcome->error != ErrorCode::none)
            failed = from_kafka(outcome->error, outcome->message.empty()
                                                    ? std::optional<std::string>()
                                                    : std::optional<std::string>(outcome->message));
        base_offset = outcome->base_offset;
        append_time = outcome->log_append_time_ms;
    }
    if (failed && batch.size() > 1) {
        // One bad record fails its whole batch: produce them one by one, so that each record
        // gets its own result, as REST Proxy's producer would give them.
        for (Pending* p : batch)
            produce_partition(call, topic, partition, {p});
        return;
    }
    for (size_t i = 0; i < batch.size(); ++i) {
        Pending* p = batch[i];
        if (failed) {
            p->error = failed;
            continue;
        }
        p->offset = base_offset + static_cast<int64_t>(i);
        if (append_time >= 0)  // a LogAppendTime topic: the broker's time is the record's
            p->timestamp_ms = append_time;
    }
}

json data_json(const std::optional<RecordData>& d) {
    if (!d || !d->data)
        return nullptr;
    json out = {{"type", d->type}};
    if (d->schema_id) {  // serialized through the registry: where its schema is, as REST Proxy
        out["subject"] = d->subject.value_or("");
        out["schema_id"] = *d->schema_id;
        out["schema_version"] = d->schema_version.value_or(0);
    }
    out["size"] = d->data->size();
    return out;
}

json error_json(const RecordError& e) {
    return {{"error_code", e.error_code}, {"message", e.message}};
}

}  // namespace

http::HttpResponse produce_records(ApiCall& call) {
    if (auto refused = check_cluster(call))
        return std::move(*refused);
    const auto& topic = call.params.at("topic");

    // The whole body is read before anything is produced: malformed JSON anywhere in it is a
    // 400 for the request, and nothing of it is stored.
    auto texts = split_concatenated_json(call.http.body);
    if (!texts)
        return error_response(400, "Malformed JSON: " + texts.error(), 400);
    for (const auto& text : *texts) {
        if (!json::accept(text))
            return error_response(400, "Malformed JSON", 400);
    }

    auto metadata = topic_metadata(call, topic);
    if (!metadata)
        return std::move(metadata.error());
    if (metadata->topics.size() != 1)
        return error_response(500, "Metadata answered no topic", 500);
    const auto& described = metadata->topics.front();
    if (described.error_code == ErrorCode::topic_authorization_failed)
        return error_response(403, "Not authorized to access topics: [" + topic + "]", 40301);
    if (described.error_code != ErrorCode::none)
        return error_response(404, kNotHosted, 40403);
    const auto partitions = static_cast<int32_t>(described.partitions.size());

    // Records without a partition or a key stick to one partition for the request, as Kafka's
    // producer sticks keyless records to one partition per batch (KIP-480).
    thread_local std::mt19937 random{std::random_device{}()};
    const int32_t sticky =
        partitions > 0 ? static_cast<int32_t>(random() % static_cast<uint32_t>(partitions)) : 0;
    const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();

    std::vector<Pending> pending(texts->size());
    std::map<int32_t, std::vector<Pending*>> by_partition;
    SchemaSerializer serializer(call.broker.schema_registry(), call.kafka.caller().principal,
                                call.kafka.caller().host, topic);
    for (size_t i = 0; i < texts->size(); ++i) {
        Pending& p = pending[i];
        auto parsed = parse_produce_record((*texts)[i]);
        if (!parsed) {
            p.error = parsed.error();
            continue;
        }
        p.record = std::move(*parsed);
        // Before the partition is chosen: a serialized key is what the partitioner hashes.
        if (p.record.key && p.record.key->schema)
            p.error = serializer.serialize(*p.record.key, true);
        if (!p.error && p.record.value && p.record.value->schema)
            p.error = serializer.serialize(*p.record.value, false);
        if (p.error)
            continue;
        p.timestamp_ms = p.record.timestamp_ms.value_or(now_ms);
        if (p.record.partition_id) {
            if (*p.record.partition_id >= partitions) {
                p.error = RecordError{40402, kNotHosted};
                continue;
            }
            p.partition = *p.record.partition_id;
        } else if (p.record.key && p.record.key->data) {
            p.partition = partition_for_key(*p.record.key->data, partitions);
        } else {
            p.partition = sticky;
        }
        by_partition[p.partition].push_back(&p);
    }
    for (const auto& [partition, batch] : by_partition)
        produce_partition(call, topic, partition, batch);

    std::vector<json> results;
    for (const auto& p : pending) {
        if (p.error) {
            results.push_back(error_json(*p.error));
            continue;
        }
        results.push_back({{"error_code", 200},
                           {"cluster_id", call.broker.cluster_id()},
                           {"topic_name", topic},
                           {"partition_id", p.partition},
                           {"offset", p.offset},
                           {"timestamp", format_iso8601_ms(p.timestamp_ms)},
                           {"key", data_json(p.record.key)},
                           {"value", data_json(p.record.value)}});
    }
    // One record: its result is the answer, an error with its status. Several (the streaming
    // form): 200 and one result per record, in order, each with its own error_code.
    if (results.size() == 1) {
        const int code = results.front()["error_code"].get<int>();
        return json_response(code == 200 ? 200 : status_of(code), results.front());
    }
    http::HttpResponse r = json_response(200, results.front());
    for (size_t i = 1; i < results.size(); ++i) {
        r.body += "\n";
        r.body += results[i].dump(-1, ' ', false, json::error_handler_t::replace);
    }
    return r;
}

}  // namespace skiff::broker::console::rest_v3
