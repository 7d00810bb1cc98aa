#include "protocol/record_builder.h"

#include <algorithm>

#include "protocol/crc32c.h"
#include "protocol/out_buffer.h"
#include "protocol/record_batch.h"
#include "protocol/wire.h"

namespace skiff::protocol {
namespace {

void put_varint_bytes(OutBuffer& out, const std::optional<std::string>& s) {
    if (!s) {
        out.put_varint(-1);
        return;
    }
    out.put_varint(static_cast<int32_t>(s->size()));
    out.put_chars(*s);
}

}  // namespace

std::vector<std::byte> build_record_batch(const BatchSpec& batch,
                                          const std::vector<RecordSpec>& records) {
    OutBuffer body;
    int64_t max_delta = 0;
    for (size_t i = 0; i < records.size(); ++i) {
        const RecordSpec& r = records[i];
        OutBuffer rec;
        rec.put_int<int8_t>(0);
        rec.put_varlong(r.timestamp_delta);
        rec.put_varint(static_cast<int32_t>(i));
        put_varint_bytes(rec, r.key);
        put_varint_bytes(rec, r.value);
        rec.put_varint(static_cast<int32_t>(r.headers.size()));
        for (const auto& [k, v] : r.headers) {
            put_varint_bytes(rec, k);
            put_varint_bytes(rec, v);
        }
        body.put_varint(static_cast<int32_t>(rec.memory_size()));
        body.put_bytes(rec.bytes());
        max_delta = std::max(max_delta, r.timestamp_delta);
    }
    OutBuffer out;
    const auto count = static_cast<int32_t>(records.size());
    out.put_int<int64_t>(batch.base_offset);
    out.put_int<int32_t>(
        static_cast<int32_t>(kBatchHeaderSize - kBatchLogOverhead + body.memory_size()));
    out.put_int<int32_t>(0);  // partition leader epoch
    out.put_int<int8_t>(kCurrentMagic);
    out.put_int<uint32_t>(0);  // CRC, patched below
    out.put_int<int16_t>(batch.attributes);
    out.put_int<int32_t>(count > 0 ? count - 1 : 0);
    out.put_int<int64_t>(batch.base_timestamp);
    out.put_int<int64_t>(wire::wrapping_add(batch.base_timestamp, max_delta));
    out.put_int<int64_t>(batch.producer_id);
    out.put_int<int16_t>(batch.producer_epoch);
    out.put_int<int32_t>(batch.base_sequence);
    out.put_int<int32_t>(count);
    out.put_bytes(body.bytes());
    std::vector<std::byte> bytes(out.bytes().begin(), out.bytes().end());
    uint32_t crc = crc32c(std::span(bytes).subspan(kBatchAttributesOffset));
    wire::store_be<uint32_t>(bytes.data() + kBatchCrcOffset, crc);
    return bytes;
}

}  // namespace skiff::protocol
