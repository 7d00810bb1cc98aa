#include "protocol/legacy/up_convert.h"

#include <algorithm>
#include <limits>

#include "protocol/compression/compression.h"
#include "protocol/crc32c.h"
#include "protocol/wire.h"

namespace skiff::protocol::legacy {
namespace {

size_t varint_size(int64_t v) {
    return wire::uvarint_size(wire::zigzag64(v));
}

void put_varint(std::vector<std::byte>& out, int64_t v) {
    std::byte tmp[wire::kMaxVarint64Bytes];
    const size_t n = wire::put_uvarint(tmp, wire::zigzag64(v));
    out.insert(out.end(), tmp, tmp + n);
}

void put_varint_bytes(std::vector<std::byte>& out,
                      const std::optional<std::span<const std::byte>>& b) {
    if (!b) {
        put_varint(out, -1);
        return;
    }
    put_varint(out, static_cast<int64_t>(b->size()));
    out.insert(out.end(), b->begin(), b->end());
}

size_t bytes_size(const std::optional<std::span<const std::byte>>& b) {
    return b ? varint_size(static_cast<int64_t>(b->size())) + b->size() : 1;
}

}  // namespace

Expected<UpConverted, LegacyError> up_convert(std::span<const std::byte> message_set,
                                              size_t max_plain, std::vector<std::byte>& out,
                                              std::vector<std::byte>& scratch) {
    out.clear();
    // Records are about as large as the messages they come from (12-byte entry headers and
    // fixed-width lengths become varints): one allocation for the usual uncompressed set.
    out.reserve(kBatchHeaderSize + message_set.size());
    out.resize(kBatchHeaderSize);
    MessageSetReader reader(message_set, max_plain);
    UpConverted result;
    int64_t base_timestamp = kNoTimestamp;
    int64_t max_timestamp = kNoTimestamp;
    for (;;) {
        auto next = reader.next();
        if (!next)
            return unexpected(std::move(next.error()));
        if (!*next)
            break;
        const LegacyMessage& m = **next;
        if (result.record_count == std::numeric_limits<int32_t>::max())
            return unexpected(LegacyError{"too many messages in one message set"});
        if (result.record_count == 0)
            base_timestamp = m.timestamp;
        max_timestamp = std::max(max_timestamp, m.timestamp);
        if (m.wrapper_codec != Compression::none)
            result.codec = m.wrapper_codec;
        const int64_t delta = wire::wrapping_sub(m.timestamp, base_timestamp);
        const size_t body = 1 + varint_size(delta) + varint_size(result.record_count) +
                            bytes_size(m.key) + bytes_size(m.value) + 1;
        put_varint(out, static_cast<int64_t>(body));
        out.push_back(std::byte{0});  // record attributes
        put_varint(out, delta);
        put_varint(out, result.record_count);
        put_varint_bytes(out, m.key);
        put_varint_bytes(out, m.value);
        put_varint(out, 0);  // no headers before v2
        ++result.record_count;
    }
    if (result.record_count == 0)
        return unexpected(LegacyError{"empty message set"});
    if (result.codec != Compression::none) {
        const auto records = std::span(out).subspan(kBatchHeaderSize);
        scratch.assign(records.begin(), records.end());
        out.resize(kBatchHeaderSize);
        if (auto r = compression::compress(result.codec, scratch, out); !r)
            return unexpected(LegacyError{"recompressing converted records: " + r.error().message});
    }
    std::byte* h = out.data();
    wire::store_be<int64_t>(h + 0, 0);  // the log assigns offsets
    wire::store_be<int32_t>(h + 8, static_cast<int32_t>(out.size() - kBatchLogOverhead));
    wire::store_be<int32_t>(h + 12, -1);  // partition leader epoch
    h[kBatchMagicOffset] = static_cast<std::byte>(kCurrentMagic);
    wire::store_be<int16_t>(h + kBatchAttributesOffset, static_cast<int16_t>(result.codec));
    wire::store_be<int32_t>(h + 23, result.record_count - 1);
    wire::store_be<int64_t>(h + 27, base_timestamp);
    wire::store_be<int64_t>(h + 35, max_timestamp);
    wire::store_be<int64_t>(h + 43, -1);  // producer id
    wire::store_be<int16_t>(h + 51, -1);  // producer epoch
    wire::store_be<int32_t>(h + 53, -1);  // base sequence
    wire::store_be<int32_t>(h + 57, result.record_count);
    wire::store_be<uint32_t>(h + kBatchCrcOffset,
                             crc32c(std::span(out).subspan(kBatchAttributesOffset)));
    return result;
}

}  // namespace skiff::protocol::legacy
