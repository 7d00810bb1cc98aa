// What the routes share: the state and its locks, the way a change is written, and the parsing
// of schemas with their references (with the caches that keep repeated calls cheap). Internal to
// the registry; the HTTP side sees only registry.h.
//
// Locking. Readers hold read_lock() (a shared lock) while they look at the state. A writer holds
// write_lock() from its first check to its last append, so what it checked still holds when it
// writes; it may look at the state without read_lock() because only writers change it, and it
// takes the state's exclusive lock only inside write(), for the instant a change is applied.
// Readers therefore wait for an apply, never for a disk.
//
// Writes. write() appends one record and, once SchemaLog says it is durable, applies that same
// record with apply_record(): the path replay takes, so a restart rebuilds exactly what clients
// were answered.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "broker/schema_registry/registry.h"
#include "broker/schema_registry/registry_errors.h"
#include "broker/schema_registry/registry_state.h"
#include "broker/schema_registry/schema_records.h"
#include "broker/schema_registry/schema_request.h"
#include "protocol/expected.h"

namespace skiff::schema_registry {

// A schema as parsed by its type, with its references resolved: what registration stores and
// what a lookup compares.
struct ResolvedSchema {
    const SchemaFormat* format = nullptr;
    std::string schema_type;                  // format->type()
    std::vector<SchemaReference> references;  // "latest" (-1) replaced by the version found
    std::shared_ptr<const ParsedSchema> parsed;
    std::string identity;  // schema_identity() of the above
    const std::string& canonical() const { return parsed->canonical(); }
};

// A request body read and its schema resolved, as the parse cache keeps it.
struct ResolvedBody {
    Expected<SchemaRequest, RestError> request;
    std::shared_ptr<const ResolvedSchema> schema;  // null: request failed, schema empty or bad
    std::optional<RestError> schema_error;         // why the schema is bad
};

// Which versions a reference may point to. A new schema may not reference a soft-deleted
// version; a lookup, or a schema already stored, may (Confluent's lookupDeletedSchema = !isNew).
enum class ReferencePolicy { kLiveOnly, kIncludeDeleted };

class RegistryCore {
  public:
    RegistryCore(SchemaLog& log, RegistrySettings settings);

    const RegistrySettings& settings() const { return settings_; }
    const SchemaFormat* format(std::string_view schema_type) const;

    std::shared_lock<std::shared_mutex> read_lock() const {
        return std::shared_lock<std::shared_mutex>(state_mutex_);
    }
    std::unique_lock<std::mutex> write_lock() { return std::unique_lock<std::mutex>(write_mutex_); }
    // Under read_lock() or write_lock().
    const RegistryState& state() const { return state_; }

    // Under write_lock(): appends the record and applies it once durable. `operation` names
    // what failed in error 50001's message.
    Expected<void, RestError> write(const RecordKey& key, const std::optional<std::string>& value,
                                    std::string_view operation);
    // Under write_lock(): an id never handed out before. An id whose write failed is not
    // handed out again either: the failure may have been an acknowledgement lost after the
    // record became durable, and a second schema under the same id would then be dropped at
    // the next start.
    int32_t reserve_schema_id();

    // Takes write_lock() itself.
    ApplyOutcome replay(std::string_view key, std::optional<std::string_view> value);
    ReplayStats replay_stats() const;

    // Under either lock: the mode or level that applies to a subject.
    RegistryMode mode_in_scope(std::string_view subject) const;
    CompatibilityLevel compatibility_in_scope(std::string_view subject) const;

    // Under either lock. Parses a schema of `schema_type` ("" is AVRO) with its references
    // resolved from the stored versions, dependencies first. Errors are 42201.
    Expected<std::shared_ptr<const ResolvedSchema>, RestError> resolve(
        std::string_view schema_type, std::string_view text,
        const std::vector<SchemaReference>& references, ReferencePolicy policy, bool normalize);
    // Under either lock. A request body read and resolved, from the cache when the same body
    // was seen since the state last changed.
    std::shared_ptr<const ResolvedBody> resolve_body(std::string_view body, ReferencePolicy policy,
                                                     bool normalize);
    // Under either lock. A stored version parsed (for compatibility checks and ?format=),
    // kept per id.
    Expected<std::shared_ptr<const ParsedSchema>, RestError> parsed_version(const SchemaVersion& v);

  private:
    // Why the references cannot be resolved; nullopt when they were.
    std::optional<std::string> collect_references(const std::vector<SchemaReference>& references,
                                                  ReferencePolicy policy, int depth,
                                                  std::vector<std::string>& visited,
                                                  std::vector<ResolvedReference>& resolved,
                                                  std::vector<SchemaReference>* top_level) const;
    void forget_parsed_versions();

    SchemaLog& log_;
    RegistrySettings settings_;

    mutable std::shared_mutex state_mutex_;
    std::mutex write_mutex_;
    RegistryState state_;
    int32_t reserved_id_ = 0;  // under write_mutex_
    std::atomic<uint64_t> replay_applied_{0};
    std::atomic<uint64_t> replay_unreadable_{0};
    std::atomic<uint64_t> replay_conflicting_ids_{0};

    struct CachedBody {
        uint64_t generation = 0;
        std::shared_ptr<const ResolvedBody> body;
    };
    mutable std::shared_mutex body_cache_mutex_;
    std::unordered_map<std::string, CachedBody> body_cache_;
    size_t body_cache_bytes_ = 0;  // about what the entries hold, to bound the cache

    std::mutex parsed_mutex_;
    std::unordered_map<int32_t, std::shared_ptr<const ParsedSchema>> parsed_by_id_;
};

}  // namespace skiff::schema_registry
