// What each Apache Kafka minor release's broker advertises in ApiVersions (2.0 ... 4.1), for
// `emulate.kafka.version`: the data is generated from Kafka's own sources of each release by
// tools/kafka-releases/derive_api_versions.py into kafka_releases_data.inc (see
// tools/kafka-releases/README.md for how each release was derived and checked).
//
// A range is what the release *advertises*, which is not always what it accepts: Kafka 4.x
// advertises Produce 0-12/13 but answers Produce v0-2 with UNSUPPORTED_VERSION (KAFKA-18659,
// kept in the range so that librdkafka does not turn compression off).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace skiff::protocol {

struct ReleaseApi {
    int16_t api_key;
    int16_t min_version;
    int16_t max_version;
};

struct KafkaRelease {
    std::string_view version;          // "2.8", "3.9", "4.0" ...
    std::span<const ReleaseApi> apis;  // sorted by api_key: what its broker advertises
};

// nullptr when `version` is not a known release. Accepts "2.8", "2.8.0", "2.8.2" (the minor
// release is what counts).
const KafkaRelease* find_kafka_release(std::string_view version);

std::span<const KafkaRelease> kafka_releases();  // oldest first

// What skiff advertises when emulating `release`: for every API that skiff serves
// (find_api(key) != nullptr, see protocol/api_table.h) AND the release advertises, the
// intersection of the two ranges (left out if empty). APIs the release advertises but skiff does
// not serve are in release_only, with the release's range (skiff cannot answer them). Both sorted
// by api_key.
struct EmulatedApis {
    std::vector<ReleaseApi> advertised;
    std::vector<ReleaseApi> release_only;
};
EmulatedApis emulate(const KafkaRelease& release);

}  // namespace skiff::protocol
