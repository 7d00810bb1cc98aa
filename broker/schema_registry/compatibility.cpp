#include "broker/schema_registry/compatibility.h"

#include <array>
#include <cctype>
#include <utility>

namespace skiff::schema_registry {
namespace {

constexpr std::array<std::pair<CompatibilityLevel, std::string_view>, 7> kLevelNames{{
    {CompatibilityLevel::kNone, "NONE"},
    {CompatibilityLevel::kBackward, "BACKWARD"},
    {CompatibilityLevel::kBackwardTransitive, "BACKWARD_TRANSITIVE"},
    {CompatibilityLevel::kForward, "FORWARD"},
    {CompatibilityLevel::kForwardTransitive, "FORWARD_TRANSITIVE"},
    {CompatibilityLevel::kFull, "FULL"},
    {CompatibilityLevel::kFullTransitive, "FULL_TRANSITIVE"},
}};

constexpr std::array<std::pair<RegistryMode, std::string_view>, 3> kModeNames{{
    {RegistryMode::kReadWrite, "READWRITE"},
    {RegistryMode::kReadOnly, "READONLY"},
    {RegistryMode::kImport, "IMPORT"},
}};

bool equals_upper_case(std::string_view text, std::string_view upper) {
    if (text.size() != upper.size())
        return false;
    for (size_t i = 0; i < text.size(); ++i) {
        if (std::toupper(static_cast<unsigned char>(text[i])) != upper[i])
            return false;
    }
    return true;
}

// Confluent prints at most 10 KiB of the old schema in a message.
constexpr size_t kMaxQuotedSchemaBytes = size_t{10} * 1024;

std::string quoted_old_schema(std::string_view canonical) {
    if (canonical.size() <= kMaxQuotedSchemaBytes)
        return "{oldSchema: '" + std::string(canonical) + "'}";
    return "{oldSchema: <truncated> '" + std::string(canonical.substr(0, kMaxQuotedSchemaBytes)) +
           "...'}";
}

// One direction of one check: "can `reader` read data written with `writer`?". With
// `name_the_old_schema`, a failure is followed by the old version's number and text, as
// Confluent does for the direction that decides a BACKWARD or FORWARD verdict.
void check_direction(const SchemaFormat& format, const ParsedSchema& reader,
                     const ParsedSchema& writer, const RegisteredSchema& old,
                     bool name_the_old_schema, std::vector<std::string>& messages) {
    const std::vector<Incompatibility> found = format.check(reader, writer);
    if (found.empty())
        return;
    for (const Incompatibility& i : found)
        messages.push_back(i.to_string());
    if (name_the_old_schema) {
        messages.push_back("{oldSchemaVersion: " + std::to_string(old.version) + "}");
        messages.push_back(quoted_old_schema(old.canonical));
    }
}

std::vector<std::string> check_one(CompatibilityLevel level, const SchemaFormat& format,
                                   const ParsedSchema& candidate, const RegisteredSchema& old) {
    if (old.schema_type != format.type())
        return {"Incompatible because of different schema type"};
    std::vector<std::string> messages;
    switch (level) {
        case CompatibilityLevel::kBackward:
        case CompatibilityLevel::kBackwardTransitive:
            check_direction(format, candidate, *old.parsed, old, true, messages);
            break;
        case CompatibilityLevel::kForward:
        case CompatibilityLevel::kForwardTransitive:
            check_direction(format, *old.parsed, candidate, old, true, messages);
            break;
        case CompatibilityLevel::kFull:
        case CompatibilityLevel::kFullTransitive:
            check_direction(format, *old.parsed, candidate, old, false, messages);
            check_direction(format, candidate, *old.parsed, old, true, messages);
            break;
        case CompatibilityLevel::kNone:
            break;
    }
    return messages;
}

}  // namespace

std::optional<CompatibilityLevel> parse_compatibility_level(std::string_view text) {
    for (const auto& [level, name] : kLevelNames) {
        if (equals_upper_case(text, name))
            return level;
    }
    return std::nullopt;
}

std::string_view level_name(CompatibilityLevel level) {
    for (const auto& [l, name] : kLevelNames) {
        if (l == level)
            return name;
    }
    return "NONE";
}

bool is_transitive(CompatibilityLevel level) {
    return level == CompatibilityLevel::kBackwardTransitive ||
           level == CompatibilityLevel::kForwardTransitive ||
           level == CompatibilityLevel::kFullTransitive;
}

std::optional<RegistryMode> parse_mode(std::string_view text) {
    for (const auto& [mode, name] : kModeNames) {
        if (equals_upper_case(text, name))
            return mode;
    }
    return std::nullopt;
}

std::string_view mode_name(RegistryMode mode) {
    for (const auto& [m, name] : kModeNames) {
        if (m == mode)
            return name;
    }
    return "READWRITE";
}

std::vector<std::string> compatibility_messages(CompatibilityLevel level,
                                                const SchemaFormat& format,
                                                const ParsedSchema& candidate,
                                                const std::vector<RegisteredSchema>& previous) {
    std::vector<std::string> messages;
    if (level == CompatibilityLevel::kNone || previous.empty())
        return messages;
    if (is_transitive(level)) {
        // Newest first, and the first failing version is the only one reported.
        for (auto it = previous.rbegin(); it != previous.rend() && messages.empty(); ++it)
            messages = check_one(level, format, candidate, *it);
    } else {
        messages = check_one(level, format, candidate, previous.back());
    }
    if (!messages.empty())
        messages.push_back("{compatibility: '" + std::string(level_name(level)) + "'}");
    return messages;
}

std::string join_messages(const std::vector<std::string>& messages) {
    std::string joined = "[";
    for (size_t i = 0; i < messages.size(); ++i) {
        if (i > 0)
            joined += ", ";
        joined += messages[i];
    }
    return joined + "]";
}

}  // namespace skiff::schema_registry
