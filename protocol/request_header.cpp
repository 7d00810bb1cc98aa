#include "protocol/request_header.h"

#include "protocol/api_table.h"
#include "protocol/codec.h"
#include "protocol/reader.h"
#include "protocol/wire.h"

namespace skiff::protocol {

Expected<DecodedHeader, DecodeError> decode_request_header(std::span<const std::byte> frame) {
    // The header's own fields never use compact encodings; only the trailing tag buffer differs.
    Reader r(frame, 0, false);
    DecodedHeader d;
    d.header.api_key = r.read_int<int16_t>("request_api_key");
    d.header.api_version = r.read_int<int16_t>("request_api_version");
    d.header.correlation_id = r.read_int<int32_t>("correlation_id");
    d.header.client_id = r.read_string("client_id", true, false);
    const ApiSupport* api = find_api(d.header.api_key);
    d.flexible = api != nullptr && api->supports(d.header.api_version) &&
                 d.header.api_version >= api->first_flexible_version;
    if (d.flexible)
        r.skip_tag_buffer("header_tagged_fields");
    if (!r.ok())
        return unexpected(*r.error());
    d.body_offset = r.position();
    return d;
}

std::optional<int32_t> peek_correlation_id(std::span<const std::byte> frame) {
    if (frame.size() < 8)
        return std::nullopt;
    return wire::load_be<int32_t>(frame.data() + 4);
}

void encode_request_header(ApiKey key, int16_t version, int32_t correlation_id,
                           std::string_view client_id, OutBuffer& out) {
    out.put_int(static_cast<int16_t>(key));
    out.put_int(version);
    out.put_int(correlation_id);
    Writer w(out, version, false);
    w.write_string(client_id, false);
    if (is_flexible(key, version))
        out.put_uvarint(0);
}

}  // namespace skiff::protocol
