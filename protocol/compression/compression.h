// Kafka's record batch codecs, as Kafka writes and reads them (attributes bits 0-2):
//   gzip    zlib deflate in gzip framing (zlib framing is accepted on input too)
//   snappy  xerial snappy-java framing on output, as the Java client and Kafka write it:
//           "\x82SNAPPY\0", int32 version 1, int32 compatible version 1, then big-endian
//           int32-length-prefixed raw snappy blocks of at most 32 KiB uncompressed. Input in
//           that framing or as one raw snappy block (what librdkafka may send) is accepted.
//   lz4     the standard LZ4 frame format (KIP-57: the correct header checksum, as magic v2
//           batches always use), 64 KiB independent blocks
//   zstd    one or more zstd frames; the content size may be absent from the frame header
//
// Thread-safety: every function is safe to call from several threads; each thread keeps its
// own codec contexts (thread_local), reused across calls.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/expected.h"
#include "protocol/record_batch.h"

namespace skiff::protocol::compression {

enum class CodecErrc {
    corrupt,    // the input does not decompress
    too_large,  // it decompresses to more than the caller's limit
    failed,     // the library failed for another reason (out of memory)
};

struct CodecError {
    CodecErrc code{};
    std::string message;
};

// Decompresses `in` into `out` (cleared first; its capacity is reused). Refuses output beyond
// `max_out` bytes without producing it in full. Compression::none copies.
Expected<void, CodecError> decompress(Compression codec, std::span<const std::byte> in,
                                      std::vector<std::byte>& out, size_t max_out);

// Appends the compressed form of `in` to `out` (existing contents are kept).
Expected<void, CodecError> compress(Compression codec, std::span<const std::byte> in,
                                    std::vector<std::byte>& out);

// The topic / broker setting compression.type: "producer" is nullopt (keep what the producer
// sent), "uncompressed" is Compression::none, else the codec of that name. Returns false for
// any other value.
bool parse_compression_type(std::string_view text, std::optional<Compression>& out);
inline constexpr std::string_view kCompressionTypes =
    "producer, uncompressed, gzip, snappy, lz4 or zstd";

// One function pair per codec (gzip.cpp, snappy.cpp, lz4.cpp, zstd.cpp); the dispatcher above
// calls these. Same contracts as decompress / compress.
Expected<void, CodecError> gzip_decompress(std::span<const std::byte> in,
                                           std::vector<std::byte>& out, size_t max_out);
Expected<void, CodecError> gzip_compress(std::span<const std::byte> in,
                                         std::vector<std::byte>& out);
Expected<void, CodecError> snappy_decompress(std::span<const std::byte> in,
                                             std::vector<std::byte>& out, size_t max_out);
Expected<void, CodecError> snappy_compress(std::span<const std::byte> in,
                                           std::vector<std::byte>& out);
Expected<void, CodecError> lz4_decompress(std::span<const std::byte> in,
                                          std::vector<std::byte>& out, size_t max_out);
Expected<void, CodecError> lz4_compress(std::span<const std::byte> in, std::vector<std::byte>& out);
Expected<void, CodecError> zstd_decompress(std::span<const std::byte> in,
                                           std::vector<std::byte>& out, size_t max_out);
Expected<void, CodecError> zstd_compress(std::span<const std::byte> in,
                                         std::vector<std::byte>& out);

// Helpers shared by the codecs.
inline Unexpected<CodecError> codec_error(CodecErrc code, std::string message) {
    return unexpected(CodecError{code, std::move(message)});
}
// Grows `out` for the next chunk of decompressed output: at least `want` more bytes, never past
// max_out. Returns false when out is already at max_out (the output would exceed the limit).
bool grow_output(std::vector<std::byte>& out, size_t& used, size_t want, size_t max_out);

}  // namespace skiff::protocol::compression
