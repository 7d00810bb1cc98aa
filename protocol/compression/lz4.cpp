// lz4: the LZ4 frame format (lz4frame.h). Magic v2 batches always carry correctly framed LZ4
// (KIP-57 fixed the header checksum the 0.8-0.9 Java client got wrong, for magic 0 and 1 only).
// Written with 64 KiB independent blocks and no content checksum, as the Java client does.
#include <lz4frame.h>

#include "protocol/compression/compression.h"

namespace skiff::protocol::compression {
namespace {

struct Decoder {
    LZ4F_dctx* ctx = nullptr;
    Decoder() {
        if (LZ4F_isError(LZ4F_createDecompressionContext(&ctx, LZ4F_VERSION)))
            ctx = nullptr;
    }
    ~Decoder() { LZ4F_freeDecompressionContext(ctx); }
};
struct Encoder {
    LZ4F_cctx* ctx = nullptr;
    Encoder() {
        if (LZ4F_isError(LZ4F_createCompressionContext(&ctx, LZ4F_VERSION)))
            ctx = nullptr;
    }
    ~Encoder() { LZ4F_freeCompressionContext(ctx); }
};

}  // namespace

Expected<void, CodecError> lz4_decompress(std::span<const std::byte> in,
                                          std::vector<std::byte>& out, size_t max_out) {
    thread_local Decoder decoder;
    if (!decoder.ctx)
        return codec_error(CodecErrc::failed, "lz4: cannot create a decompression context");
    LZ4F_resetDecompressionContext(decoder.ctx);
    size_t used = 0;
    size_t pos = 0;
    size_t hint = 1;
    while (hint != 0) {  // 0: a frame ended
        if (pos == in.size()) {
            out.clear();
            return codec_error(CodecErrc::corrupt, "lz4: truncated frame");
        }
        if (used == out.size() && !grow_output(out, used, in.size() * 4 + 65536, max_out)) {
            out.clear();
            return codec_error(CodecErrc::too_large, "lz4: decompressed size exceeds the limit");
        }
        size_t dst = out.size() - used;
        size_t src = in.size() - pos;
        hint =
            LZ4F_decompress(decoder.ctx, out.data() + used, &dst, in.data() + pos, &src, nullptr);
        if (LZ4F_isError(hint)) {
            out.clear();
            return codec_error(CodecErrc::corrupt, std::string("lz4: ") + LZ4F_getErrorName(hint));
        }
        if (dst == 0 && src == 0 && hint != 0) {  // no progress: never loop forever
            out.clear();
            return codec_error(CodecErrc::corrupt, "lz4: corrupt frame");
        }
        used += dst;
        pos += src;
    }
    if (pos != in.size()) {
        out.clear();
        return codec_error(CodecErrc::corrupt, "lz4: trailing bytes after the frame");
    }
    out.resize(used);
    return {};
}

Expected<void, CodecError> lz4_compress(std::span<const std::byte> in,
                                        std::vector<std::byte>& out) {
    thread_local Encoder encoder;
    if (!encoder.ctx)
        return codec_error(CodecErrc::failed, "lz4: cannot create a compression context");
    LZ4F_preferences_t prefs{};
    prefs.frameInfo.blockSizeID = LZ4F_max64KB;
    prefs.frameInfo.blockMode = LZ4F_blockIndependent;
    const size_t start = out.size();
    out.resize(start + LZ4F_HEADER_SIZE_MAX + LZ4F_compressBound(in.size(), &prefs));
    std::byte* base = out.data() + start;
    const size_t room = out.size() - start;
    size_t n = LZ4F_compressBegin(encoder.ctx, base, room, &prefs);
    if (!LZ4F_isError(n)) {
        const size_t body =
            LZ4F_compressUpdate(encoder.ctx, base + n, room - n, in.data(), in.size(), nullptr);
        n = LZ4F_isError(body) ? body : n + body;
    }
    if (!LZ4F_isError(n)) {
        const size_t end = LZ4F_compressEnd(encoder.ctx, base + n, room - n, nullptr);
        n = LZ4F_isError(end) ? end : n + end;
    }
    if (LZ4F_isError(n)) {
        out.resize(start);
        return codec_error(CodecErrc::failed, std::string("lz4: ") + LZ4F_getErrorName(n));
    }
    out.resize(start + n);
    return {};
}

}  // namespace skiff::protocol::compression
