#include "storage/batch_records.h"

#include <vector>

#include "protocol/compression/compression.h"
#include "protocol/record_iterator.h"

namespace skiff::storage {

namespace batch_records_impl {

// A compressed batch's records are at most this many bytes once decompressed (the cleaner's bound).
constexpr size_t kMaxPlainBytes = size_t{1} << 30;

std::optional<TimestampAndOffset> first_at_or_after(protocol::RecordIterator records,
                                                    const protocol::BatchHeader& header,
                                                    int64_t target) {
    for (;;) {
        auto record = records.next();
        if (!record || !*record)
            return std::nullopt;
        const int64_t ts = protocol::record_timestamp(header, **record);
        if (ts >= target)
            return TimestampAndOffset{ts, protocol::record_offset(header, **record)};
    }
}

}  // namespace batch_records_impl

std::optional<TimestampAndOffset> first_record_at_or_after(std::span<const std::byte> batch,
                                                           const protocol::BatchHeader& header,
                                                           int64_t target) {
    using batch_records_impl::first_at_or_after;
    if (header.compression() == protocol::Compression::none) {
        // The iterator checks the batch (framing, CRC) and every record's lengths: bytes read
        // back from disk are not trusted to be well formed.
        auto records = protocol::RecordIterator::open(batch);
        if (!records)
            return std::nullopt;
        return first_at_or_after(*records, header, target);
    }
    // Compressed: opened as Kafka's FileRecords.searchForTimestamp opens it, so the answer is
    // the record, not the batch's first offset. The CRC covers the compressed bytes.
    if (!protocol::check_batch(batch))
        return std::nullopt;
    std::vector<std::byte> plain;
    const auto body =
        batch.subspan(protocol::kBatchHeaderSize,
                      static_cast<size_t>(header.size_bytes()) - protocol::kBatchHeaderSize);
    if (!protocol::compression::decompress(header.compression(), body, plain,
                                           batch_records_impl::kMaxPlainBytes))
        return std::nullopt;
    return first_at_or_after(protocol::RecordIterator::over_records(plain, header), header, target);
}

}  // namespace skiff::storage
