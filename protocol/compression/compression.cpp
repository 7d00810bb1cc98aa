#include "protocol/compression/compression.h"

#include <algorithm>
#include <cstring>

namespace skiff::protocol::compression {

bool grow_output(std::vector<std::byte>& out, size_t& used, size_t want, size_t max_out) {
    if (used >= max_out)
        return false;
    const size_t target = std::min(max_out, used + std::max(want, used));
    if (out.size() < target)
        out.resize(target);  // within the reused capacity in the steady state
    return out.size() > used;
}

Expected<void, CodecError> decompress(Compression codec, std::span<const std::byte> in,
                                      std::vector<std::byte>& out, size_t max_out) {
    out.clear();
    switch (codec) {
        case Compression::none:
            if (in.size() > max_out)
                return codec_error(CodecErrc::too_large, "records exceed the size limit");
            out.assign(in.begin(), in.end());
            return {};
        case Compression::gzip:
            return gzip_decompress(in, out, max_out);
        case Compression::snappy:
            return snappy_decompress(in, out, max_out);
        case Compression::lz4:
            return lz4_decompress(in, out, max_out);
        case Compression::zstd:
            return zstd_decompress(in, out, max_out);
    }
    return codec_error(CodecErrc::corrupt, "unknown compression codec");
}

Expected<void, CodecError> compress(Compression codec, std::span<const std::byte> in,
                                    std::vector<std::byte>& out) {
    switch (codec) {
        case Compression::none:
            out.insert(out.end(), in.begin(), in.end());
            return {};
        case Compression::gzip:
            return gzip_compress(in, out);
        case Compression::snappy:
            return snappy_compress(in, out);
        case Compression::lz4:
            return lz4_compress(in, out);
        case Compression::zstd:
            return zstd_compress(in, out);
    }
    return codec_error(CodecErrc::failed, "unknown compression codec");
}

bool parse_compression_type(std::string_view text, std::optional<Compression>& out) {
    if (text == "producer")
        out = std::nullopt;
    else if (text == "uncompressed")
        out = Compression::none;
    else if (text == "gzip")
        out = Compression::gzip;
    else if (text == "snappy")
        out = Compression::snappy;
    else if (text == "lz4")
        out = Compression::lz4;
    else if (text == "zstd")
        out = Compression::zstd;
    else
        return false;
    return true;
}

}  // namespace skiff::protocol::compression
