// Kafka's syntaxes for values that are more than an integer or a string, shared by the broker
// settings (settings.h) and the topic configs that default to them (broker/topics/topic_config).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace skiff::config {

// A Kafka version as message.format.version takes it: 0.8.0 up to 3.x, numeric parts (at least
// three for 0.x, two otherwise, at most four), an optional -IVn suffix ("0.10.0", "0.10.0.0",
// "2.8", "3.0-IV1"). Loose on purpose: the value is ignored.
bool is_kafka_version(std::string_view text);

// A whole decimal number with an optional leading '-', nothing around it ("60000", "-1"), as
// the broker's and the group and topic configs' integer values are written.
std::optional<int64_t> parse_long(std::string_view text);

// A finite double as Java's Double.parseDouble reads it (surrounding whitespace not allowed).
std::optional<double> parse_double(std::string_view text);
// A double as Java's Double.toString writes it: 0.5, 1.0, 1.0E7, 1.7976931348623157E308.
std::string render_double(double value);

// cleanup.policy / log.cleanup.policy: Kafka's list syntax over {delete, compact}, comma
// separated, whitespace around items ignored, at least one item ("delete", "compact",
// "compact,delete", "delete, compact"). nullopt for anything else.
struct CleanupPolicy {
    bool delete_ = false;
    bool compact = false;
};
std::optional<CleanupPolicy> parse_cleanup_policy(std::string_view text);
// The "expected ..." clause for a refused cleanup policy.
inline constexpr std::string_view kCleanupPolicyExpected =
    "expected delete, compact or a comma-separated list of both (compact,delete)";

}  // namespace skiff::config
