#include "storage/control_batch.h"

#include "protocol/crc32c.h"
#include "storage/big_endian.h"

namespace skiff::storage {

namespace {

// Zigzag varint as in record bodies; nullopt past the end or longer than 5 bytes.
std::optional<int32_t> read_varint(std::span<const std::byte> bytes, size_t& at) {
    uint32_t raw = 0;
    for (int shift = 0; shift < 35; shift += 7) {
        if (at >= bytes.size())
            return std::nullopt;
        auto b = static_cast<uint8_t>(bytes[at++]);
        raw |= static_cast<uint32_t>(b & 0x7f) << shift;
        if ((b & 0x80) == 0)
            return static_cast<int32_t>((raw >> 1) ^ (~(raw & 1) + 1));
    }
    return std::nullopt;
}

}  // namespace

std::array<std::byte, kMarkerBatchSize> make_marker_batch(int64_t producer_id,
                                                          int16_t producer_epoch,
                                                          int32_t coordinator_epoch, bool commit,
                                                          int64_t timestamp_ms) {
    std::array<std::byte, kMarkerBatchSize> b{};
    std::byte* p = b.data();
    store_be<int64_t>(p + 0, 0);                                            // base offset
    store_be<int32_t>(p + 8, static_cast<int32_t>(kMarkerBatchSize - 12));  // length 66
    store_be<int32_t>(p + 12, 0);     // partition leader epoch
    p[16] = std::byte{2};             // magic
    store_be<int16_t>(p + 21, 0x30);  // transactional + control
    store_be<int32_t>(p + 23, 0);     // last offset delta
    store_be<int64_t>(p + 27, timestamp_ms);
    store_be<int64_t>(p + 35, timestamp_ms);
    store_be<int64_t>(p + 43, producer_id);
    store_be<int16_t>(p + 51, producer_epoch);
    store_be<int32_t>(p + 53, -1);  // base sequence
    store_be<int32_t>(p + 57, 1);   // records
    std::byte* r = p + protocol::kBatchHeaderSize;
    r[0] = std::byte{0x20};  // length 16
    r[1] = std::byte{0};     // attributes
    r[2] = std::byte{0};     // timestamp delta
    r[3] = std::byte{0};     // offset delta
    r[4] = std::byte{0x08};  // key length 4
    store_be<int16_t>(r + 5, 0);
    store_be<int16_t>(r + 7, commit ? 1 : 0);
    r[9] = std::byte{0x0c};  // value length 6
    store_be<int16_t>(r + 10, 0);
    store_be<int32_t>(r + 12, coordinator_epoch);
    r[16] = std::byte{0};  // headers
    store_be<uint32_t>(p + 17, protocol::crc32c(std::span<const std::byte>(b).subspan(21)));
    return b;
}

protocol::BatchSummary marker_summary(int64_t producer_id, int16_t producer_epoch,
                                      int64_t timestamp_ms) {
    protocol::BatchSummary s;
    s.size_bytes = kMarkerBatchSize;
    s.record_count = 1;
    s.last_offset_delta = 0;
    s.base_timestamp = timestamp_ms;
    s.max_timestamp = timestamp_ms;
    s.producer_id = producer_id;
    s.producer_epoch = producer_epoch;
    s.base_sequence = -1;
    s.transactional = true;
    s.control = true;
    return s;
}

std::optional<ControlRecord> parse_control_record(std::span<const std::byte> batch) {
    if (batch.size() < protocol::kBatchHeaderSize)
        return std::nullopt;
    // Compressed control batches do not exist in Kafka; refuse rather than misread them.
    if ((static_cast<uint8_t>(batch[22]) & 0x07) != 0)
        return std::nullopt;
    size_t at = protocol::kBatchHeaderSize;
    auto length = read_varint(batch, at);
    if (!length || *length < 0 || at + static_cast<size_t>(*length) > batch.size())
        return std::nullopt;
    ++at;                                                    // attributes
    if (!read_varint(batch, at) || !read_varint(batch, at))  // timestamp and offset deltas
        return std::nullopt;
    auto key_length = read_varint(batch, at);
    if (!key_length || *key_length < 4 || at + static_cast<size_t>(*key_length) > batch.size())
        return std::nullopt;
    if (load_be<int16_t>(batch.data() + at) < 0)
        return std::nullopt;
    ControlRecord record;
    record.type = load_be<int16_t>(batch.data() + at + 2);
    at += static_cast<size_t>(*key_length);
    auto value_length = read_varint(batch, at);
    if (value_length && *value_length >= 6 &&
        at + static_cast<size_t>(*value_length) <= batch.size() &&
        load_be<int16_t>(batch.data() + at) >= 0)
        record.coordinator_epoch = load_be<int32_t>(batch.data() + at + 2);
    return record;
}

}  // namespace skiff::storage
