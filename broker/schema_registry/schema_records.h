// The records of the _schemas topic, in Confluent's formats (its storage package: SchemaKey,
// SchemaValue, ConfigKey, ...), so that a Confluent Schema Registry could read skiff's topic and
// the other way round. Keys and values are JSON; fields are written in Confluent's order and
// empty ones are left out, as Jackson's NON_EMPTY does:
//
//   SCHEMA          {"keytype":"SCHEMA","subject":"s","version":1,"magic":1}
//                   {"subject":"s","version":1,"id":7,["schemaType":"JSON",]
//                    ["references":[{"name":..,"subject":..,"version":..}],]
//                    "schema":"...","deleted":false}            (schemaType left out for AVRO)
//                   a tombstone: the version is hard-deleted
//   CONFIG          {"keytype":"CONFIG",["subject":"s",]"magic":0}   (no subject: global)
//                   {["subject":"s",]"compatibilityLevel":"FULL"}; a tombstone removes it
//   MODE            {"keytype":"MODE",["subject":"s",]"magic":0}
//                   {["subject":"s",]"mode":"READONLY"}; a tombstone removes it
//   DELETE_SUBJECT  {"keytype":"DELETE_SUBJECT","subject":"s","magic":0}
//                   {"subject":"s","version":3}: versions up to 3 are soft-deleted
//   CLEAR_SUBJECT   {"keytype":"CLEAR_SUBJECT",["subject":"s",]"magic":0}
//                   {["subject":"s"]}: soft-deleted versions are removed (before IMPORT mode)
//   NOOP            {"keytype":"NOOP","magic":0}: nothing (Confluent writes it to find the end)
//
// Reading is lenient where Confluent is (unknown fields, a global key written with
// "subject":null, a missing schemaType meaning AVRO) and refuses the rest: apply_record() skips
// a record it cannot read instead of guessing, and says so.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "broker/schema_registry/registry_state.h"

namespace skiff::schema_registry {

enum class RecordKind { kSchema, kConfig, kMode, kNoop, kDeleteSubject, kClearSubject };

struct RecordKey {
    RecordKind kind = RecordKind::kNoop;
    std::optional<std::string> subject;  // none for global CONFIG/MODE/CLEAR_SUBJECT and NOOP
    int version = 0;                     // SCHEMA only
};

std::string encode_key(const RecordKey& key);
std::optional<RecordKey> decode_key(std::string_view text);

std::string encode_schema_value(const SchemaVersion& version);
std::string encode_config_value(const std::optional<std::string>& subject,
                                CompatibilityLevel level);
std::string encode_mode_value(const std::optional<std::string>& subject, RegistryMode mode);
std::string encode_delete_subject_value(const std::string& subject, int up_to_version);
std::string encode_clear_subject_value(const std::optional<std::string>& subject);

// The keys the registry writes.
RecordKey schema_key(const std::string& subject, int version);
RecordKey config_key(const std::optional<std::string>& subject);
RecordKey mode_key(const std::optional<std::string>& subject);
RecordKey delete_subject_key(const std::string& subject);
RecordKey clear_subject_key(const std::optional<std::string>& subject);

enum class ApplyOutcome {
    kApplied,
    kUnreadable,     // not a record of ours: bad JSON, unknown keytype, missing fields
    kConflictingId,  // a SCHEMA record giving an id that names another schema
};

// Applies one record (a null value is a tombstone) to the state: the one path by which the
// state changes, at replay and after each write.
ApplyOutcome apply_record(RegistryState& state, std::string_view key,
                          std::optional<std::string_view> value);

}  // namespace skiff::schema_registry
