// The versions skiff serves of each API, generated from the one list in api_list.h. The broker
// checks request versions and answers ApiVersions from it, so the two can never disagree; the
// codec reads first_flexible_version from it to choose compact encodings and tag buffers.
#pragma once

#include <cstdint>
#include <span>

#include "protocol/api_key.h"

namespace skiff::protocol {

struct ApiSupport {
    ApiKey key;
    int16_t min_version;
    int16_t max_version;
    int16_t first_flexible_version;  // versions >= this use compact types and tag buffers

    bool supports(int16_t version) const {
        return version >= min_version && version <= max_version;
    }
};

// Sorted by API key.
std::span<const ApiSupport> supported_apis();

// nullptr if skiff does not serve this API key at all.
const ApiSupport* find_api(int16_t api_key);
inline const ApiSupport* find_api(ApiKey key) {
    return find_api(static_cast<int16_t>(key));
}

// Whether `version` of `key` is a flexible version. False for APIs not in the table.
bool is_flexible(ApiKey key, int16_t version);

// Response header version for a response to `key` at `version`: 1 (with a tag buffer) for flexible
// versions, 0 otherwise, and always 0 for ApiVersions: a client that does not yet know the broker's
// versions must be able to parse the answer.
int16_t response_header_version(ApiKey key, int16_t version);

}  // namespace skiff::protocol
