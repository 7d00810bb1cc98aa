// The console API's records (docs/console-api.md, "Records"): a page of a partition's records
// read with ListOffsets and one Fetch as the caller, decoded here (batches, codecs, records,
// Confluent's wire format through the schema registry), and a test message produced with a
// Produce request. Reading happens on the console's HTTP thread: the Fetch never waits
// (max_wait_ms 0) and is bounded by the page's byte budget, so a page costs the broker one
// bounded read and nothing while nobody looks.
#include <charconv>
#include <chrono>
#include <limits>

#include "broker/broker.h"
#include "broker/console/console_route.h"
#include "broker/console/murmur2.h"
#include "broker/console/produce_call.h"
#include "broker/console/record_view.h"
#include "broker/console/schema_decoder.h"
#include "protocol/compression/compression.h"
#include "protocol/fetch.h"
#include "protocol/list_offsets.h"
#include "protocol/metadata.h"
#include "protocol/produce.h"
#include "protocol/record_batch.h"
#include "protocol/record_builder.h"
#include "protocol/record_iterator.h"

namespace skiff::broker::console {
namespace record_routes_impl {

using protocol::ErrorCode;

constexpr int16_t kListOffsetsVersion = 7;
constexpr int16_t kFetchVersion = 12;  // the last with topic names
constexpr int16_t kProduceVersion = 9;
constexpr int16_t kMetadataVersion = 12;
constexpr size_t kDefaultLimit = 50;

template <class Int>
std::optional<Int> parse_int(std::string_view text) {
    Int value{};
    const auto* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc() || ptr != end || text.empty())
        return std::nullopt;
    return value;
}

struct ListedOffset {
    ErrorCode error = ErrorCode::none;
    int64_t offset = -1;
};

ListedOffset list_offset(ApiCall& call, const std::string& topic, int32_t partition,
                         int64_t timestamp, std::string& failure) {
    protocol::ListOffsetsRequest request;
    request.isolation_level = 0;
    protocol::ListOffsetsTopic t;
    t.name = topic;
    t.partitions.push_back({partition, -1, timestamp, 1});
    request.topics.push_back(std::move(t));
    auto reply = call.kafka.call<protocol::ListOffsetsResponse>(request, kListOffsetsVersion);
    if (!reply) {
        failure = reply.error();
        return {ErrorCode::unknown_server_error, -1};
    }
    for (const auto& rt : reply->message.topics) {
        for (const auto& rp : rt.partitions) {
            if (rp.partition_index == partition)
                return {rp.error_code, rp.offset};
        }
    }
    failure = "no answer for the partition";
    return {ErrorCode::unknown_server_error, -1};
}

// One record batch's fields as the API shows them.
nlohmann::json batch_view(const protocol::BatchHeader& h) {
    return {{"base_offset", h.base_offset},
            {"last_offset", h.last_offset()},
            {"producer_id", h.producer_id},
            {"producer_epoch", h.producer_epoch},
            {"base_sequence", h.base_sequence},
            {"transactional", h.is_transactional()},
            {"control", h.is_control()},
            {"compression", protocol::compression_name(h.compression())}};
}

// Decodes the record batches a Fetch returned into the page's records: from `start`, at most
// `limit` records and about `byte_budget` bytes of keys, values and headers shown.
struct Page {
    nlohmann::json records = nlohmann::json::array();
    nlohmann::json skipped = nlohmann::json::array();  // batches that could not be read
    int64_t next_offset = 0;
};

void decode_batches(std::span<const std::byte> bytes, int64_t start, size_t limit,
                    size_t byte_budget, SchemaDecoder* decoder, Page& page) {
    std::vector<std::byte> inflated;
    size_t shown_bytes = 0;
    size_t pos = 0;
    while (pos + protocol::kBatchLogOverhead <= bytes.size()) {
        const auto rest = bytes.subspan(pos);
        if (rest.size() < protocol::kBatchHeaderSize)
            break;  // a partial batch at the end of a bounded fetch: read next page
        auto checked = protocol::check_batch(rest);
        if (!checked) {
            if (checked.error().code == protocol::BatchErrc::truncated)
                break;
            page.skipped.push_back({{"position", pos}, {"reason", checked.error().message}});
            break;  // the framing past a bad batch cannot be trusted
        }
        const protocol::BatchHeader h = *checked;
        const size_t batch_size = static_cast<size_t>(h.size_bytes());
        pos += batch_size;
        if (h.last_offset() < start)
            continue;
        if (h.is_control()) {
            // Transaction markers are not records a user produced: skipped, their offsets
            // passed over.
            page.next_offset = std::max(page.next_offset, h.last_offset() + 1);
            continue;
        }
        const auto body =
            rest.subspan(protocol::kBatchHeaderSize, batch_size - protocol::kBatchHeaderSize);
        std::span<const std::byte> records = body;
        if (h.compression() != protocol::Compression::none) {
            // Bounded like the page: a small compressed batch cannot inflate without limit.
            auto done = protocol::compression::decompress(
                h.compression(), body, inflated, std::max(byte_budget, size_t{1} << 20) * 4);
            if (!done) {
                page.skipped.push_back({{"base_offset", h.base_offset},
                                        {"last_offset", h.last_offset()},
                                        {"reason", done.error().message}});
                page.next_offset = std::max(page.next_offset, h.last_offset() + 1);
                continue;
            }
            records = inflated;
        }
        auto it = protocol::RecordIterator::over_records(records, h);
        const nlohmann::json batch = batch_view(h);
        while (true) {
            auto next = it.next();
            if (!next) {
                page.skipped.push_back({{"base_offset", h.base_offset},
                                        {"last_offset", h.last_offset()},
                                        {"reason", next.error().message}});
                page.next_offset = std::max(page.next_offset, h.last_offset() + 1);
                break;
            }
            if (!*next) {
                page.next_offset = std::max(page.next_offset, h.last_offset() + 1);
                break;
            }
            const protocol::Record& r = **next;
            const int64_t offset = protocol::record_offset(h, r);
            if (offset < start)
                continue;
            if (page.records.size() >= limit ||
                (shown_bytes >= byte_budget && !page.records.empty())) {
                page.next_offset = offset;
                return;
            }
            nlohmann::json headers = nlohmann::json::array();
            size_t size = (r.key ? r.key->size() : 0) + (r.value ? r.value->size() : 0);
            for (const auto& header : r.headers) {
                headers.push_back({{"key", std::string(header.key)},
                                   {"value", value_view(header.value, nullptr)}});
                size += header.key.size() + (header.value ? header.value->size() : 0);
            }
            shown_bytes += std::min(size, kMaxShownValueBytes * (2 + r.headers.size()));
            page.records.push_back(
                {{"offset", offset},
                 {"timestamp", protocol::record_timestamp(h, r)},
                 {"timestamp_type", h.log_append_time() ? "LogAppendTime" : "CreateTime"},
                 {"key", value_view(r.key, decoder)},
                 {"value", value_view(r.value, decoder)},
                 {"headers", std::move(headers)},
                 {"batch", batch}});
            page.next_offset = offset + 1;
        }
    }
}

http::HttpResponse list_records(ApiCall& call) {
    const std::string topic = call.params.at("topic");
    const auto partition = parse_int<int32_t>(call.params.at("partition"));
    if (!partition || *partition < 0)
        return error_response(400, "the partition must be a number from 0");
    size_t limit = kDefaultLimit;
    if (const auto text = call.query_value("limit"); !text.empty()) {
        const auto n = parse_int<int64_t>(text);
        if (!n || *n < 1)
            return error_response(400, "limit must be a positive number");
        limit = static_cast<size_t>(
            std::min<int64_t>(*n, static_cast<int64_t>(call.settings.max_records_per_page)));
    }
    const std::string from = call.query_value("from", "end");
    if (from != "beginning" && from != "end" && from != "offset" && from != "timestamp")
        return error_response(400, "from must be beginning, end, offset or timestamp");

    // Where the partition starts and ends, as a consumer would ask (and the caller's rights on
    // the topic checked by the first request).
    std::string failure;
    const auto earliest =
        list_offset(call, topic, *partition, protocol::kListOffsetsEarliest, failure);
    if (!failure.empty())
        return error_response(500, failure);
    if (earliest.error != ErrorCode::none)
        return kafka_error_response(static_cast<int16_t>(earliest.error));
    const auto latest = list_offset(call, topic, *partition, protocol::kListOffsetsLatest, failure);
    if (!failure.empty())
        return error_response(500, failure);
    if (latest.error != ErrorCode::none)
        return kafka_error_response(static_cast<int16_t>(latest.error));
    const int64_t log_start = earliest.offset;
    const int64_t high_watermark = latest.offset;

    int64_t start = log_start;
    if (from == "end") {
        start = std::max(log_start, high_watermark - static_cast<int64_t>(limit));
    } else if (from == "offset") {
        const auto n = parse_int<int64_t>(call.query_value("offset"));
        if (!n || *n < 0)
            return error_response(400, "from=offset needs offset=N, a number from 0");
        start = std::clamp(*n, log_start, high_watermark);
    } else if (from == "timestamp") {
        const auto ts = parse_int<int64_t>(call.query_value("timestamp"));
        if (!ts || *ts < 0)
            return error_response(400, "from=timestamp needs timestamp=ms, a number from 0");
        const auto found = list_offset(call, topic, *partition, *ts, failure);
        if (!failure.empty())
            return error_response(500, failure);
        if (found.error != ErrorCode::none)
            return kafka_error_response(static_cast<int16_t>(found.error));
        // No record at or after the timestamp: the page is empty, at the end.
        start = found.offset < 0 ? high_watermark : std::max(found.offset, log_start);
    }

    Page page;
    page.next_offset = start;
    if (start < high_watermark) {
        protocol::FetchRequest request;
        request.max_wait_ms = 0;  // never park an HTTP thread, never wait for new records
        request.min_bytes = 0;
        request.isolation_level = 0;  // read_uncommitted: what is in the log
        const auto max_bytes = static_cast<int32_t>(std::min<size_t>(
            call.settings.max_record_bytes_per_page, std::numeric_limits<int32_t>::max()));
        request.max_bytes = max_bytes;
        protocol::FetchTopic t;
        t.topic = topic;
        protocol::FetchPartition p;
        p.partition = *partition;
        p.fetch_offset = start;
        p.partition_max_bytes = max_bytes;
        t.partitions.push_back(p);
        request.topics.push_back(std::move(t));
        auto reply = call.kafka.call<protocol::FetchResponse>(request, kFetchVersion);
        if (!reply)
            return error_response(500, reply.error());
        if (reply->message.error_code != ErrorCode::none)
            return kafka_error_response(static_cast<int16_t>(reply->message.error_code));
        std::unique_ptr<SchemaDecoder> decoder;
        if (auto* registry = call.broker.schema_registry())
            decoder = std::make_unique<SchemaDecoder>(*registry, call.kafka.caller().principal,
                                                      call.kafka.caller().host);
        for (const auto& rt : reply->message.responses) {
            for (const auto& rp : rt.partitions) {
                if (rp.partition_index != *partition)
                    continue;
                if (rp.error_code != ErrorCode::none)
                    return kafka_error_response(static_cast<int16_t>(rp.error_code));
                decode_batches(rp.records.inline_bytes, start, limit,
                               call.settings.max_record_bytes_per_page, decoder.get(), page);
            }
        }
    }
    nlohmann::json body = {{"topic", topic},
                           {"partition", *partition},
                           {"log_start_offset", log_start},
                           {"high_watermark", high_watermark},
                           {"next_offset", page.next_offset},
                           {"records", std::move(page.records)}};
    if (!page.skipped.empty())
        body["skipped"] = std::move(page.skipped);
    return json_response(200, body);
}

// A key, value or header value of the produce body: a string, or null (absent is null too).
bool optional_string(const nlohmann::json& body, const char* name, std::optional<std::string>& out,
                     std::string& why) {
    auto it = body.find(name);
    if (it == body.end() || it->is_null()) {
        out.reset();
        return true;
    }
    if (!it->is_string()) {
        why = std::string(name) + " must be a string or null";
        return false;
    }
    out = it->get<std::string>();
    return true;
}

// The partition count of `topic` as the caller's Metadata shows it.
Expected<int32_t, http::HttpResponse> partition_count(ApiCall& call, const std::string& topic) {
    protocol::MetadataRequest request;
    protocol::MetadataRequestTopic t;
    t.name = topic;
    request.topics = std::vector<protocol::MetadataRequestTopic>{t};
    request.allow_auto_topic_creation = false;
    auto reply = call.kafka.call<protocol::MetadataResponse>(request, kMetadataVersion);
    if (!reply)
        return unexpected(error_response(500, reply.error()));
    for (const auto& mt : reply->message.topics) {
        if (mt.error_code != ErrorCode::none)
            return unexpected(kafka_error_response(static_cast<int16_t>(mt.error_code)));
        if (mt.partitions.empty())
            break;
        return static_cast<int32_t>(mt.partitions.size());
    }
    return unexpected(
        kafka_error_response(static_cast<int16_t>(ErrorCode::unknown_topic_or_partition)));
}

http::HttpResponse produce_record(ApiCall& call) {
    const std::string topic = call.params.at("topic");
    auto parsed = parse_json_object(call.http.body);
    if (!parsed)
        return error_response(400, parsed.error());
    nlohmann::json& body = *parsed;
    protocol::RecordSpec record;
    std::string why;
    if (!optional_string(body, "key", record.key, why) ||
        !optional_string(body, "value", record.value, why))
        return error_response(400, why);
    if (auto headers = body.find("headers"); headers != body.end() && !headers->is_null()) {
        if (!headers->is_array())
            return error_response(400, "headers must be an array of {\"key\", \"value\"}");
        for (const auto& header : *headers) {
            if (!header.is_object() || !header.contains("key") || !header["key"].is_string())
                return error_response(400, "each header needs a string key");
            std::optional<std::string> value;
            if (!optional_string(header, "value", value, why))
                return error_response(400, "header " + why);
            record.headers.emplace_back(header["key"].get<std::string>(), std::move(value));
        }
    }
    int32_t partition = 0;
    if (auto p = body.find("partition"); p != body.end() && !p->is_null()) {
        if (!p->is_number_integer() || p->get<int64_t>() < 0 ||
            p->get<int64_t>() > std::numeric_limits<int32_t>::max())
            return error_response(400, "partition must be a number from 0");
        partition = static_cast<int32_t>(p->get<int64_t>());
    } else if (record.key) {
        auto count = partition_count(call, topic);
        if (!count)
            return std::move(count.error());
        partition = partition_for_key(*record.key, *count);
    }
    const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    protocol::BatchSpec spec;
    spec.base_timestamp = now;
    auto outcome = produce_batch(call.kafka, topic, partition, spec, {record});
    if (!outcome)
        return error_response(500, outcome.error());
    if (outcome->error != ErrorCode::none)
        return kafka_error_response(static_cast<int16_t>(outcome->error), outcome->message);
    return json_response(
        200, {{"partition", partition},
              {"offset", outcome->base_offset},
              {"timestamp", outcome->log_append_time_ms >= 0 ? outcome->log_append_time_ms : now}});
}

}  // namespace record_routes_impl

void add_record_routes(RouteTable& routes) {
    using namespace record_routes_impl;  // this file's own helpers
    routes.push_back(
        {"GET", "/api/topics/{topic}/partitions/{partition}/records", false, list_records});
    routes.push_back({"POST", "/api/topics/{topic}/records", true, produce_record});
}

}  // namespace skiff::broker::console
