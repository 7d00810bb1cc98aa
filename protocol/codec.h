// Message-level entry points, generic over every message struct (a struct with
// `static constexpr ApiKey api_key` and a describe(); see field_spec.h). Whether a version is
// flexible comes from the API table, so a message and the ApiVersions answer cannot disagree.
//
// Frames written here:
//   response: int32 size | int32 correlation_id | [tag buffer if header v1] | body
//   request:  int32 size | int16 api_key | int16 api_version | int32 correlation_id |
//             int16-length client_id | [tag buffer if header v2] | body
// The size counts file ranges spliced into the OutBuffer, so it is what goes on the wire.
//
// Each message header declares `extern template` for its decode/encode and its .cpp instantiates
// them (SKIFF_INSTANTIATE_CODEC), so users do not compile the visitors again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "protocol/api_table.h"
#include "protocol/decode_error.h"
#include "protocol/expected.h"
#include "protocol/out_buffer.h"
#include "protocol/reader.h"
#include "protocol/writer.h"

namespace skiff::protocol {

// What decode_message does with bytes after the message's last field. Kafka parses a request's
// fields and ignores anything after them (it never checks that the request was consumed), and
// clients rely on it: librdkafka 2.0.2 ends its ListGroups v4 request with one tagged-field byte
// too many. The broker decodes requests that way; everything else (responses read by the tests
// and the health check) is strict.
enum class TrailingBytes { refuse, ignore };

// Decodes a message body (the bytes after the request/response header). `body` must outlive the
// message: byte fields such as Produce records are views into it.
template <class Msg>
Expected<Msg, DecodeError> decode_message(std::span<const std::byte> body, int16_t version,
                                          TrailingBytes trailing = TrailingBytes::refuse) {
    Reader r(body, version, is_flexible(Msg::api_key, version));
    Msg m;
    r.read_struct(nullptr, m);
    if (trailing == TrailingBytes::refuse)
        r.expect_end();
    if (!r.ok())
        return unexpected(*r.error());
    return m;
}

template <class Msg>
void encode_message(const Msg& m, int16_t version, OutBuffer& out) {
    Writer w(out, version, is_flexible(Msg::api_key, version));
    w.write_struct(m);
}

// Appends a whole response frame to `out` (which may already hold earlier frames).
template <class Msg>
void encode_response(const Msg& m, int16_t version, int32_t correlation_id, OutBuffer& out) {
    const size_t size_at = out.memory_size();
    const int64_t before = out.total_size();
    out.put_int<int32_t>(0);  // patched below
    out.put_int<int32_t>(correlation_id);
    if (response_header_version(Msg::api_key, version) >= 1)
        out.put_uvarint(0);  // no header tags
    encode_message(m, version, out);
    out.patch_int32(size_at, static_cast<int32_t>(out.total_size() - before - 4));
}

// Writes the request header (v2 for flexible versions, else v1) to `out`. Used by encode_request.
void encode_request_header(ApiKey key, int16_t version, int32_t correlation_id,
                           std::string_view client_id, OutBuffer& out);

// A whole request frame as raw bytes, for tests and tools.
template <class Msg>
std::vector<std::byte> encode_request(const Msg& m, int16_t version, int32_t correlation_id,
                                      std::string_view client_id) {
    OutBuffer out;
    out.put_int<int32_t>(0);
    encode_request_header(Msg::api_key, version, correlation_id, client_id, out);
    encode_message(m, version, out);
    out.patch_int32(0, static_cast<int32_t>(out.memory_size() - 4));
    auto bytes = out.bytes();
    return {bytes.begin(), bytes.end()};
}

}  // namespace skiff::protocol

// In a message header, after the struct: `SKIFF_DECLARE_CODEC(ProduceRequest)`; in its .cpp:
// `SKIFF_INSTANTIATE_CODEC(ProduceRequest)`.
#define SKIFF_DECLARE_CODEC(Msg)                                                               \
    namespace skiff::protocol {                                                                \
    extern template Expected<Msg, DecodeError> decode_message<Msg>(std::span<const std::byte>, \
                                                                   int16_t, TrailingBytes);    \
    extern template void encode_message<Msg>(const Msg&, int16_t, OutBuffer&);                 \
    }

#define SKIFF_INSTANTIATE_CODEC(Msg)                                                             \
    namespace skiff::protocol {                                                                  \
    template Expected<Msg, DecodeError> decode_message<Msg>(std::span<const std::byte>, int16_t, \
                                                            TrailingBytes);                      \
    template void encode_message<Msg>(const Msg&, int16_t, OutBuffer&);                          \
    }
