// gzip: zlib's deflate with the gzip wrapper (windowBits 15 + 16), level Z_DEFAULT_COMPRESSION as
// Kafka's default compression.gzip.level. Input may be gzip or zlib wrapped (windowBits + 32).
#include <zlib.h>

#include "protocol/compression/compression.h"

namespace skiff::protocol::compression {
namespace {

// zlib's streams, made once per thread and reset per use.
struct Inflater {
    z_stream s{};
    bool ok = false;
    Inflater() { ok = inflateInit2(&s, 15 + 32) == Z_OK; }
    ~Inflater() {
        if (ok)
            inflateEnd(&s);
    }
};
struct Deflater {
    z_stream s{};
    bool ok = false;
    Deflater() {
        ok = deflateInit2(&s, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) ==
             Z_OK;
    }
    ~Deflater() {
        if (ok)
            deflateEnd(&s);
    }
};

Bytef* bytes(const std::byte* p) {
    return reinterpret_cast<Bytef*>(const_cast<std::byte*>(p));
}

}  // namespace

Expected<void, CodecError> gzip_decompress(std::span<const std::byte> in,
                                           std::vector<std::byte>& out, size_t max_out) {
    thread_local Inflater inflater;
    if (!inflater.ok || inflateReset(&inflater.s) != Z_OK)
        return codec_error(CodecErrc::failed, "gzip: zlib initialisation failed");
    z_stream& s = inflater.s;
    s.next_in = bytes(in.data());
    s.avail_in = static_cast<uInt>(in.size());
    size_t used = 0;
    for (;;) {
        if (!grow_output(out, used, in.size() * 4 + 1024, max_out)) {
            out.clear();
            return codec_error(CodecErrc::too_large, "gzip: decompressed size exceeds the limit");
        }
        s.next_out = bytes(out.data() + used);
        s.avail_out = static_cast<uInt>(std::min<size_t>(out.size() - used, UINT32_MAX));
        const uInt before = s.avail_out;
        const int rc = inflate(&s, Z_NO_FLUSH);
        used += before - s.avail_out;
        if (rc == Z_STREAM_END) {
            if (s.avail_in != 0) {
                out.clear();
                return codec_error(CodecErrc::corrupt, "gzip: trailing bytes after the stream");
            }
            out.resize(used);
            return {};
        }
        if (rc == Z_BUF_ERROR && s.avail_in == 0) {
            out.clear();
            return codec_error(CodecErrc::corrupt, "gzip: truncated stream");
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
            out.clear();
            return codec_error(CodecErrc::corrupt,
                               std::string("gzip: ") + (s.msg ? s.msg : "corrupt stream"));
        }
    }
}

Expected<void, CodecError> gzip_compress(std::span<const std::byte> in,
                                         std::vector<std::byte>& out) {
    thread_local Deflater deflater;
    if (!deflater.ok || deflateReset(&deflater.s) != Z_OK)
        return codec_error(CodecErrc::failed, "gzip: zlib initialisation failed");
    z_stream& s = deflater.s;
    const size_t start = out.size();
    out.resize(start + deflateBound(&s, static_cast<uLong>(in.size())));
    s.next_in = bytes(in.data());
    s.avail_in = static_cast<uInt>(in.size());
    s.next_out = bytes(out.data() + start);
    s.avail_out = static_cast<uInt>(out.size() - start);
    const int rc = deflate(&s, Z_FINISH);
    if (rc != Z_STREAM_END) {
        out.resize(start);
        return codec_error(CodecErrc::failed, "gzip: deflate failed");
    }
    out.resize(start + s.total_out);
    return {};
}

}  // namespace skiff::protocol::compression
