// The registry's state in memory: subjects and their versions, schemas by id, who references
// whom, and the compatibility levels and modes. It changes only through the functions below,
// each the effect of one record of the _schemas topic (schema_records.h applies a record by
// calling one of them), so that replaying the log at start and applying a change that was just
// written are the same code.
//
// Invariants:
// - A version is never renumbered. A subject's next version is one above its highest version,
//   soft-deleted ones included; a hard delete removes the version, so its number can come back
//   (Confluent does the same: it looks at the versions still stored).
// - An id names one schema: type, canonical text and references. A record that would give an
//   id to another schema is refused (Confluent ignores it too). The same schema registered under
//   another subject keeps its id.
// - max_id() is the highest id ever seen and never goes down, even when every use of an id is
//   hard-deleted, so an id is never handed out twice.
//
// Not thread-safe: Registry guards it (readers share a lock, one writer applies at a time).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "broker/schema_registry/compatibility.h"

namespace skiff::schema_registry {

// A reference from one schema to another registered one, as stored (the version resolved).
struct SchemaReference {
    std::string name;  // how the referring schema names it (Avro type, .proto import, $ref URL)
    std::string subject;
    int version = 0;
    bool operator==(const SchemaReference&) const = default;
};

struct SchemaVersion {
    std::string subject;
    int version = 0;
    int32_t id = 0;
    std::string schema_type = "AVRO";
    std::vector<SchemaReference> references;
    std::string schema;    // canonical text
    bool deleted = false;  // soft-deleted: kept, readable with ?deleted=true and by id
};

// What makes two registrations the same schema: type, canonical text and references.
std::string schema_identity(std::string_view schema_type, std::string_view schema,
                            const std::vector<SchemaReference>& references);

// A schema by id, and the subject versions registered with it (soft-deleted ones included).
struct SchemaById {
    std::string schema_type;
    std::vector<SchemaReference> references;
    std::string schema;
    std::string identity;
    std::map<std::string, std::set<int>, std::less<>> uses;
};

using VersionMap = std::map<int, SchemaVersion>;
using SubjectMap = std::map<std::string, VersionMap, std::less<>>;

class RegistryState {
  public:
    const SubjectMap& subjects() const { return subjects_; }
    const VersionMap* versions(std::string_view subject) const;
    const SchemaVersion* find_version(std::string_view subject, int version) const;
    const SchemaVersion* latest_live_version(std::string_view subject) const;
    // A subject exists while it has a version (a live one, unless include_deleted).
    bool has_subject(std::string_view subject, bool include_deleted) const;
    int next_version(std::string_view subject) const;
    bool has_live_version_with_id(std::string_view subject, int32_t id) const;

    const SchemaById* schema_by_id(int32_t id) const;
    std::optional<int32_t> id_for_identity(const std::string& identity) const;
    int32_t max_id() const { return max_id_; }

    // Ids of the live schemas that reference this subject version, sorted.
    std::vector<int32_t> referenced_by(std::string_view subject, int version) const;

    // The level or mode set at exactly this scope (nullopt subject: the global one).
    std::optional<CompatibilityLevel> compatibility(std::optional<std::string_view> subject) const;
    std::optional<RegistryMode> mode(std::optional<std::string_view> subject) const;

    // Bumped by every change to versions (what references resolve against; levels and modes
    // do not count), so caches of parsed schemas know when to start over.
    uint64_t generation() const { return generation_; }

    // The changes, one per kind of record.
    // A SCHEMA record: adds or replaces the version. False (nothing changed) when the id
    // already names another schema.
    bool put_version(SchemaVersion version);
    // A SCHEMA tombstone: the version is gone (hard delete).
    void remove_version(std::string_view subject, int version);
    // A DELETE_SUBJECT record: versions up to `up_to_version` are soft-deleted.
    void soft_delete_subject(std::string_view subject, int up_to_version);
    // A CLEAR_SUBJECT record: soft-deleted versions are gone, of one subject or of all.
    void clear_soft_deleted(std::optional<std::string_view> subject);
    void set_compatibility(std::optional<std::string_view> subject,
                           std::optional<CompatibilityLevel> level);
    void set_mode(std::optional<std::string_view> subject, std::optional<RegistryMode> mode);

  private:
    void index(const SchemaVersion& v);
    void unindex(const SchemaVersion& v);
    void count_references(const SchemaVersion& v, int delta);

    SubjectMap subjects_;
    std::unordered_map<int32_t, SchemaById> by_id_;
    std::unordered_map<std::string, int32_t> id_by_identity_;
    // Referenced subject version -> ids of the live schemas referencing it, with how many live
    // subject versions hold each id.
    std::map<std::pair<std::string, int>, std::map<int32_t, int>> referenced_by_;
    std::optional<CompatibilityLevel> global_compatibility_;
    std::map<std::string, CompatibilityLevel, std::less<>> subject_compatibility_;
    std::optional<RegistryMode> global_mode_;
    std::map<std::string, RegistryMode, std::less<>> subject_modes_;
    int32_t max_id_ = 0;
    uint64_t generation_ = 0;
};

}  // namespace skiff::schema_registry
