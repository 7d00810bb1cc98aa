#include "protocol/record_batch.h"

#include <cstring>
#include <limits>

#include "protocol/crc32c.h"
#include "protocol/wire.h"

namespace skiff::protocol {
namespace {

using wire::load_be;
using wire::store_be;

BatchError error(BatchErrc code, std::string message) {
    return BatchError{code, 0, std::move(message)};
}

}  // namespace

const char* compression_name(Compression c) {
    switch (c) {
        case Compression::none:
            return "none";
        case Compression::gzip:
            return "gzip";
        case Compression::snappy:
            return "snappy";
        case Compression::lz4:
            return "lz4";
        case Compression::zstd:
            return "zstd";
    }
    return "unknown";
}

BatchHeader read_batch_header(std::span<const std::byte> b) {
    const std::byte* p = b.data();
    BatchHeader h;
    h.base_offset = load_be<int64_t>(p + 0);
    h.length = load_be<int32_t>(p + 8);
    h.partition_leader_epoch = load_be<int32_t>(p + 12);
    h.magic = static_cast<int8_t>(p[16]);
    h.crc = load_be<uint32_t>(p + 17);
    h.attributes = load_be<int16_t>(p + 21);
    h.last_offset_delta = load_be<int32_t>(p + 23);
    h.base_timestamp = load_be<int64_t>(p + 27);
    h.max_timestamp = load_be<int64_t>(p + 35);
    h.producer_id = load_be<int64_t>(p + 43);
    h.producer_epoch = load_be<int16_t>(p + 51);
    h.base_sequence = load_be<int32_t>(p + 53);
    h.records_count = load_be<int32_t>(p + 57);
    return h;
}

BatchSummary summarize(const BatchHeader& h) {
    BatchSummary s;
    s.size_bytes = static_cast<uint32_t>(h.size_bytes());
    s.record_count = h.records_count;
    s.last_offset_delta = h.last_offset_delta;
    s.base_timestamp = h.base_timestamp;
    s.max_timestamp = h.max_timestamp;
    s.producer_id = h.producer_id;
    s.producer_epoch = h.producer_epoch;
    s.base_sequence = h.base_sequence;
    s.compression = h.compression();
    s.transactional = h.is_transactional();
    s.control = h.is_control();
    return s;
}

Expected<BatchHeader, BatchError> check_batch_framing(std::span<const std::byte> bytes) {
    // Magic sits at byte 16 in every message format, so legacy message sets can be named
    // before anything else is assumed about their layout.
    if (bytes.size() > kBatchMagicOffset) {
        auto magic = static_cast<int8_t>(bytes[kBatchMagicOffset]);
        if (magic == 0 || magic == 1)
            return unexpected(
                error(BatchErrc::legacy_magic,
                      "message format v" + std::to_string(magic) +
                          " (pre-0.11 message set) is not supported; use record batch v2"));
        if (magic != kCurrentMagic)
            return unexpected(error(BatchErrc::unknown_magic,
                                    "unknown record batch magic " + std::to_string(magic)));
    }
    if (bytes.size() < kBatchHeaderSize)
        return unexpected(error(
            BatchErrc::truncated,
            "record batch header truncated: " + std::to_string(bytes.size()) + " of 61 bytes"));
    BatchHeader h = read_batch_header(bytes);
    if (h.length < static_cast<int32_t>(kBatchHeaderSize - kBatchLogOverhead))
        return unexpected(
            error(BatchErrc::invalid_length,
                  "record batch length " + std::to_string(h.length) + " is below the header size"));
    if (h.size_bytes() > bytes.size())
        return unexpected(
            error(BatchErrc::truncated, "record batch of " + std::to_string(h.size_bytes()) +
                                            " bytes but only " + std::to_string(bytes.size()) +
                                            " present"));
    if (static_cast<uint8_t>(h.compression()) > 4)
        return unexpected(error(BatchErrc::invalid_codec, "unknown compression codec " +
                                                              std::to_string(h.attributes & 0x07)));
    // LastOffsetDelta is RecordsCount - 1 for batches as producers build them. Compacted batches
    // may have fewer records than the delta spans, never more, and may have none: the cleaner
    // keeps an idempotent producer's last batch as an empty one (its sequence and epoch).
    // validate_batches, the check of batches clients send, refuses empty batches.
    if (h.records_count < 0 || h.last_offset_delta < 0 || h.records_count - 1 > h.last_offset_delta)
        return unexpected(error(BatchErrc::invalid_count,
                                "record batch count " + std::to_string(h.records_count) +
                                    " inconsistent with last offset delta " +
                                    std::to_string(h.last_offset_delta)));
    // Every reader computes the next offset as last_offset() + 1; a batch whose offsets run past
    // int64 would make that overflow. Kafka's offsets never get there, so such a batch is corrupt.
    if (h.base_offset > std::numeric_limits<int64_t>::max() - 1 - h.last_offset_delta)
        return unexpected(error(BatchErrc::invalid_offset,
                                "record batch base offset " + std::to_string(h.base_offset) +
                                    " with last offset delta " +
                                    std::to_string(h.last_offset_delta) + " runs past 2^63-1"));
    return h;
}

Expected<BatchHeader, BatchError> check_batch(std::span<const std::byte> bytes) {
    auto h = check_batch_framing(bytes);
    if (!h)
        return h;
    auto covered = bytes.subspan(kBatchAttributesOffset, h->size_bytes() - kBatchAttributesOffset);
    uint32_t actual = crc32c(covered);
    if (actual != h->crc)
        return unexpected(error(BatchErrc::crc_mismatch,
                                "record batch CRC-32C mismatch: stored " + std::to_string(h->crc) +
                                    ", computed " + std::to_string(actual)));
    return h;
}

Expected<void, BatchError> validate_batches(std::span<const std::byte> records,
                                            std::vector<BatchSummary>& out) {
    out.clear();
    size_t pos = 0;
    if (records.empty())
        return unexpected(error(BatchErrc::empty, "no record batch in records"));
    while (pos < records.size()) {
        auto h = check_batch(records.subspan(pos));
        if (!h) {
            BatchError e = std::move(h.error());
            e.position = pos;
            return unexpected(std::move(e));
        }
        if (h->records_count == 0)
            return unexpected(BatchError{BatchErrc::invalid_count, pos,
                                         "record batch holds no records (only the log cleaner "
                                         "writes empty batches)"});
        out.push_back(summarize(*h));
        pos += h->size_bytes();
    }
    return {};
}

Expected<std::vector<BatchSummary>, BatchError> validate_batches(
    std::span<const std::byte> records) {
    std::vector<BatchSummary> out;
    if (auto ok = validate_batches(records, out); !ok)
        return unexpected(std::move(ok.error()));
    return out;
}

void set_base_offset(std::span<std::byte> batch, int64_t base_offset) {
    store_be<int64_t>(batch.data(), base_offset);
}

void set_partition_leader_epoch(std::span<std::byte> batch, int32_t epoch) {
    store_be<int32_t>(batch.data() + 12, epoch);
}

}  // namespace skiff::protocol
