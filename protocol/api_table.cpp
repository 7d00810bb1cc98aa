#include "protocol/api_table.h"

#include <array>

namespace skiff::protocol {
namespace {

#define SKIFF_API_SUPPORT(key, number, name, request, response, min, max, flexible) \
    ApiSupport{ApiKey::key, min, max, flexible},
constexpr std::array kSupportedApis{SKIFF_FOR_EACH_API(SKIFF_API_SUPPORT)};
#undef SKIFF_API_SUPPORT

constexpr bool sorted_by_key() {
    for (size_t i = 1; i < kSupportedApis.size(); ++i)
        if (kSupportedApis[i - 1].key >= kSupportedApis[i].key)
            return false;
    return true;
}
static_assert(sorted_by_key(), "api_list.h must list the APIs sorted by key");

}  // namespace

const char* api_name(ApiKey key) {
#define SKIFF_API_NAME(key_, number, name, ...) \
    case ApiKey::key_:                          \
        return #name;
    switch (key) { SKIFF_FOR_EACH_API(SKIFF_API_NAME) }
#undef SKIFF_API_NAME
    return "Unknown";
}

std::span<const ApiSupport> supported_apis() {
    return kSupportedApis;
}

const ApiSupport* find_api(int16_t api_key) {
    for (const ApiSupport& api : kSupportedApis)
        if (static_cast<int16_t>(api.key) == api_key)
            return &api;
    return nullptr;
}

bool is_flexible(ApiKey key, int16_t version) {
    const ApiSupport* api = find_api(key);
    return api != nullptr && version >= api->first_flexible_version;
}

int16_t response_header_version(ApiKey key, int16_t version) {
    if (key == ApiKey::api_versions)
        return 0;
    return is_flexible(key, version) ? 1 : 0;
}

}  // namespace skiff::protocol
