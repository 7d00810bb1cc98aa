#include "broker/console/rest_v3/produce_request.h"

#include <time.h>

#include <array>
#include <cctype>
#include <cstdio>
#include <limits>

#include <nlohmann/json.hpp>

#include "broker/console/produce_call.h"
#include "broker/security/scram.h"

namespace skiff::broker::console::rest_v3 {

using nlohmann::json;

Expected<std::vector<std::string_view>, std::string> split_concatenated_json(
    std::string_view body) {
    std::vector<std::string_view> out;
    size_t i = 0;
    const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
    while (true) {
        while (i < body.size() && space(body[i]))
            ++i;
        if (i == body.size())
            break;
        if (body[i] != '{')
            return unexpected("expected a JSON object at byte " + std::to_string(i));
        // Up to the brace that closes this one, skipping strings (which may hold braces).
        const size_t start = i;
        int depth = 0;
        bool in_string = false;
        for (; i < body.size(); ++i) {
            const char c = body[i];
            if (in_string) {
                if (c == '\\')
                    ++i;
                else if (c == '"')
                    in_string = false;
                continue;
            }
            if (c == '"')
                in_string = true;
            else if (c == '{' || c == '[')
                ++depth;
            else if (c == '}' || c == ']')
                --depth;
            if (depth == 0)
                break;
        }
        if (i >= body.size())
            return unexpected("unterminated JSON object starting at byte " + std::to_string(start));
        ++i;
        out.push_back(body.substr(start, i - start));
    }
    if (out.empty())
        return unexpected(std::string("the body holds no record"));
    return out;
}

namespace {

std::string upper(std::string s) {
    for (auto& c : s)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

RecordError bad(std::string message) {
    return RecordError{400, std::move(message)};
}

std::optional<int32_t> json_int32(const json& v) {
    auto n = json_int64(v);
    if (!n || *n < std::numeric_limits<int32_t>::min() || *n > std::numeric_limits<int32_t>::max())
        return std::nullopt;
    return static_cast<int32_t>(*n);
}

// The schema fields of a key or value, checked as REST Proxy's SchemaManager checks them: an id
// alone, a version (of the subject), a schema text with its format, or none (the latest).
Expected<SchemaChoice, RecordError> parse_schema_choice(const json& field, const std::string& name,
                                                        std::optional<std::string> type) {
    SchemaChoice c;
    c.type = std::move(type);
    const auto string_field = [&](const char* key,
                                  std::optional<std::string>& out) -> std::optional<RecordError> {
        auto it = field.find(key);
        if (it == field.end() || it->is_null())
            return std::nullopt;
        if (!it->is_string())
            return bad(name + "." + key + " must be a string");
        out = it->get<std::string>();
        return std::nullopt;
    };
    const auto int_field = [&](const char* key,
                               std::optional<int32_t>& out) -> std::optional<RecordError> {
        auto it = field.find(key);
        if (it == field.end() || it->is_null())
            return std::nullopt;
        out = json_int32(*it);
        if (!out || *out < 1)
            return bad(name + "." + key + " must be a positive integer");
        return std::nullopt;
    };
    for (auto e :
         {string_field("subject", c.subject), string_field("subject_name_strategy", c.strategy),
          string_field("schema", c.raw_schema), int_field("schema_id", c.schema_id),
          int_field("schema_version", c.schema_version)}) {
        if (e)
            return unexpected(*e);
    }
    if (c.strategy) {
        c.strategy = upper(*c.strategy);
        if (*c.strategy != "TOPIC_NAME" && *c.strategy != "RECORD_NAME" &&
            *c.strategy != "TOPIC_RECORD_NAME")
            return unexpected(bad(name + ".subject_name_strategy must be TOPIC_NAME, RECORD_NAME "
                                         "or TOPIC_RECORD_NAME"));
    }
    if (c.schema_id && (c.schema_version || c.raw_schema))
        return unexpected(bad(name + ": schema_id goes alone, without schema_version or schema"));
    if (c.schema_version && c.raw_schema)
        return unexpected(bad(name + ": schema_version and schema do not go together"));
    if (c.raw_schema && !c.type)
        return unexpected(bad(name + ": a schema needs its type (AVRO, PROTOBUF or JSONSCHEMA)"));
    if (auto d = field.find("data"); d != field.end())
        c.data = *d;
    return c;
}

// One key or value: null / absent, or {"type": ..., "data": ...} with its schema fields.
Expected<std::optional<RecordData>, RecordError> parse_data(const json& record, const char* name) {
    auto it = record.find(name);
    if (it == record.end() || it->is_null())
        return std::optional<RecordData>{};
    if (!it->is_object())
        return unexpected(bad(std::string(name) + " must be an object such as {\"type\": \"JSON\", "
                                                  "\"data\": ...}"));
    std::optional<std::string> type;
    if (auto t = it->find("type"); t != it->end() && !t->is_null()) {
        if (!t->is_string())
            return unexpected(bad(std::string(name) + ".type must be a string"));
        type = upper(t->get<std::string>());
    }
    bool schema_fields = false;
    for (const char* schema_field :
         {"schema_id", "schema", "schema_version", "subject", "subject_name_strategy"}) {
        auto s = it->find(schema_field);
        schema_fields = schema_fields || (s != it->end() && !s->is_null());
    }
    if (!type || *type == "AVRO" || *type == "PROTOBUF" || *type == "JSONSCHEMA") {
        auto choice = parse_schema_choice(*it, name, type);
        if (!choice)
            return unexpected(choice.error());
        choice->implicit = !type && !schema_fields;
        RecordData d;
        d.type = type.value_or("JSON");
        if (choice->data.is_null())  // a null key or value is not serialized
            return std::optional<RecordData>{std::move(d)};
        d.schema = std::move(*choice);
        return std::optional<RecordData>{std::move(d)};
    }
    if (*type != "BINARY" && *type != "JSON" && *type != "STRING")
        return unexpected(bad(std::string(name) +
                              ".type must be BINARY, JSON, STRING, AVRO, PROTOBUF or JSONSCHEMA"));
    if (schema_fields)
        return unexpected(bad(std::string(name) + ": type " + *type +
                              " has no schema; leave out the schema fields, or use AVRO, "
                              "PROTOBUF or JSONSCHEMA"));
    RecordData d;
    d.type = *type;
    auto data = it->find("data");
    if (data == it->end() || data->is_null())
        return std::optional<RecordData>{std::move(d)};
    if (d.type == "JSON") {
        d.data = data->dump();
    } else if (!data->is_string()) {
        return unexpected(bad(std::string(name) + ".data must be a string for type " + d.type));
    } else if (d.type == "STRING") {
        d.data = data->get<std::string>();
    } else {
        auto bytes = security::base64_decode(data->get<std::string>());
        if (!bytes)
            return unexpected(bad(std::string(name) + ".data is not valid base64"));
        d.data = std::move(*bytes);
    }
    return std::optional<RecordData>{std::move(d)};
}

}  // namespace

Expected<ProduceRecord, RecordError> parse_produce_record(std::string_view text) {
    const json record = json::parse(text, nullptr, false);
    if (record.is_discarded())
        return unexpected(bad("malformed JSON"));
    if (!record.is_object())
        return unexpected(bad("a record must be a JSON object"));
    ProduceRecord r;
    if (auto p = record.find("partition_id"); p != record.end() && !p->is_null()) {
        auto n = json_int64(*p);
        if (!n || *n < 0 || *n > std::numeric_limits<int32_t>::max())
            return unexpected(bad("partition_id must be a partition number"));
        r.partition_id = static_cast<int32_t>(*n);
    }
    auto key = parse_data(record, "key");
    if (!key)
        return unexpected(key.error());
    r.key = std::move(*key);
    auto value = parse_data(record, "value");
    if (!value)
        return unexpected(value.error());
    r.value = std::move(*value);
    if (auto h = record.find("headers"); h != record.end() && !h->is_null()) {
        if (!h->is_array())
            return unexpected(bad("headers must be an array of {\"name\", \"value\"}"));
        for (const auto& header : *h) {
            auto name = header.is_object() ? header.find("name") : header.end();
            if (!header.is_object() || name == header.end() || !name->is_string())
                return unexpected(bad("each header needs a string \"name\""));
            std::optional<std::string> value_bytes;
            if (auto v = header.find("value"); v != header.end() && !v->is_null()) {
                if (!v->is_string())
                    return unexpected(bad("a header's value must be base64 text or null"));
                value_bytes = security::base64_decode(v->get<std::string>());
                if (!value_bytes)
                    return unexpected(
                        bad("header " + name->get<std::string>() + ": value is not valid base64"));
            }
            r.headers.emplace_back(name->get<std::string>(), std::move(value_bytes));
        }
    }
    if (auto t = record.find("timestamp"); t != record.end() && !t->is_null()) {
        std::optional<int64_t> ms;
        if (t->is_string())
            ms = parse_iso8601_ms(t->get<std::string>());
        else
            ms = json_int64(*t);
        if (!ms || *ms < 0)
            return unexpected(
                bad("timestamp must be an ISO 8601 date-time such as 2026-12-06T10:00:00Z"));
        r.timestamp_ms = *ms;
    }
    return r;
}

std::optional<int64_t> parse_iso8601_ms(std::string_view text) {
    // YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)
    const auto digits = [&](size_t at, size_t n) -> std::optional<int> {
        if (at + n > text.size())
            return std::nullopt;
        int v = 0;
        for (size_t i = at; i < at + n; ++i) {
            if (!std::isdigit(static_cast<unsigned char>(text[i])))
                return std::nullopt;
            v = v * 10 + (text[i] - '0');
        }
        return v;
    };
    const auto expect = [&](size_t at, char c) { return at < text.size() && text[at] == c; };
    auto year = digits(0, 4);
    auto month = digits(5, 2);
    auto day = digits(8, 2);
    auto hour = digits(11, 2);
    auto minute = digits(14, 2);
    auto second = digits(17, 2);
    if (!year || !month || !day || !hour || !minute || !second || !expect(4, '-') ||
        !expect(7, '-') || !(expect(10, 'T') || expect(10, 't')) || !expect(13, ':') ||
        !expect(16, ':'))
        return std::nullopt;
    if (*month < 1 || *month > 12 || *day < 1 || *day > 31 || *hour > 23 || *minute > 59 ||
        *second > 60)
        return std::nullopt;
    size_t at = 19;
    int64_t millis = 0;
    if (expect(at, '.')) {
        ++at;
        int scale = 100;
        size_t n = 0;
        while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at]))) {
            millis += static_cast<int64_t>(text[at] - '0') * scale;
            scale /= 10;
            ++at;
            ++n;
        }
        if (n == 0)
            return std::nullopt;
    }
    int64_t offset_s = 0;
    if (expect(at, 'Z') || expect(at, 'z')) {
        ++at;
    } else if (expect(at, '+') || expect(at, '-')) {
        const int sign = text[at] == '-' ? -1 : 1;
        auto oh = digits(at + 1, 2);
        auto om = digits(at + 4, 2);
        if (!oh || !om || !expect(at + 3, ':') || *oh > 23 || *om > 59)
            return std::nullopt;
        offset_s = sign * (static_cast<int64_t>(*oh) * 3600 + static_cast<int64_t>(*om) * 60);
        at += 6;
    } else {
        return std::nullopt;
    }
    if (at != text.size())
        return std::nullopt;
    std::tm tm{};
    tm.tm_year = *year - 1900;
    tm.tm_mon = *month - 1;
    tm.tm_mday = *day;
    tm.tm_hour = *hour;
    tm.tm_min = *minute;
    tm.tm_sec = *second;
    const time_t seconds = timegm(&tm);
    return (static_cast<int64_t>(seconds) - offset_s) * 1000 + millis;
}

std::string format_iso8601_ms(int64_t ms) {
    const time_t seconds = static_cast<time_t>(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
    const int64_t millis = ms - static_cast<int64_t>(seconds) * 1000;
    std::tm tm{};
    gmtime_r(&seconds, &tm);
    std::array<char, 96> out{};  // room for any int the format may print
    std::snprintf(out.data(), out.size(), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                  static_cast<int>(millis));
    return out.data();
}

}  // namespace skiff::broker::console::rest_v3
