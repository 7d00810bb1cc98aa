#include "broker/schema_registry/service/schemas_topic.h"

#include "broker/topics/internal_log.h"
#include "protocol/record_builder.h"
#include "storage/log_config.h"

namespace skiff::broker::schema_registry_service {
namespace {

std::string_view text(std::span<const std::byte> bytes) {
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

}  // namespace

Expected<void, std::string> SchemasTopic::replay(const Replay& replay) {
    const auto visit =
        [&](const protocol::BatchHeader& header,
            const std::vector<protocol::Record>& records) -> Expected<void, std::string> {
        if (header.is_control())
            return {};
        for (const auto& r : records) {
            if (!r.key)
                continue;
            if (r.value)
                replay(text(*r.key), text(*r.value));
            else
                replay(text(*r.key), std::nullopt);
        }
        return {};
    };
    return replay_internal_log(*log_, kSchemasTopic, visit);
}

std::optional<std::string> SchemasTopic::append(std::string_view key,
                                                std::optional<std::string_view> value) {
    protocol::RecordSpec record;
    record.key = std::string(key);
    if (value)
        record.value = std::string(*value);
    protocol::BatchSpec spec;
    spec.base_timestamp = storage::wall_clock_ms();
    const auto batch = protocol::build_record_batch(spec, {record});
    auto summaries = protocol::validate_batches(batch);
    if (!summaries)
        return "building a record for " + std::string(kSchemasTopic) + ": " +
               summaries.error().message;
    std::lock_guard lock(mutex_);
    auto appended = log_->append(batch, *summaries, storage::AppendOrigin::coordinator);
    if (!appended)
        return "appending to " + std::string(kSchemasTopic) + ": " + appended.error().message;
    if (auto flushed = log_->flush(); !flushed)
        return "syncing " + std::string(kSchemasTopic) + ": " + flushed.error().message;
    return std::nullopt;
}

}  // namespace skiff::broker::schema_registry_service
