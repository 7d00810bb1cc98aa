// snappy: xerial snappy-java framing on output (what Kafka and the Java client write); on input
// that framing or a single raw snappy block.
//
// xerial framing: the 8 bytes "\x82SNAPPY\0", int32 version, int32 minimum compatible version
// (both 1, big-endian), then blocks, each a big-endian int32 compressed length followed by one
// raw snappy block. snappy-java writes blocks of at most 32 KiB uncompressed.
#include <snappy.h>

#include <cstring>

#include "protocol/compression/compression.h"
#include "protocol/wire.h"

namespace skiff::protocol::compression {
namespace {

constexpr unsigned char kXerialMagic[8] = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
constexpr size_t kXerialHeaderSize = 16;
constexpr size_t kXerialBlockSize = size_t{32} * 1024;

bool is_xerial(std::span<const std::byte> in) {
    return in.size() >= kXerialHeaderSize && std::memcmp(in.data(), kXerialMagic, 8) == 0;
}

const char* chars(const std::byte* p) {
    return reinterpret_cast<const char*>(p);
}

// Appends one raw snappy block's contents to out[used..].
Expected<void, CodecError> raw_block(std::span<const std::byte> block, std::vector<std::byte>& out,
                                     size_t& used, size_t max_out) {
    size_t length = 0;
    if (!snappy::GetUncompressedLength(chars(block.data()), block.size(), &length))
        return codec_error(CodecErrc::corrupt, "snappy: corrupt block header");
    if (length > max_out - used)
        return codec_error(CodecErrc::too_large, "snappy: decompressed size exceeds the limit");
    if (out.size() < used + length)
        out.resize(used + length);
    if (!snappy::RawUncompress(chars(block.data()), block.size(),
                               reinterpret_cast<char*>(out.data() + used)))
        return codec_error(CodecErrc::corrupt, "snappy: corrupt block");
    used += length;
    return {};
}

}  // namespace

Expected<void, CodecError> snappy_decompress(std::span<const std::byte> in,
                                             std::vector<std::byte>& out, size_t max_out) {
    size_t used = 0;
    auto done = [&](Expected<void, CodecError> r) -> Expected<void, CodecError> {
        if (!r) {
            out.clear();
            return r;
        }
        out.resize(used);
        return {};
    };
    if (!is_xerial(in))
        return done(raw_block(in, out, used, max_out));
    size_t pos = kXerialHeaderSize;
    while (pos < in.size()) {
        if (in.size() - pos < 4)
            return done(codec_error(CodecErrc::corrupt, "snappy: truncated block length"));
        const auto length = wire::load_be<uint32_t>(in.data() + pos);
        pos += 4;
        if (length > in.size() - pos)
            return done(codec_error(CodecErrc::corrupt, "snappy: truncated block"));
        if (auto r = raw_block(in.subspan(pos, length), out, used, max_out); !r)
            return done(std::move(r));
        pos += length;
    }
    return done({});
}

Expected<void, CodecError> snappy_compress(std::span<const std::byte> in,
                                           std::vector<std::byte>& out) {
    const size_t blocks = (in.size() + kXerialBlockSize - 1) / kXerialBlockSize;
    size_t pos = out.size();
    out.resize(pos + kXerialHeaderSize +
               blocks * (4 + snappy::MaxCompressedLength(kXerialBlockSize)));
    std::memcpy(out.data() + pos, kXerialMagic, 8);
    wire::store_be<int32_t>(out.data() + pos + 8, 1);
    wire::store_be<int32_t>(out.data() + pos + 12, 1);
    pos += kXerialHeaderSize;
    for (size_t at = 0; at < in.size(); at += kXerialBlockSize) {
        const size_t n = std::min(kXerialBlockSize, in.size() - at);
        size_t written = 0;
        snappy::RawCompress(chars(in.data() + at), n, reinterpret_cast<char*>(out.data() + pos + 4),
                            &written);
        wire::store_be<int32_t>(out.data() + pos, static_cast<int32_t>(written));
        pos += 4 + written;
    }
    out.resize(pos);
    return {};
}

}  // namespace skiff::protocol::compression
