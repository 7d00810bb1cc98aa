#include "broker/group/record_codec.h"

namespace skiff::broker::group {

Expected<int16_t, protocol::DecodeError> record_version(std::span<const std::byte> bytes) {
    protocol::Reader r(bytes, 0, false);
    auto version = r.read_int<int16_t>("version");
    if (!r.ok())
        return unexpected(*r.error());
    return version;
}

Expected<std::string, protocol::DecodeError> record_group_id(std::span<const std::byte> key) {
    if (key.size() < 2)
        return unexpected(protocol::DecodeError{"version", 0, "truncated record key"});
    // Every group key is non-flexible: int16 length, then the id.
    protocol::Reader r(key.subspan(2), 0, false);
    auto id = r.read_string("group", false, false);
    if (!r.ok() || !id)
        return unexpected(*r.error());
    return std::move(*id);
}

}  // namespace skiff::broker::group
