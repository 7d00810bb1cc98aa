#include "protocol/kafka_releases.h"

#include <algorithm>
#include <array>
#include <charconv>

#include "protocol/api_table.h"

namespace skiff::protocol {
namespace {

// One array of ReleaseApi per release ...
#define SKIFF_KAFKA_RELEASE_BEGIN(id) constexpr ReleaseApi k_##id[] = {
#define SKIFF_KAFKA_RELEASE_API(key, min, max) ReleaseApi{key, min, max},
#define SKIFF_KAFKA_RELEASE_END(id, name) \
    }                                     \
    ;
#include "protocol/kafka_releases_data.inc"
#undef SKIFF_KAFKA_RELEASE_BEGIN
#undef SKIFF_KAFKA_RELEASE_API
#undef SKIFF_KAFKA_RELEASE_END

// ... and the list of releases pointing at them.
#define SKIFF_KAFKA_RELEASE_BEGIN(id)
#define SKIFF_KAFKA_RELEASE_API(key, min, max)
#define SKIFF_KAFKA_RELEASE_END(id, name) KafkaRelease{name, k_##id},
constexpr std::array kReleases{
#include "protocol/kafka_releases_data.inc"
};
#undef SKIFF_KAFKA_RELEASE_BEGIN
#undef SKIFF_KAFKA_RELEASE_API
#undef SKIFF_KAFKA_RELEASE_END

constexpr bool well_formed() {
    for (const KafkaRelease& release : kReleases) {
        for (size_t i = 0; i < release.apis.size(); ++i) {
            const ReleaseApi& api = release.apis[i];
            if (api.min_version < 0 || api.min_version > api.max_version)
                return false;
            if (i > 0 && release.apis[i - 1].api_key >= api.api_key)
                return false;
        }
    }
    return true;
}
static_assert(well_formed(), "kafka_releases_data.inc: each release sorted by key, min <= max");

// "2.8", "2.8.0", "2.8.12" -> "2.8"; anything else -> empty.
std::string_view minor_release(std::string_view version) {
    auto number = [&](size_t from, size_t& end) {
        int value = 0;
        const char* first = version.data() + from;
        const char* last = version.data() + version.size();
        auto [ptr, ec] = std::from_chars(first, last, value);
        if (ec != std::errc() || ptr == first)
            return false;
        end = static_cast<size_t>(ptr - version.data());
        return true;
    };
    size_t end = 0;
    if (!number(0, end) || end >= version.size() || version[end] != '.')
        return {};
    if (!number(end + 1, end))
        return {};
    const std::string_view minor = version.substr(0, end);
    if (end == version.size())
        return minor;
    if (version[end] != '.' || !number(end + 1, end) || end != version.size())
        return {};
    return minor;
}

}  // namespace

const KafkaRelease* find_kafka_release(std::string_view version) {
    const std::string_view minor = minor_release(version);
    if (minor.empty())
        return nullptr;
    for (const KafkaRelease& release : kReleases)
        if (release.version == minor)
            return &release;
    return nullptr;
}

std::span<const KafkaRelease> kafka_releases() {
    return kReleases;
}

EmulatedApis emulate(const KafkaRelease& release) {
    EmulatedApis out;
    for (const ReleaseApi& api : release.apis) {
        const ApiSupport* served = find_api(api.api_key);
        if (served == nullptr) {
            out.release_only.push_back(api);
            continue;
        }
        const int16_t lo = std::max(api.min_version, served->min_version);
        const int16_t hi = std::min(api.max_version, served->max_version);
        if (lo <= hi)
            out.advertised.push_back(ReleaseApi{api.api_key, lo, hi});
    }
    return out;
}

}  // namespace skiff::protocol
