#include "storage/batch_records.h"

#include "protocol/record_iterator.h"

namespace skiff::storage {

std::optional<TimestampAndOffset> first_record_at_or_after(std::span<const std::byte> batch,
                                                           const protocol::BatchHeader& header,
                                                           int64_t target) {
    // The iterator checks the batch (framing, CRC) and every record's lengths: bytes read back
    // from disk are not trusted to be well formed.
    auto records = protocol::RecordIterator::open(batch);
    if (!records)
        return std::nullopt;
    for (;;) {
        auto record = records->next();
        if (!record || !*record)
            return std::nullopt;
        const int64_t ts = protocol::record_timestamp(header, **record);
        if (ts >= target)
            return TimestampAndOffset{ts, protocol::record_offset(header, **record)};
    }
}

}  // namespace skiff::storage
