// Kafka API keys (the first int16 of every request header). Only the APIs skiff serves are named
// (api_list.h); any other int16 is still representable and answered as unsupported.
#pragma once

#include <cstdint>

#include "protocol/api_list.h"

namespace skiff::protocol {

#define SKIFF_API_KEY_ENUMERATOR(key, number, ...) key = number,
enum class ApiKey : int16_t { SKIFF_FOR_EACH_API(SKIFF_API_KEY_ENUMERATOR) };
#undef SKIFF_API_KEY_ENUMERATOR

// Kafka's name for the API ("Produce", "ApiVersions"), or "Unknown".
const char* api_name(ApiKey key);

}  // namespace skiff::protocol
