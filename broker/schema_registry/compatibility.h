// Compatibility levels and registry modes, and the compatibility verdict between a new schema and
// the versions already registered, worded as Confluent words it (its CompatibilityChecker and
// SchemaValidatorBuilder):
//
//   BACKWARD   the new schema can read data written with the latest version
//   FORWARD    the latest version can read data written with the new schema
//   FULL       both
//   *_TRANSITIVE  the same against every live version, newest first, stopping at the first one
//                 that fails
//   NONE       no check
//
// A schema type knows one direction only (SchemaFormat::check(updated, previous) = "can updated
// read previous"); FORWARD swaps the arguments and FULL asks both ways. The messages are each
// Incompatibility::to_string(), then "{oldSchemaVersion: N}" and "{oldSchema: '...'}" for the
// version that failed, then "{compatibility: 'LEVEL'}" once at the end.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/schema_registry/formats/schema_format.h"

namespace skiff::schema_registry {

enum class CompatibilityLevel {
    kNone,
    kBackward,
    kBackwardTransitive,
    kForward,
    kForwardTransitive,
    kFull,
    kFullTransitive,
};

// Case-insensitive, as Confluent upper-cases what it is given. nullopt for anything else.
std::optional<CompatibilityLevel> parse_compatibility_level(std::string_view text);
std::string_view level_name(CompatibilityLevel level);
bool is_transitive(CompatibilityLevel level);

// READWRITE: the normal mode. READONLY: every write is refused (42205). IMPORT: registrations
// carry their own ids and versions, with no compatibility check, to copy another registry.
enum class RegistryMode { kReadWrite, kReadOnly, kImport };

std::optional<RegistryMode> parse_mode(std::string_view text);  // case-insensitive
std::string_view mode_name(RegistryMode mode);

// A registered version, as the check needs it.
struct RegisteredSchema {
    int version = 0;
    std::string_view schema_type;
    std::string_view canonical;  // the stored text, quoted in the messages
    const ParsedSchema* parsed = nullptr;
};

// Why `candidate` (of `format`'s type) may not follow `previous` (live versions, oldest first)
// at `level`; empty when it may. Only the versions the level looks at need `parsed` set: the
// latest for the non-transitive levels, all of them for the transitive ones.
std::vector<std::string> compatibility_messages(CompatibilityLevel level,
                                                const SchemaFormat& format,
                                                const ParsedSchema& candidate,
                                                const std::vector<RegisteredSchema>& previous);

// Confluent's message list as a Java List prints it, "[a, b, c]", for error 409's message.
std::string join_messages(const std::vector<std::string>& messages);

}  // namespace skiff::schema_registry
