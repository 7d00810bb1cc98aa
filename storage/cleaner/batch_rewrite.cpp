#include "storage/cleaner/batch_rewrite.h"
#include "storage/cleaner/cleaner_error.h"

#include <algorithm>
#include <string>

#include "protocol/compression/compression.h"
#include "protocol/crc32c.h"
#include "protocol/wire.h"
#include "storage/big_endian.h"

namespace skiff::storage::cleaner {
namespace {

// Decompressed records of one batch beyond this are refused as corrupt (Kafka's batches are
// bounded by message.max.bytes; this only guards against a decompression bomb on disk).
constexpr size_t kMaxPlainBytes = size_t{1} << 30;

bool read_varint(std::span<const std::byte> in, size_t& pos, int64_t& out) {
    uint64_t raw = 0;
    if (protocol::wire::get_uvarint(in, pos, raw, 10, UINT64_MAX) !=
        protocol::wire::VarintStatus::ok)
        return false;
    out = static_cast<int64_t>(raw >> 1) ^ -static_cast<int64_t>(raw & 1);
    return true;
}

}  // namespace

bool split_records(std::span<const std::byte> records, int32_t count, std::vector<RawRecord>& out) {
    out.clear();
    size_t pos = 0;
    for (int32_t i = 0; i < count; ++i) {
        RawRecord r;
        r.begin = pos;
        int64_t length = 0;
        if (!read_varint(records, pos, length) || length < 0 ||
            static_cast<uint64_t>(length) > records.size() - pos)
            return false;
        r.end = pos + static_cast<size_t>(length);
        auto body = records.subspan(0, r.end);
        pos += 1;  // attributes
        int64_t ts_delta = 0, offset_delta = 0, key_length = 0, value_length = 0;
        if (!read_varint(body, pos, ts_delta) || !read_varint(body, pos, offset_delta) ||
            !read_varint(body, pos, key_length))
            return false;
        r.offset_delta = static_cast<int32_t>(offset_delta);
        if (key_length >= 0) {
            if (static_cast<uint64_t>(key_length) > body.size() - std::min(pos, body.size()))
                return false;
            r.has_key = true;
            r.key = hash_key(body.subspan(pos, static_cast<size_t>(key_length)));
            pos += static_cast<size_t>(key_length);
        }
        if (!read_varint(body, pos, value_length))
            return false;
        r.null_value = value_length < 0;
        out.push_back(r);
        pos = r.end;
    }
    return pos == records.size();
}

Expected<std::span<const std::byte>, StorageError> batch_records(std::span<const std::byte> batch,
                                                                 const protocol::BatchHeader& h,
                                                                 std::vector<std::byte>& plain) {
    auto body = batch.subspan(protocol::kBatchHeaderSize);
    if (h.compression() == protocol::Compression::none)
        return body;
    auto d = protocol::compression::decompress(h.compression(), body, plain, kMaxPlainBytes);
    if (!d)
        return unexpected(
            error(StorageErrc::corrupt, "batch at offset " + std::to_string(h.base_offset) +
                                            " does not decompress: " + d.error().message));
    return std::span<const std::byte>(plain);
}

Expected<void, StorageError> rebuild_batch(std::span<const std::byte> batch,
                                           const protocol::BatchHeader& h,
                                           std::span<const std::byte> records,
                                           const std::vector<const RawRecord*>& kept,
                                           std::vector<std::byte>& scratch,
                                           std::vector<std::byte>& out) {
    scratch.clear();
    for (const RawRecord* r : kept)
        scratch.insert(scratch.end(), records.begin() + static_cast<ptrdiff_t>(r->begin),
                       records.begin() + static_cast<ptrdiff_t>(r->end));
    out.clear();
    out.insert(out.end(), batch.begin(),
               batch.begin() + static_cast<ptrdiff_t>(protocol::kBatchHeaderSize));
    if (h.compression() == protocol::Compression::none) {
        out.insert(out.end(), scratch.begin(), scratch.end());
    } else {
        auto c = protocol::compression::compress(h.compression(), scratch, out);
        if (!c)
            return unexpected(error(StorageErrc::io_error, "compress batch at offset " +
                                                               std::to_string(h.base_offset) +
                                                               ": " + c.error().message));
    }
    // Length, RecordsCount, then the CRC over attributes..end.
    store_be<int32_t>(out.data() + 8,
                      static_cast<int32_t>(out.size() - protocol::kBatchLogOverhead));
    store_be<int32_t>(out.data() + 57, static_cast<int32_t>(kept.size()));
    const uint32_t crc =
        protocol::crc32c(std::span<const std::byte>(out).subspan(protocol::kBatchAttributesOffset));
    store_be<uint32_t>(out.data() + protocol::kBatchCrcOffset, crc);
    return {};
}

void empty_batch(std::span<const std::byte> batch, const protocol::BatchHeader& h,
                 std::vector<std::byte>& out) {
    out.assign(batch.begin(), batch.begin() + static_cast<ptrdiff_t>(protocol::kBatchHeaderSize));
    store_be<int32_t>(out.data() + 8, static_cast<int32_t>(protocol::kBatchHeaderSize -
                                                           protocol::kBatchLogOverhead));
    // No records, so no codec: attributes keep timestamp type, transactional and control bits.
    store_be<int16_t>(out.data() + protocol::kBatchAttributesOffset,
                      static_cast<int16_t>(h.attributes & ~int16_t{0x07}));
    store_be<int64_t>(out.data() + 27, h.max_timestamp);  // FirstTimestamp
    store_be<int32_t>(out.data() + 57, 0);
    const uint32_t crc =
        protocol::crc32c(std::span<const std::byte>(out).subspan(protocol::kBatchAttributesOffset));
    store_be<uint32_t>(out.data() + protocol::kBatchCrcOffset, crc);
}

}  // namespace skiff::storage::cleaner
