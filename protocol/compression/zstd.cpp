// zstd: streaming decompression (the frame header may not carry the content size, and a producer
// may send several frames back to back); compression at zstd's default level 3, Kafka's
// default compression.zstd.level.
#include <zstd.h>

#include "protocol/compression/compression.h"

namespace skiff::protocol::compression {
namespace {

struct Contexts {
    ZSTD_DCtx* d = ZSTD_createDCtx();
    ZSTD_CCtx* c = ZSTD_createCCtx();
    ~Contexts() {
        ZSTD_freeDCtx(d);
        ZSTD_freeCCtx(c);
    }
};
thread_local Contexts contexts;

}  // namespace

Expected<void, CodecError> zstd_decompress(std::span<const std::byte> in,
                                           std::vector<std::byte>& out, size_t max_out) {
    if (!contexts.d)
        return codec_error(CodecErrc::failed, "zstd: cannot create a decompression context");
    ZSTD_DCtx_reset(contexts.d, ZSTD_reset_session_only);
    ZSTD_inBuffer input{in.data(), in.size(), 0};
    size_t used = 0;
    size_t pending = 1;  // 0 once a frame is complete and flushed
    while (input.pos < input.size || pending != 0) {
        if (used == out.size() && !grow_output(out, used, in.size() * 4 + 65536, max_out)) {
            out.clear();
            return codec_error(CodecErrc::too_large, "zstd: decompressed size exceeds the limit");
        }
        ZSTD_outBuffer output{out.data() + used, out.size() - used, 0};
        const size_t before_in = input.pos;
        pending = ZSTD_decompressStream(contexts.d, &output, &input);
        if (ZSTD_isError(pending)) {
            out.clear();
            return codec_error(CodecErrc::corrupt,
                               std::string("zstd: ") + ZSTD_getErrorName(pending));
        }
        used += output.pos;
        // All input consumed, output space left, yet the frame is not complete: truncated.
        if (pending != 0 && input.pos == input.size && output.pos < output.size &&
            before_in == input.pos) {
            out.clear();
            return codec_error(CodecErrc::corrupt, "zstd: truncated frame");
        }
    }
    out.resize(used);
    return {};
}

Expected<void, CodecError> zstd_compress(std::span<const std::byte> in,
                                         std::vector<std::byte>& out) {
    if (!contexts.c)
        return codec_error(CodecErrc::failed, "zstd: cannot create a compression context");
    ZSTD_CCtx_reset(contexts.c, ZSTD_reset_session_and_parameters);
    ZSTD_CCtx_setParameter(contexts.c, ZSTD_c_compressionLevel, 3);
    const size_t start = out.size();
    out.resize(start + ZSTD_compressBound(in.size()));
    const size_t n =
        ZSTD_compress2(contexts.c, out.data() + start, out.size() - start, in.data(), in.size());
    if (ZSTD_isError(n)) {
        out.resize(start);
        return codec_error(CodecErrc::failed, std::string("zstd: ") + ZSTD_getErrorName(n));
    }
    out.resize(start + n);
    return {};
}

}  // namespace skiff::protocol::compression
