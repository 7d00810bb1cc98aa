#include "protocol/legacy/down_convert.h"

#include "protocol/compression/compression.h"
#include "protocol/record_batch.h"
#include "protocol/record_iterator.h"
#include "protocol/wire.h"

namespace skiff::protocol::legacy {
namespace {

size_t message_size(int8_t magic, const std::optional<std::span<const std::byte>>& key,
                    const std::optional<std::span<const std::byte>>& value) {
    return (magic == 0 ? kV0HeaderSize : kV1HeaderSize) + (key ? key->size() : 0) +
           (value ? value->size() : 0);
}

void put_legacy_bytes(std::vector<std::byte>& out,
                      const std::optional<std::span<const std::byte>>& b) {
    std::byte len[4];
    wire::store_be<int32_t>(len, b ? static_cast<int32_t>(b->size()) : -1);
    out.insert(out.end(), len, len + 4);
    if (b)
        out.insert(out.end(), b->begin(), b->end());
}

}  // namespace

void append_message(std::vector<std::byte>& out, int8_t magic, int64_t offset, int8_t attributes,
                    int64_t timestamp, const std::optional<std::span<const std::byte>>& key,
                    const std::optional<std::span<const std::byte>>& value) {
    const size_t size = message_size(magic, key, value);
    const size_t start = out.size();
    out.resize(start + kLogOverhead + 4 + 2 + (magic == 1 ? 8 : 0));
    std::byte* p = out.data() + start;
    wire::store_be<int64_t>(p, offset);
    wire::store_be<int32_t>(p + 8, static_cast<int32_t>(size));
    p[16] = static_cast<std::byte>(magic);
    p[17] = static_cast<std::byte>(attributes);
    if (magic == 1)
        wire::store_be<int64_t>(p + 18, timestamp);
    put_legacy_bytes(out, key);
    put_legacy_bytes(out, value);
    const auto covered = std::span(out).subspan(start + kLogOverhead + 4);
    wire::store_be<uint32_t>(out.data() + start + kLogOverhead, crc32_ieee(covered));
}

Expected<DownConverted, LegacyError> down_convert(std::span<const std::byte> batches,
                                                  int8_t to_magic, int64_t first_offset,
                                                  size_t max_bytes, size_t max_plain,
                                                  std::vector<std::byte>& plain,
                                                  std::vector<std::byte>& out) {
    DownConverted result;
    size_t written = 0;
    size_t pos = 0;
    while (pos < batches.size()) {
        auto h = check_batch_framing(batches.subspan(pos));
        if (!h)
            break;  // an incomplete trailing batch: nothing more to convert
        const auto batch = batches.subspan(pos, h->size_bytes());
        pos += h->size_bytes();
        if (h->is_control() || h->last_offset() < first_offset)
            continue;
        std::span<const std::byte> records = batch.subspan(kBatchHeaderSize);
        if (h->compression() != Compression::none) {
            if (auto r = compression::decompress(h->compression(), records, plain, max_plain); !r)
                return unexpected(LegacyError{"stored batch at offset " +
                                              std::to_string(h->base_offset) +
                                              " does not decompress: " + r.error().message});
            records = plain;
        }
        auto it = RecordIterator::over_records(records, *h);
        int8_t attributes = 0;
        if (to_magic == 1 && h->log_append_time())
            attributes |= 0x08;
        for (;;) {
            auto rec = it.next();
            if (!rec)
                return unexpected(LegacyError{"stored batch at offset " +
                                              std::to_string(h->base_offset) + ": " +
                                              rec.error().message});
            if (!*rec)
                break;
            const Record& r = **rec;
            const int64_t offset = record_offset(*h, r);
            if (offset < first_offset)
                continue;
            const size_t entry = kLogOverhead + message_size(to_magic, r.key, r.value);
            if (result.message_count > 0 && written + entry > max_bytes) {
                result.truncated = true;
                return result;
            }
            const int64_t timestamp =
                h->log_append_time() ? h->max_timestamp : record_timestamp(*h, r);
            append_message(out, to_magic, offset, attributes, timestamp, r.key, r.value);
            written += entry;
            ++result.message_count;
            result.next_offset = offset + 1;
        }
    }
    return result;
}

}  // namespace skiff::protocol::legacy
