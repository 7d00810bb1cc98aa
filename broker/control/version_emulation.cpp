#include "broker/control/version_emulation.h"

namespace skiff::broker::control {

std::vector<std::string> known_releases() {
    std::vector<std::string> out;
    for (const auto& r : protocol::kafka_releases())
        out.emplace_back(r.version);
    return out;
}

std::optional<std::string> VersionEmulation::set(std::string_view version) {
    if (version.empty()) {
        current_.store(nullptr, std::memory_order_release);
        return std::nullopt;
    }
    const auto* release = protocol::find_kafka_release(version);
    if (!release) {
        std::string known;
        for (const auto& r : known_releases())
            known += (known.empty() ? "" : ", ") + r;
        return "\"" + std::string(version) + "\" is not an Apache Kafka release skiff emulates (" +
               known + ")";
    }
    auto table = std::make_unique<EmulatedVersions>();
    table->release = std::string(release->version);
    table->min.fill(0);
    table->max.fill(-1);
    for (const auto& api : protocol::emulate(*release).advertised) {
        table->advertised.push_back({api.api_key, api.min_version, api.max_version});
        table->min[static_cast<size_t>(api.api_key)] = api.min_version;
        table->max[static_cast<size_t>(api.api_key)] = api.max_version;
    }
    if (table->release.front() >= '4')
        table->produce_min_accepted = 3;
    std::lock_guard lock(mutex_);
    made_.push_back(std::move(table));
    current_.store(made_.back().get(), std::memory_order_release);
    return std::nullopt;
}

std::string VersionEmulation::release() const {
    const auto* c = current();
    return c ? c->release : std::string();
}

}  // namespace skiff::broker::control
