#include "protocol/api_versions.h"

#include "protocol/api_table.h"

namespace skiff::protocol {

ApiVersionsResponse make_api_versions_response() {
    ApiVersionsResponse r;
    for (const ApiSupport& api : supported_apis())
        r.api_keys.push_back(
            ApiVersion{static_cast<int16_t>(api.key), api.min_version, api.max_version});
    return r;
}

void encode_api_versions_unsupported(int32_t correlation_id, OutBuffer& out,
                                     const std::vector<ApiVersion>* api_keys) {
    ApiVersionsResponse r = make_api_versions_response();
    if (api_keys)
        r.api_keys = *api_keys;
    r.error_code = ErrorCode::unsupported_version;
    encode_response(r, 0, correlation_id, out);
}

}  // namespace skiff::protocol

SKIFF_INSTANTIATE_CODEC(skiff::protocol::ApiVersionsRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::ApiVersionsResponse)
