#include "protocol/compression/batch_recompress.h"

#include <cstring>

#include "protocol/crc32c.h"
#include "protocol/record_iterator.h"
#include "protocol/wire.h"

namespace skiff::protocol::compression {
namespace {

Unexpected<RebuildError> rebuild_error(RebuildErrc code, std::string message) {
    return unexpected(RebuildError{code, std::move(message)});
}

RebuildErrc from_codec(CodecErrc e) {
    switch (e) {
        case CodecErrc::corrupt:
            return RebuildErrc::corrupt;
        case CodecErrc::too_large:
            return RebuildErrc::too_large;
        case CodecErrc::failed:
            break;
    }
    return RebuildErrc::failed;
}

// Exactly h.records_count well-formed records fill `records`.
Expected<void, RebuildError> check_records(std::span<const std::byte> records,
                                           const BatchHeader& h) {
    auto it = RecordIterator::over_records(records, h);
    for (int32_t n = 0;; ++n) {
        auto r = it.next();
        if (!r)
            return rebuild_error(RebuildErrc::corrupt,
                                 "decompressed records do not parse: " + r.error().message);
        if (!*r) {
            if (n != h.records_count)  // next() ends only at records_count; kept as a guard
                return rebuild_error(RebuildErrc::corrupt, "record count mismatch");
            return {};
        }
    }
}

}  // namespace

Expected<void, RebuildError> recompress_batch(std::span<const std::byte> batch, Compression target,
                                              size_t max_plain, std::vector<std::byte>& plain,
                                              std::vector<std::byte>& out) {
    const BatchHeader h = read_batch_header(batch);
    const auto whole = batch.first(static_cast<size_t>(h.size_bytes()));
    if (h.compression() == target) {
        out.insert(out.end(), whole.begin(), whole.end());
        return {};
    }
    const auto body = whole.subspan(kBatchHeaderSize);
    if (auto d = decompress(h.compression(), body, plain, max_plain); !d)
        return rebuild_error(from_codec(d.error().code), d.error().message);
    if (auto c = check_records(plain, h); !c)
        return c;

    const size_t start = out.size();
    out.insert(out.end(), whole.begin(), whole.begin() + kBatchHeaderSize);
    if (auto c = compress(target, plain, out); !c) {
        out.resize(start);
        return rebuild_error(from_codec(c.error().code), c.error().message);
    }
    std::byte* head = out.data() + start;
    const size_t size = out.size() - start;
    if (size - kBatchLogOverhead > static_cast<size_t>(INT32_MAX)) {
        out.resize(start);
        return rebuild_error(RebuildErrc::too_large, "rebuilt batch exceeds 2 GiB");
    }
    wire::store_be<int32_t>(head + 8, static_cast<int32_t>(size - kBatchLogOverhead));
    const auto attributes =
        static_cast<int16_t>((h.attributes & ~int16_t{0x07}) | static_cast<int16_t>(target));
    wire::store_be<int16_t>(head + kBatchAttributesOffset, attributes);
    const uint32_t crc = crc32c(
        std::span<const std::byte>(head + kBatchAttributesOffset, size - kBatchAttributesOffset));
    wire::store_be<uint32_t>(head + kBatchCrcOffset, crc);
    return {};
}

Expected<void, RebuildError> recompress_batches(std::span<const std::byte> records,
                                                Compression target, size_t max_plain,
                                                std::vector<std::byte>& plain,
                                                std::vector<std::byte>& out) {
    out.clear();
    size_t pos = 0;
    while (pos < records.size()) {
        const auto rest = records.subspan(pos);
        const BatchHeader h = read_batch_header(rest);
        const size_t size = static_cast<size_t>(h.size_bytes());
        if (h.is_control()) {
            out.insert(out.end(), rest.begin(), rest.begin() + static_cast<ptrdiff_t>(size));
        } else if (auto r = recompress_batch(rest, target, max_plain, plain, out); !r) {
            out.clear();
            return r;
        }
        pos += size;
    }
    return {};
}

}  // namespace skiff::protocol::compression
