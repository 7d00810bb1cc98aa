#include "broker/console/rest_v3/schema_serializer.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/dynamic_message.h>

#include "broker/console/avro_encode.h"
#include "broker/console/protobuf_from_json.h"
#include "broker/schema_registry/formats/avro_schema_reader.h"
#include "broker/schema_registry/formats/protobuf_schema.h"
#include "broker/schema_registry/formats/schema_format.h"

namespace skiff::broker::console::rest_v3 {

namespace sr = skiff::schema_registry;
using nlohmann::json;

// Named, not anonymous: the unity build puts this file beside produce_request.cpp's helpers.
namespace schema_serializer_impl {

RecordError invalid(std::string message) {
    return RecordError{400, std::move(message)};
}

// REST Proxy names the registry's JSON type JSONSCHEMA.
std::string rest_type(const std::string& registry_type) {
    return registry_type == "JSON" ? "JSONSCHEMA" : registry_type;
}
std::string registry_type(const std::string& rest) {
    return rest == "JSONSCHEMA" ? "JSON" : rest;
}

// A registry answer that is not what was hoped for, as the record's error with the registry's
// message: REST Proxy's 40301 when the caller may not, else a 400 (an invalid or incompatible
// schema is the request's fault).
RecordError registry_error(int status, const json& answer, const std::string& what) {
    std::string message = what;
    if (answer.is_object() && answer.contains("message") && answer["message"].is_string())
        message += ": " + answer["message"].get<std::string>();
    if (status == 401 || status == 403)
        return RecordError{40301, message};
    return invalid(message);
}

// The record name RECORD_NAME uses: Avro's named type, Protobuf's first message, a JSON
// schema's title.
std::optional<std::string> record_name(const SchemaDecoder::Schema& s, const std::string& text) {
    if (s.avro && s.avro->root && sr::avro::is_named(s.avro->root->type))
        return s.avro->root->full_name();
    if (s.protobuf) {
        const auto* p = dynamic_cast<const sr::protobuf::ProtobufSchema*>(s.protobuf.get());
        if (p && p->file().message_type_count() > 0)
            return p->file().message_type(0)->full_name();
    }
    if (s.type == "JSON") {
        auto doc = json::parse(text, nullptr, false);
        if (doc.is_object() && doc.contains("title") && doc["title"].is_string())
            return doc["title"].get<std::string>();
    }
    return std::nullopt;
}

// The record name of a schema text given with the record (no references).
std::optional<std::string> record_name_of_text(const std::string& type, const std::string& text) {
    SchemaDecoder::Schema s;
    s.type = type;
    if (type == "AVRO") {
        s.avro = sr::avro::read_schema(text, {}).tree;
    } else if (type == "PROTOBUF") {
        s.protobuf = sr::protobuf_format().parse(text, {}, false).schema;
    }
    return record_name(s, text);
}

void put_header(std::string& out, int32_t id) {
    out.push_back('\0');
    for (int shift = 24; shift >= 0; shift -= 8)
        out.push_back(static_cast<char>((static_cast<uint32_t>(id) >> shift) & 0xFF));
}

// The value in the schema's wire format, or why it is not a value of the schema.
Expected<std::string, std::string> encode(const SchemaDecoder::Schema& s, const json& data) {
    std::string out;
    put_header(out, s.id);
    if (s.type == "JSON") {
        out += data.dump();
        return out;
    }
    if (!s.error.empty())
        return unexpected(s.error);
    if (s.avro) {
        auto datum = write_avro_datum(*s.avro->root, data);
        if (!datum)
            return unexpected(datum.error());
        return out + *datum;
    }
    const auto* p = dynamic_cast<const sr::protobuf::ProtobufSchema*>(s.protobuf.get());
    if (!p || p->file().message_type_count() == 0)
        return unexpected(std::string("the schema has no message type"));
    const google::protobuf::Descriptor* type = p->file().message_type(0);
    google::protobuf::DynamicMessageFactory factory(p->file().pool());
    std::unique_ptr<google::protobuf::Message> message(factory.GetPrototype(type)->New());
    if (auto filled = protobuf_from_json(data, *message); !filled)
        return unexpected(filled.error());
    out.push_back('\0');  // message indexes [0]: the file's first message
    std::string body;
    if (!message->SerializeToString(&body))
        return unexpected("cannot serialize " + type->full_name());
    return out + body;
}

}  // namespace schema_serializer_impl

SchemaSerializer::SchemaSerializer(sr::Registry* registry, std::string principal, std::string host,
                                   std::string topic)
    : topic_(std::move(topic)) {
    if (registry)
        schemas_ =
            std::make_unique<SchemaDecoder>(*registry, std::move(principal), std::move(host));
}

std::optional<RecordError> SchemaSerializer::serialize(RecordData& d, bool is_key) {
    using namespace schema_serializer_impl;  // this file's own helpers
    const SchemaChoice& c = *d.schema;
    const char* side = is_key ? "key" : "value";
    if (!schemas_) {
        if (c.implicit) {  // nothing to look a schema up in: JSON, as before there was one
            d.data = c.data.dump();
            d.schema.reset();
            return std::nullopt;
        }
        return invalid(std::string(side) +
                       ": serializing through the schema registry needs it, and this broker runs "
                       "none (schema.registry.listeners)");
    }
    auto found = find(c, is_key);
    if (!found) {
        if (c.implicit && found.error().error_code == 404) {
            d.data = c.data.dump();  // the subject has no schema: JSON
            d.schema.reset();
            return std::nullopt;
        }
        RecordError e = found.error();
        if (e.error_code == 404)
            e.error_code = 400;
        e.message = std::string(side) + ": " + e.message;
        return e;
    }
    const SchemaDecoder::Schema& s = *found->schema;
    if (c.type && registry_type(*c.type) != s.type)
        return invalid(std::string(side) + ": type " + *c.type + " but schema " +
                       std::to_string(s.id) + " is " + rest_type(s.type));
    auto bytes = encode(s, c.data);
    if (!bytes)
        return invalid(std::string(side) + ": not a value of schema " + std::to_string(s.id) +
                       " (" + rest_type(s.type) + "): " + bytes.error());
    d.type = rest_type(s.type);
    d.data = std::move(*bytes);
    d.subject = found->subject;
    d.schema_id = s.id;
    d.schema_version = found->version;
    d.schema.reset();
    return std::nullopt;
}

Expected<SchemaSerializer::Found, RecordError> SchemaSerializer::find(const SchemaChoice& c,
                                                                      bool is_key) {
    if (c.schema_id)
        return by_id(c, is_key);
    if (c.raw_schema)
        return by_text(c, is_key);
    auto subject = subject_for(c, is_key, std::nullopt);
    if (!subject)
        return unexpected(subject.error());
    return by_version(*subject,
                      c.schema_version ? std::to_string(*c.schema_version) : std::string("latest"));
}

Expected<SchemaSerializer::Found, RecordError> SchemaSerializer::by_id(const SchemaChoice& c,
                                                                       bool is_key) {
    using namespace schema_serializer_impl;  // this file's own helpers
    const auto* schema = schemas_->lookup(*c.schema_id);
    if (!schema)
        return unexpected(invalid("schema " + std::to_string(*c.schema_id) + " not found"));
    std::optional<std::string> record;
    if (!c.subject && c.strategy && *c.strategy != "TOPIC_NAME") {
        std::string text;
        if (schema->type == "JSON") {
            auto [status, answer] =
                schemas_->registry_call("GET", "/schemas/ids/" + std::to_string(schema->id));
            if (status == 200 && answer.is_object() && answer["schema"].is_string())
                text = answer["schema"].get<std::string>();
        }
        record = record_name(*schema, text);
    }
    auto subject = subject_for(c, is_key, record);
    if (!subject)
        return unexpected(subject.error());
    auto version = version_under(schema->id, *subject);
    if (!version)
        return unexpected(version.error());
    return Found{schema, *subject, *version};
}

Expected<SchemaSerializer::Found, RecordError> SchemaSerializer::by_version(
    const std::string& subject, const std::string& version) {
    using namespace schema_serializer_impl;  // this file's own helpers
    auto [status, answer] = schemas_->registry_call(
        "GET", "/subjects/" + encode_path_segment(subject) + "/versions/" + version);
    if (status == 404)
        return unexpected(RecordError{404, "the schema registry has no schema for subject " +
                                               subject + ", version " + version});
    if (status != 200 || !answer.is_object() || !answer["id"].is_number_integer())
        return unexpected(
            registry_error(status, answer, "reading subject " + subject + " version " + version));
    const auto* schema = schemas_->lookup(answer["id"].get<int32_t>());
    if (!schema)
        return unexpected(invalid("schema " + std::to_string(answer["id"].get<int32_t>()) +
                                  " of subject " + subject + " cannot be read"));
    return Found{schema, subject, answer.value("version", 0)};
}

Expected<SchemaSerializer::Found, RecordError> SchemaSerializer::by_text(const SchemaChoice& c,
                                                                         bool is_key) {
    using namespace schema_serializer_impl;  // this file's own helpers
    const std::string type = registry_type(*c.type);
    std::optional<std::string> record;
    if (!c.subject && c.strategy && *c.strategy != "TOPIC_NAME")
        record = record_name_of_text(type, *c.raw_schema);
    auto subject = subject_for(c, is_key, record);
    if (!subject)
        return unexpected(subject.error());
    const std::string path = "/subjects/" + encode_path_segment(*subject);
    const std::string body = json{{"schema", *c.raw_schema}, {"schemaType", type}}.dump();
    // Looked up first, registered only when new: as REST Proxy does.
    auto [status, answer] = schemas_->registry_call("POST", path, body);
    if (status == 404) {
        std::tie(status, answer) = schemas_->registry_call("POST", path + "/versions", body);
        if (status != 200)
            return unexpected(
                registry_error(status, answer, "registering the schema under " + *subject));
        std::tie(status, answer) = schemas_->registry_call("POST", path, body);
    }
    if (status != 200 || !answer.is_object() || !answer["id"].is_number_integer())
        return unexpected(
            registry_error(status, answer, "looking the schema up under " + *subject));
    const auto* schema = schemas_->lookup(answer["id"].get<int32_t>());
    if (!schema)
        return unexpected(
            invalid("schema " + std::to_string(answer["id"].get<int32_t>()) + " cannot be read"));
    return Found{schema, *subject, answer.value("version", 0)};
}

Expected<std::string, RecordError> SchemaSerializer::subject_for(
    const SchemaChoice& c, bool is_key, const std::optional<std::string>& record) const {
    using namespace schema_serializer_impl;  // this file's own helpers
    if (c.subject)
        return *c.subject;
    const std::string strategy = c.strategy.value_or("TOPIC_NAME");
    if (strategy == "TOPIC_NAME")
        return topic_ + (is_key ? "-key" : "-value");
    if (!record)
        return unexpected(
            invalid("subject_name_strategy=" + strategy +
                    " needs a schema with a record name, given by schema_id or schema"));
    return strategy == "RECORD_NAME" ? *record : topic_ + "-" + *record;
}

Expected<int32_t, RecordError> SchemaSerializer::version_under(int32_t id,
                                                               const std::string& subject) {
    using namespace schema_serializer_impl;  // this file's own helpers
    auto [status, answer] =
        schemas_->registry_call("GET", "/schemas/ids/" + std::to_string(id) + "/versions");
    if (status == 200 && answer.is_array()) {
        for (const auto& entry : answer) {
            if (entry.is_object() && entry.value("subject", std::string()) == subject &&
                entry["version"].is_number_integer())
                return entry["version"].get<int32_t>();
        }
    }
    return unexpected(
        invalid("schema " + std::to_string(id) + " is not registered under subject " + subject));
}

}  // namespace skiff::broker::console::rest_v3
