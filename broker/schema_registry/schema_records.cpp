#include "broker/schema_registry/schema_records.h"

#include <array>
#include <cstdint>
#include <limits>
#include <utility>

#include "broker/schema_registry/rest_json.h"

namespace skiff::schema_registry {
namespace {

constexpr std::array<std::pair<RecordKind, std::string_view>, 6> kKeyTypes{{
    {RecordKind::kSchema, "SCHEMA"},
    {RecordKind::kConfig, "CONFIG"},
    {RecordKind::kMode, "MODE"},
    {RecordKind::kNoop, "NOOP"},
    {RecordKind::kDeleteSubject, "DELETE_SUBJECT"},
    {RecordKind::kClearSubject, "CLEAR_SUBJECT"},
}};

// A field that is absent or null reads as nullopt; one of the wrong type makes the record
// unreadable (the bool is false).
struct RecordField {
    bool ok = true;
    const Json* value = nullptr;
};

RecordField record_field(const Json& object, std::string_view name, Json::value_t type) {
    auto it = object.find(name);
    if (it == object.end() || it->is_null())
        return {};
    if (type == Json::value_t::number_integer ? !it->is_number_integer() : it->type() != type)
        return {false, nullptr};
    return {true, &*it};
}

std::optional<std::string> record_string(const Json& object, std::string_view name, bool& ok) {
    RecordField f = record_field(object, name, Json::value_t::string);
    ok = ok && f.ok;
    return f.value ? std::optional<std::string>(f.value->get<std::string>()) : std::nullopt;
}

std::optional<int> record_int(const Json& object, std::string_view name, bool& ok) {
    RecordField f = record_field(object, name, Json::value_t::number_integer);
    ok = ok && f.ok;
    if (!f.value)
        return std::nullopt;
    if (f.value->is_number_unsigned()) {
        const auto v = f.value->get<uint64_t>();
        if (v > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
            ok = false;
            return std::nullopt;
        }
        return static_cast<int>(v);
    }
    const auto v = f.value->get<int64_t>();
    if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
        ok = false;
        return std::nullopt;
    }
    return static_cast<int>(v);
}

std::optional<Json> parse_record_json(std::string_view text) {
    Json json = Json::parse(text, nullptr, false);
    if (json.is_discarded() || !json.is_object())
        return std::nullopt;
    return json;
}

Json subject_value(const std::optional<std::string>& subject) {
    Json value = Json::object();
    if (subject)
        value["subject"] = *subject;
    return value;
}

std::optional<SchemaVersion> decode_schema_value(std::string_view text, const RecordKey& key) {
    std::optional<Json> json = parse_record_json(text);
    if (!json)
        return std::nullopt;
    bool ok = true;
    SchemaVersion v;
    v.subject = *key.subject;  // the key names the version; the value's copy is not trusted
    v.version = key.version;
    std::optional<int> id = record_int(*json, "id", ok);
    std::optional<std::string> schema = record_string(*json, "schema", ok);
    std::optional<std::string> type = record_string(*json, "schemaType", ok);
    RecordField deleted = record_field(*json, "deleted", Json::value_t::boolean);
    RecordField references = record_field(*json, "references", Json::value_t::array);
    if (!ok || !deleted.ok || !references.ok || !id || *id < 0 || !schema || schema->empty())
        return std::nullopt;
    v.id = *id;
    v.schema = std::move(*schema);
    if (type && !type->empty())
        v.schema_type = std::move(*type);
    v.deleted = deleted.value && deleted.value->get<bool>();
    if (references.value) {
        for (const Json& r : *references.value) {
            if (!r.is_object())
                return std::nullopt;
            std::optional<std::string> name = record_string(r, "name", ok);
            std::optional<std::string> subject = record_string(r, "subject", ok);
            std::optional<int> version = record_int(r, "version", ok);
            if (!ok || !name || !subject || !version)
                return std::nullopt;
            v.references.push_back({std::move(*name), std::move(*subject), *version});
        }
    }
    return v;
}

ApplyOutcome apply_schema_record(RegistryState& state, const RecordKey& key,
                                 std::optional<std::string_view> value) {
    if (!key.subject || key.version < 1)
        return ApplyOutcome::kUnreadable;
    if (!value) {
        state.remove_version(*key.subject, key.version);
        return ApplyOutcome::kApplied;
    }
    std::optional<SchemaVersion> v = decode_schema_value(*value, key);
    if (!v)
        return ApplyOutcome::kUnreadable;
    return state.put_version(std::move(*v)) ? ApplyOutcome::kApplied : ApplyOutcome::kConflictingId;
}

std::optional<std::string_view> scope_of(const RecordKey& key) {
    if (!key.subject)
        return std::nullopt;
    return std::string_view(*key.subject);
}

ApplyOutcome apply_config_record(RegistryState& state, const RecordKey& key,
                                 std::optional<std::string_view> value) {
    if (!value) {
        state.set_compatibility(scope_of(key), std::nullopt);
        return ApplyOutcome::kApplied;
    }
    std::optional<Json> json = parse_record_json(*value);
    bool ok = json.has_value();
    std::optional<std::string> level =
        ok ? record_string(*json, "compatibilityLevel", ok) : std::nullopt;
    if (!ok)
        return ApplyOutcome::kUnreadable;
    // A config with no level (Confluent's other settings only) leaves none at this scope.
    std::optional<CompatibilityLevel> parsed;
    if (level) {
        parsed = parse_compatibility_level(*level);
        if (!parsed)
            return ApplyOutcome::kUnreadable;
    }
    state.set_compatibility(scope_of(key), parsed);
    return ApplyOutcome::kApplied;
}

ApplyOutcome apply_mode_record(RegistryState& state, const RecordKey& key,
                               std::optional<std::string_view> value) {
    if (!value) {
        state.set_mode(scope_of(key), std::nullopt);
        return ApplyOutcome::kApplied;
    }
    std::optional<Json> json = parse_record_json(*value);
    bool ok = json.has_value();
    std::optional<std::string> mode = ok ? record_string(*json, "mode", ok) : std::nullopt;
    std::optional<RegistryMode> parsed = mode ? parse_mode(*mode) : std::nullopt;
    if (!ok || !parsed)
        return ApplyOutcome::kUnreadable;
    state.set_mode(scope_of(key), parsed);
    return ApplyOutcome::kApplied;
}

ApplyOutcome apply_delete_subject_record(RegistryState& state, const RecordKey& key,
                                         std::optional<std::string_view> value) {
    if (!value)
        return ApplyOutcome::kApplied;  // a tombstone of the marker itself: nothing to undo
    std::optional<Json> json = parse_record_json(*value);
    bool ok = json.has_value();
    std::optional<std::string> subject = ok ? record_string(*json, "subject", ok) : std::nullopt;
    std::optional<int> version = ok ? record_int(*json, "version", ok) : std::nullopt;
    if (!ok || !version || !(key.subject || subject))
        return ApplyOutcome::kUnreadable;
    state.soft_delete_subject(key.subject ? *key.subject : *subject, *version);
    return ApplyOutcome::kApplied;
}

ApplyOutcome apply_clear_subject_record(RegistryState& state, const RecordKey& key,
                                        std::optional<std::string_view> value) {
    if (!value)
        return ApplyOutcome::kApplied;
    std::optional<Json> json = parse_record_json(*value);
    bool ok = json.has_value();
    std::optional<std::string> subject = ok ? record_string(*json, "subject", ok) : std::nullopt;
    if (!ok)
        return ApplyOutcome::kUnreadable;
    if (key.subject)
        subject = key.subject;
    state.clear_soft_deleted(subject ? std::optional<std::string_view>(*subject) : std::nullopt);
    return ApplyOutcome::kApplied;
}

}  // namespace

std::string encode_key(const RecordKey& key) {
    Json json;
    for (const auto& [kind, name] : kKeyTypes) {
        if (kind == key.kind)
            json["keytype"] = name;
    }
    if (key.kind != RecordKind::kNoop && key.subject)
        json["subject"] = *key.subject;
    if (key.kind == RecordKind::kSchema)
        json["version"] = key.version;
    json["magic"] = key.kind == RecordKind::kSchema ? 1 : 0;
    return dump_json(json);
}

std::optional<RecordKey> decode_key(std::string_view text) {
    std::optional<Json> json = parse_record_json(text);
    if (!json)
        return std::nullopt;
    bool ok = true;
    std::optional<std::string> type = record_string(*json, "keytype", ok);
    RecordKey key;
    key.subject = record_string(*json, "subject", ok);
    std::optional<int> version = record_int(*json, "version", ok);
    std::optional<int> magic = record_int(*json, "magic", ok);
    if (!ok || !type)
        return std::nullopt;
    bool known = false;
    for (const auto& [kind, name] : kKeyTypes) {
        if (name == *type) {
            key.kind = kind;
            known = true;
        }
    }
    if (!known)
        return std::nullopt;
    if (key.kind == RecordKind::kSchema) {
        // Confluent reads SCHEMA keys of magic 0 (its first format) and 1.
        if (!key.subject || !version || (magic && *magic != 0 && *magic != 1))
            return std::nullopt;
        key.version = *version;
    }
    return key;
}

std::string encode_schema_value(const SchemaVersion& v) {
    Json json;
    json["subject"] = v.subject;
    json["version"] = v.version;
    json["id"] = v.id;
    if (v.schema_type != "AVRO")
        json["schemaType"] = v.schema_type;
    if (!v.references.empty()) {
        Json references = Json::array();
        for (const SchemaReference& r : v.references)
            references.push_back(
                {{"name", r.name}, {"subject", r.subject}, {"version", r.version}});
        json["references"] = std::move(references);
    }
    json["schema"] = v.schema;
    json["deleted"] = v.deleted;
    return dump_json(json);
}

std::string encode_config_value(const std::optional<std::string>& subject,
                                CompatibilityLevel level) {
    Json json = subject_value(subject);
    json["compatibilityLevel"] = level_name(level);
    return dump_json(json);
}

std::string encode_mode_value(const std::optional<std::string>& subject, RegistryMode mode) {
    Json json = subject_value(subject);
    json["mode"] = mode_name(mode);
    return dump_json(json);
}

std::string encode_delete_subject_value(const std::string& subject, int up_to_version) {
    Json json = subject_value(subject);
    json["version"] = up_to_version;
    return dump_json(json);
}

std::string encode_clear_subject_value(const std::optional<std::string>& subject) {
    return dump_json(subject_value(subject));
}

RecordKey schema_key(const std::string& subject, int version) {
    return {RecordKind::kSchema, subject, version};
}
RecordKey config_key(const std::optional<std::string>& subject) {
    return {RecordKind::kConfig, subject, 0};
}
RecordKey mode_key(const std::optional<std::string>& subject) {
    return {RecordKind::kMode, subject, 0};
}
RecordKey delete_subject_key(const std::string& subject) {
    return {RecordKind::kDeleteSubject, subject, 0};
}
RecordKey clear_subject_key(const std::optional<std::string>& subject) {
    return {RecordKind::kClearSubject, subject, 0};
}

ApplyOutcome apply_record(RegistryState& state, std::string_view key_text,
                          std::optional<std::string_view> value) {
    std::optional<RecordKey> key = decode_key(key_text);
    if (!key)
        return ApplyOutcome::kUnreadable;
    switch (key->kind) {
        case RecordKind::kSchema:
            return apply_schema_record(state, *key, value);
        case RecordKind::kConfig:
            return apply_config_record(state, *key, value);
        case RecordKind::kMode:
            return apply_mode_record(state, *key, value);
        case RecordKind::kDeleteSubject:
            return apply_delete_subject_record(state, *key, value);
        case RecordKind::kClearSubject:
            return apply_clear_subject_record(state, *key, value);
        case RecordKind::kNoop:
            return ApplyOutcome::kApplied;
    }
    return ApplyOutcome::kUnreadable;
}

}  // namespace skiff::schema_registry
