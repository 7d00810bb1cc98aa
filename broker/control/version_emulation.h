// emulate.kafka.version (docs/control-api.md): ApiVersions answered as an Apache Kafka release's
// broker answers it, and a request outside that release's versions refused as it would refuse
// it (the connection closed, as for any version a broker does not serve), from the tables in
// protocol/kafka_releases.h. Set at start-up or through the control API at run time; read by
// every request with one atomic load. Tables once made are kept for the process's life (a few
// hundred bytes each), so a reader never sees one freed.
#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/api_versions.h"
#include "protocol/kafka_releases.h"

namespace skiff::broker::control {

struct EmulatedVersions {
    std::string release;                           // "2.8"
    std::vector<protocol::ApiVersion> advertised;  // ApiVersions' api_keys
    std::array<int16_t, 128> min{};                // per API key; max < min: not served
    std::array<int16_t, 128> max{};
    // Kafka 4.x advertises Produce from v0 but answers v0-2 with UNSUPPORTED_VERSION
    // (KAFKA-18659): the lowest Produce version it accepts.
    int16_t produce_min_accepted = 0;

    bool allows(int16_t api_key, int16_t version) const {
        if (api_key < 0 || static_cast<size_t>(api_key) >= min.size())
            return false;
        const auto k = static_cast<size_t>(api_key);
        return version >= min[k] && version <= max[k];
    }
};

class VersionEmulation {
  public:
    // null: skiff's own versions.
    const EmulatedVersions* current() const { return current_.load(std::memory_order_acquire); }
    // "" stops emulating; an unknown release is refused with the list of known ones.
    std::optional<std::string> set(std::string_view release);
    std::string release() const;

  private:
    std::atomic<const EmulatedVersions*> current_{nullptr};
    mutable std::mutex mutex_;
    std::vector<std::unique_ptr<EmulatedVersions>> made_;
};

std::vector<std::string> known_releases();

}  // namespace skiff::broker::control
