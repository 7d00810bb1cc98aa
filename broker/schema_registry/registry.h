// A Confluent-compatible Schema Registry: subjects, versions, global schema ids, compatibility
// levels and modes, behind Confluent's REST API, with its state in the _schemas topic. This is
// the registry without sockets and without storage: the HTTP server turns each call into a
// RestRequest and calls handle() (from many threads at once); the _schemas adapter gives it a
// SchemaLog to write through and, at start, replays every record of the topic, in log order,
// before the first call.
//
//     Registry registry(schemas_log, settings);
//     for (each record of _schemas) registry.replay(key, value);   // value nullopt: tombstone
//     ... registry.handle(request) on HTTP threads;
//     ... registry.subject_has_schema_id(subject, id) on produce threads.
//
// Threads: handle(), subject_has_schema_id() and replay_stats() may be called from any number of
// threads. Reads run concurrently; writes are serialized, and each change is applied in memory
// only after SchemaLog::append() said it is durable, so what a client was told is what a
// restart replays. replay() is for start-up, before handle() is called (it is thread-safe all
// the same).
//
// Authorization (settings.authorize), when set, is asked before each call with one of these
// operations, on the subject named in the path (SUBJECT) or on the registry as a whole
// (REGISTRY). A refusal is HTTP 403 with {"error_code":40301,...}; a listing leaves out what is
// refused instead.
//
// clang-format off
//   route                                           operation         resource
//   GET    /subjects                                DESCRIBE          each SUBJECT listed
//   GET    /subjects/{s}/versions                   DESCRIBE          SUBJECT s
//   GET    /subjects/{s}/versions/{v}[/schema]      READ              SUBJECT s
//   GET    /subjects/{s}/versions/{v}/referencedby  DESCRIBE          SUBJECT s
//   POST   /subjects/{s}/versions                   WRITE             SUBJECT s
//   POST   /subjects/{s}              (lookup)      READ              SUBJECT s
//   DELETE /subjects/{s}[/versions/{v}]             DELETE            SUBJECT s
//   POST   /compatibility/subjects/{s}/versions...  READ              SUBJECT s
//   GET    /config/{s}, /mode/{s}                   DESCRIBE_CONFIGS  SUBJECT s
//   PUT    /config/{s}, /mode/{s}, and DELETE       ALTER_CONFIGS     SUBJECT s
//   GET    /config, /mode                           DESCRIBE_CONFIGS  REGISTRY
//   PUT    /config, /mode, and DELETE               ALTER_CONFIGS     REGISTRY
//   GET    /schemas/ids/{id}[/...]                  READ              REGISTRY, or any SUBJECT
//                                                                     holding the id (1)
//   GET    /schemas                                 READ              each SUBJECT listed
//   GET    /, /schemas/types, /v1/metadata/id       none
// clang-format on
//
// (1) So that a consumer allowed to read its topic's subject can deserialize without rights on
// the whole registry; /subjects and /versions of an id list only subjects it may DESCRIBE.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/schema_registry/compatibility.h"
#include "broker/schema_registry/formats/schema_format.h"
#include "broker/schema_registry/rest.h"
#include "broker/schema_registry/schema_log.h"

namespace skiff::schema_registry {

struct RegistrySettings {
    // The schema type of a schemaType name ("" is AVRO); null for an unknown type. The real
    // types by default; tests give their own.
    std::function<const SchemaFormat*(std::string_view schema_type)> formats = find_format;
    // GET /schemas/types; empty: format_types().
    std::vector<std::string> schema_types;
    // The level when neither the subject nor the registry has one (Confluent's default).
    CompatibilityLevel default_compatibility = CompatibilityLevel::kBackward;
    // Asked before each call (see the table above); empty: everything is allowed.
    std::function<bool(const std::string& principal, std::string_view operation,
                       std::string_view resource_type, std::string_view name)>
        authorize;
    // GET /v1/metadata/id.
    std::string kafka_cluster_id;
    std::string schema_registry_cluster_id = "schema-registry";
    // Parsed request bodies kept, so a repeated lookup or registration does not parse again:
    // about this many bytes of bodies (a body is kept with its parse, so count it three times).
    size_t parse_cache_bytes = 16 << 20;
};

// What replay() made of the records it was given.
struct ReplayStats {
    uint64_t applied = 0;
    uint64_t unreadable = 0;       // malformed, or of a kind skiff does not know: skipped
    uint64_t conflicting_ids = 0;  // a schema under an id that names another one: skipped
};

class RegistryCore;

class Registry {
  public:
    Registry(SchemaLog& log, RegistrySettings settings = {});
    ~Registry();
    Registry(const Registry&) = delete;
    Registry& operator=(const Registry&) = delete;

    // One REST call. Never throws for anything a client sends.
    RestResponse handle(const RestRequest& request);

    // One record of _schemas, in log order; a nullopt value is a tombstone. A record that
    // cannot be read is skipped and counted, never fatal.
    void replay(std::string_view key, std::optional<std::string_view> value);
    ReplayStats replay_stats() const;
    // broker/control's reset and restore: forgets every subject, schema, id, config and mode
    // (the same log and settings kept), for a replay of another log to follow. Not thread-safe:
    // no call of handle() or subject_has_schema_id() may run meanwhile.
    void clear();

    // Whether `id` is registered under `subject` in a version that is not deleted: the
    // produce-path check of broker-side schema validation. Cheap, and safe from any thread.
    bool subject_has_schema_id(std::string_view subject, int32_t id) const;

  private:
    SchemaLog& log_;  // kept for clear()
    std::unique_ptr<RegistryCore> core_;
};

}  // namespace skiff::schema_registry
