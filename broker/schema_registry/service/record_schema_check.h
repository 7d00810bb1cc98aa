// Broker-side schema validation of produced records (Confluent Server's
// confluent.{key,value}.schema.validation topic configs): a validated key or value must start
// with the schema registry's wire-format header, magic byte 0 and a big-endian 4-byte schema id,
// and that id must be registered, not deleted, under the subject the topic's strategy names:
//
//   TopicNameStrategy        <topic>-key / <topic>-value
//   TopicRecordNameStrategy  some subject <topic>-<record name> holding the id
//   RecordNameStrategy       some subject holding the id (its record's name)
//
// For the two record-name strategies the record's name is the subject's: skiff checks that a
// subject of that form holds the id, without reading the schema's name out of the schema.
// One check per produce request and partition; refuse() per record, from the produce path's one
// per-record pass. A null record is refused (there is no header to check), as Confluent does.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>

#include "broker/schema_registry/registry.h"
#include "broker/topics/topic_config.h"
#include "protocol/record_iterator.h"

namespace skiff::broker::schema_registry_service {

class RecordSchemaCheck {
  public:
    // `registry` null: the registry is off, and every validated record is refused, saying so.
    RecordSchemaCheck(const SchemaValidation& validation, const std::string& topic,
                      schema_registry::Registry* registry);

    // Why the record is refused, or nullopt.
    std::optional<std::string> refuse(const protocol::Record& record) const;

  private:
    std::optional<std::string> refuse_part(const std::optional<std::span<const std::byte>>& bytes,
                                           bool is_key) const;
    bool id_allowed(int32_t id, bool is_key) const;

    SchemaValidation validation_;
    std::string topic_;
    std::string key_subject_;
    std::string value_subject_;
    schema_registry::Registry* registry_;
    // Verdicts per (id, key?) for this request: a batch's records mostly share one id.
    mutable std::unordered_map<int64_t, bool> verdicts_;
    mutable int64_t last_memo_ = -1;
    mutable bool last_verdict_ = false;
};

}  // namespace skiff::broker::schema_registry_service
