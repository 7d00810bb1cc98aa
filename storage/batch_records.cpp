#include "storage/batch_records.h"

namespace skiff::storage {

namespace {

// Zigzag varint as in the record format; nullopt if it runs past the end or is too long.
std::optional<int64_t> read_varlong(std::span<const std::byte> b, size_t& pos) {
    uint64_t raw = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (pos >= b.size())
            return std::nullopt;
        auto byte = static_cast<uint8_t>(b[pos++]);
        raw |= static_cast<uint64_t>(byte & 0x7f) << shift;
        if ((byte & 0x80) == 0)
            return static_cast<int64_t>((raw >> 1) ^ (~(raw & 1) + 1));
    }
    return std::nullopt;
}

}  // namespace

std::optional<TimestampAndOffset> first_record_at_or_after(std::span<const std::byte> batch,
                                                           const protocol::BatchHeader& header,
                                                           int64_t target) {
    size_t pos = protocol::kBatchHeaderSize;
    for (int32_t i = 0; i < header.records_count; ++i) {
        auto length = read_varlong(batch, pos);
        if (!length || *length < 0 || pos + static_cast<size_t>(*length) > batch.size())
            return std::nullopt;
        size_t end = pos + static_cast<size_t>(*length);
        size_t p = pos + 1;  // attributes
        auto ts_delta = read_varlong(batch, p);
        auto offset_delta = read_varlong(batch, p);
        if (!ts_delta || !offset_delta || p > end)
            return std::nullopt;
        int64_t ts = header.base_timestamp + *ts_delta;
        if (ts >= target)
            return TimestampAndOffset{ts, header.base_offset + *offset_delta};
        pos = end;
    }
    return std::nullopt;
}

}  // namespace skiff::storage
