// GET /api/topics/{topic}/partitions/{partition}/segments (docs/console-api.md): a partition's
// segments as they are on disk, with their offset and time index entries. No Kafka API shows
// them, so they are read from storage, after the check the Metadata handler makes: DESCRIBE on
// the topic for the caller's principal and host (any caller when there is no authorizer).
//
// Reading while the broker appends, rolls and deletes is safe by the storage model's own rules:
// PartitionLog::segments() is an immutable snapshot whose shared_ptrs keep each segment (and
// its mapped indexes) alive even if retention deletes its files meanwhile; index entries are
// read only below the count the appender published (MappedIndex::entries), and the active
// segment's size is its committed size. So an answer is a consistent picture of one moment,
// possibly of files already gone by the time it is read.
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <limits>

#include "broker/broker.h"
#include "broker/console/api/topic_api.h"
#include "broker/security/authorizer.h"
#include "protocol/error_code.h"
#include "protocol/record_batch.h"

namespace skiff::broker::console {
namespace {

using protocol::ErrorCode;
constexpr int32_t kDefaultIndexLimit = 200;
constexpr int32_t kMaxIndexLimit = 2000;

bool may_describe(ApiCall& call, const std::string& topic) {
    auto* authorizer = call.broker.authorizer();
    if (!authorizer)
        return true;
    const auto& caller = call.kafka.caller();
    return authorizer->authorize(caller.principal, caller.host, security::AclOperation::describe,
                                 security::ResourceType::topic, topic);
}

int64_t modified_ms(const std::filesystem::path& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        return -1;  // deleted since the snapshot was taken
    return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 +
           static_cast<int64_t>(st.st_mtim.tv_nsec / 1000000);
}

int64_t size_on_disk(const std::filesystem::path& path) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    return ec ? -1 : static_cast<int64_t>(size);
}

// The first batch's base timestamp (the segment's first record's), or null for an empty
// segment or one whose file is gone.
nlohmann::json first_timestamp(const storage::LogSegment& segment, int64_t size) {
    if (size < static_cast<int64_t>(protocol::kBatchHeaderSize))
        return nullptr;
    auto file = segment.file();
    if (!file)
        return nullptr;
    std::array<std::byte, protocol::kBatchHeaderSize> header{};
    if (!(*file)->read_at(0, header))
        return nullptr;
    return protocol::read_batch_header(header).base_timestamp;
}

nlohmann::json offset_index(const storage::OffsetIndex& index, size_t limit) {
    const size_t entries = index.entries();
    nlohmann::json shown = nlohmann::json::array();
    for (size_t i = 0; i < std::min(entries, limit); ++i) {
        const auto e = index.entry(i);
        shown.push_back({{"offset", e.offset}, {"position", e.position}});
    }
    return {{"entries", entries},
            {"size_bytes", size_on_disk(index.file().path())},
            {"max_entries", index.file().capacity()},
            {"entries_shown", shown}};
}

nlohmann::json time_index(const storage::TimeIndex& index, size_t limit) {
    const size_t entries = index.entries();
    nlohmann::json shown = nlohmann::json::array();
    for (size_t i = 0; i < std::min(entries, limit); ++i) {
        const auto e = index.entry(i);
        shown.push_back({{"timestamp", e.timestamp}, {"offset", e.offset}});
    }
    return {{"entries", entries},
            {"size_bytes", size_on_disk(index.file().path())},
            {"max_entries", index.file().capacity()},
            {"entries_shown", shown}};
}

http::HttpResponse list_segments(ApiCall& call) {
    const auto& topic = call.params.at("topic");
    const auto partition =
        parse_int32(call.params.at("partition"), 0, std::numeric_limits<int32_t>::max());
    if (!partition)
        return error_response(400, "the partition must be a number from 0 to 2147483647");
    int32_t limit = kDefaultIndexLimit;
    if (auto text = call.query_value("index_limit"); !text.empty()) {
        auto parsed = parse_int32(text, 0, std::numeric_limits<int32_t>::max());
        if (!parsed)
            return error_response(400, "index_limit must be a number from 0 to 2000");
        limit = std::min(*parsed, kMaxIndexLimit);
    }
    // As Metadata answers: an unauthorized caller learns nothing, not even whether it exists.
    if (!may_describe(call, topic))
        return kafka_error_response(static_cast<int16_t>(ErrorCode::topic_authorization_failed));
    auto* log = call.broker.logs().get({topic, *partition});
    if (!log)
        return kafka_error_response(static_cast<int16_t>(ErrorCode::unknown_topic_or_partition));
    const auto config = log->config();
    const auto segments = log->segments();
    nlohmann::json list = nlohmann::json::array();
    for (size_t i = 0; i < segments->size(); ++i) {
        const auto& segment = (*segments)[i];
        const int64_t size = segment->size_bytes();
        const auto max = segment->max_timestamp();
        list.push_back(
            {{"base_offset", segment->base_offset()},
             {"next_offset", segment->next_offset()},
             {"size_bytes", size},
             {"active", i + 1 == segments->size()},
             {"first_timestamp", first_timestamp(*segment, size)},
             {"max_timestamp", max ? nlohmann::json(max->timestamp) : nlohmann::json(nullptr)},
             {"modified_ms", modified_ms(segment->log_path())},
             {"file", segment->log_path().filename().string()},
             {"index", offset_index(segment->offset_index(), static_cast<size_t>(limit))},
             {"time_index", time_index(segment->time_index(), static_cast<size_t>(limit))}});
    }
    nlohmann::json body = {{"topic", topic},
                           {"partition", *partition},
                           {"log_start_offset", log->log_start_offset()},
                           {"log_end_offset", log->log_end_offset()},
                           {"settings",
                            {{"segment.bytes", config.segment_bytes},
                             {"segment.ms", config.roll_ms},
                             {"index.interval.bytes", config.index_interval_bytes},
                             {"segment.index.bytes", config.index_size_max_bytes}}},
                           {"segments", list}};
    return json_response(200, body);
}

}  // namespace

void add_segment_routes(RouteTable& routes) {
    routes.push_back(
        {"GET", "/api/topics/{topic}/partitions/{partition}/segments", false, list_segments});
}

}  // namespace skiff::broker::console
