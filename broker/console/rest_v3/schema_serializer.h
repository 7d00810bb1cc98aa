// REST Proxy v3's produce through the schema registry: a key or value given as JSON with the
// schema it names (produce_request.h's SchemaChoice) becomes the bytes Confluent's serializers
// write, so that their deserializers (and skiff's console) read it back:
//   0x00, the schema id (4 bytes, big-endian), then
//   AVRO        the datum in Avro's binary encoding (broker/console/avro_encode.h)
//   JSONSCHEMA  the JSON text (not validated against the schema, as Confluent's JSON Schema
//               serializer does not validate by default)
//   PROTOBUF    the message indexes (a lone 0: the schema's first message, as REST Proxy
//               serializes), then the message in protobuf binary (protobuf_from_json.h)
//
// The schema is found as REST Proxy's SchemaManager finds it: by schema_id; by schema_version
// of the subject; by the schema text, looked up under the subject and registered when new;
// else the subject's latest. The subject is `subject`, or the subject name strategy's:
// TOPIC_NAME "<topic>-key"/"<topic>-value" (the default), RECORD_NAME the record's full name,
// TOPIC_RECORD_NAME "<topic>-<record>". Every registry call is made as the console's caller,
// so the registry's ACLs apply (a schema that would be registered needs WRITE on its subject).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "broker/console/rest_v3/produce_request.h"
#include "broker/console/schema_decoder.h"

namespace skiff::schema_registry {
class Registry;
}

namespace skiff::broker::console::rest_v3 {

// One per request: it keeps the schemas it looked up for the request's other records.
class SchemaSerializer {
  public:
    // `registry` null: this broker runs no schema registry.
    SchemaSerializer(schema_registry::Registry* registry, std::string principal, std::string host,
                     std::string topic);

    // Serializes `d` (d.schema set) in place: d.data, d.type and where its schema is; or why
    // not. An implicit choice whose subject has no schema is stored as JSON.
    std::optional<RecordError> serialize(RecordData& d, bool is_key);

  private:
    struct Found {
        const SchemaDecoder::Schema* schema = nullptr;
        std::string subject;
        int32_t version = 0;
    };
    Expected<Found, RecordError> find(const SchemaChoice& c, bool is_key);
    Expected<Found, RecordError> by_id(const SchemaChoice& c, bool is_key);
    Expected<Found, RecordError> by_version(const std::string& subject, const std::string& version);
    Expected<Found, RecordError> by_text(const SchemaChoice& c, bool is_key);
    // The subject from `subject`, else the strategy; `record` is the schema's record name when
    // known (RECORD_NAME and TOPIC_RECORD_NAME need it).
    Expected<std::string, RecordError> subject_for(const SchemaChoice& c, bool is_key,
                                                   const std::optional<std::string>& record) const;
    // The version of schema `id` under `subject`.
    Expected<int32_t, RecordError> version_under(int32_t id, const std::string& subject);

    std::unique_ptr<SchemaDecoder> schemas_;  // null without a registry
    std::string topic_;
};

}  // namespace skiff::broker::console::rest_v3
