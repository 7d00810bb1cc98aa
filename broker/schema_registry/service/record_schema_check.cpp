#include "broker/schema_registry/service/record_schema_check.h"

#include <nlohmann/json.hpp>

namespace skiff::broker::schema_registry_service {
namespace {

constexpr size_t kHeaderBytes = 5;  // magic byte 0, big-endian int32 schema id

// The subjects holding `id`, as GET /schemas/ids/{id}/subjects answers them (the registry's
// own ACLs do not apply: this is the broker asking).
std::vector<std::string> subjects_of(schema_registry::Registry& registry, int32_t id) {
    schema_registry::RestRequest request;
    request.method = "GET";
    request.path = "/schemas/ids/" + std::to_string(id) + "/subjects";
    request.principal = "User:skiff-broker";
    auto answer = registry.handle(request);
    if (answer.status != 200)
        return {};
    auto parsed = nlohmann::json::parse(answer.body, nullptr, false);
    std::vector<std::string> out;
    if (parsed.is_array())
        for (const auto& s : parsed)
            if (s.is_string())
                out.push_back(s.get<std::string>());
    return out;
}

}  // namespace

RecordSchemaCheck::RecordSchemaCheck(const SchemaValidation& validation, const std::string& topic,
                                     schema_registry::Registry* registry)
    : validation_(validation),
      topic_(topic),
      key_subject_(topic + "-key"),
      value_subject_(topic + "-value"),
      registry_(registry) {}

std::optional<std::string> RecordSchemaCheck::refuse(const protocol::Record& record) const {
    if (validation_.key)
        if (auto why = refuse_part(record.key, true))
            return why;
    if (validation_.value)
        if (auto why = refuse_part(record.value, false))
            return why;
    return std::nullopt;
}

std::optional<std::string> RecordSchemaCheck::refuse_part(
    const std::optional<std::span<const std::byte>>& bytes, bool is_key) const {
    const char* part = is_key ? "key" : "value";
    if (!registry_)
        return std::string("schema validation of the record's ") + part +
               " needs the schema registry, which is off (schema.registry.listeners)";
    if (!bytes || bytes->size() < kHeaderBytes || std::to_integer<int>((*bytes)[0]) != 0)
        return std::string("the record's ") + part +
               " does not start with a schema id (magic byte 0 and a 4-byte id)";
    const auto b = [&](size_t i) {
        return static_cast<uint32_t>(std::to_integer<int>((*bytes)[i]));
    };
    const auto id = static_cast<int32_t>(b(1) << 24 | b(2) << 16 | b(3) << 8 | b(4));
    if (id_allowed(id, is_key))
        return std::nullopt;
    return std::string("the record's ") + part + " has schema id " + std::to_string(id) +
           ", which is not registered under the " + part + " subject of topic " + topic_;
}

bool RecordSchemaCheck::id_allowed(int32_t id, bool is_key) const {
    const int64_t memo = (static_cast<int64_t>(id) << 1) | (is_key ? 1 : 0);
    if (memo == last_memo_)  // the common case: the batch's records share their schema
        return last_verdict_;
    if (auto it = verdicts_.find(memo); it != verdicts_.end()) {
        last_memo_ = memo;
        last_verdict_ = it->second;
        return it->second;
    }
    const auto strategy = is_key ? validation_.key_strategy : validation_.value_strategy;
    bool allowed = false;
    if (strategy == SubjectNameStrategy::topic_name) {
        allowed = registry_->subject_has_schema_id(is_key ? key_subject_ : value_subject_, id);
    } else {
        const std::string prefix = topic_ + "-";
        for (const auto& subject : subjects_of(*registry_, id))
            if (strategy == SubjectNameStrategy::record_name || subject.starts_with(prefix))
                allowed = allowed || registry_->subject_has_schema_id(subject, id);
    }
    verdicts_[memo] = allowed;
    last_memo_ = memo;
    last_verdict_ = allowed;
    return allowed;
}

}  // namespace skiff::broker::schema_registry_service
