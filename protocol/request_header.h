// Request header, versions 1 and 2 (v0, without a client id, is only used by ControlledShutdown
// v0, which skiff does not serve):
//   int16 api_key | int16 api_version | int32 correlation_id |
//   client_id: int16-length nullable string, in v2 too (see below) |
//   v2 only: tag buffer
// v2 is used for flexible API versions. ClientId keeps its int16 length even in v2 so that any
// broker can read the header of an ApiVersions request of a version it does not know.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "protocol/decode_error.h"
#include "protocol/expected.h"

namespace skiff::protocol {

struct RequestHeader {
    int16_t api_key = 0;
    int16_t api_version = 0;
    int32_t correlation_id = 0;
    std::optional<std::string> client_id;
};

struct DecodedHeader {
    RequestHeader header;
    size_t body_offset = 0;  // where the body starts within the frame
    bool flexible = false;   // header v2 was read; the body uses flexible encodings
};

// `frame` is the bytes after the size prefix. The API table picks header v1 or v2; an unknown key
// or unsupported version is read as v1 so the broker can still answer it (UNSUPPORTED_VERSION).
Expected<DecodedHeader, DecodeError> decode_request_header(std::span<const std::byte> frame);

// Reads just the correlation id (bytes 4..8 of the frame), for answering a frame whose header
// does not decode. nullopt if the frame is shorter than that.
std::optional<int32_t> peek_correlation_id(std::span<const std::byte> frame);

}  // namespace skiff::protocol
