#include "protocol/legacy/message_set.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "protocol/compression/compression.h"
#include "protocol/wire.h"

namespace skiff::protocol::legacy {
namespace {

Unexpected<LegacyError> error(std::string message) {
    return unexpected(LegacyError{std::move(message)});
}

// XXH32 (seed 0), only for the LZ4 frame header checksum: a few bytes per wrapper.
uint32_t rotl(uint32_t x, int r) {
    return (x << r) | (x >> (32 - r));
}
uint32_t read_le32(const uint8_t* p) {
    return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}
uint32_t xxh32(const uint8_t* p, size_t len) {
    constexpr uint32_t P1 = 2654435761U, P2 = 2246822519U, P3 = 3266489917U, P4 = 668265263U,
                       P5 = 374761393U;
    const uint8_t* end = p + len;
    uint32_t h = 0;
    if (len >= 16) {
        uint32_t v[4] = {P1 + P2, P2, 0, 0 - P1};
        while (p + 16 <= end) {
            for (auto& acc : v) {
                acc = rotl(acc + read_le32(p) * P2, 13) * P1;
                p += 4;
            }
        }
        h = rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18);
    } else {
        h = P5;
    }
    h += static_cast<uint32_t>(len);
    for (; p + 4 <= end; p += 4)
        h = rotl(h + read_le32(p) * P3, 17) * P4;
    for (; p < end; ++p)
        h = rotl(h + *p * P5, 11) * P1;
    h ^= h >> 15;
    h *= P2;
    h ^= h >> 13;
    h *= P3;
    h ^= h >> 16;
    return h;
}

constexpr uint8_t kLz4FrameMagic[4] = {0x04, 0x22, 0x4d, 0x18};

// Bytes of the LZ4 frame descriptor (FLG through the optional dictionary id), or 0.
size_t lz4_descriptor_size(std::span<const std::byte> frame) {
    if (frame.size() < 7 || std::memcmp(frame.data(), kLz4FrameMagic, 4) != 0)
        return 0;
    const auto flg = static_cast<uint8_t>(frame[4]);
    const size_t size = 2 + ((flg & 0x08) ? 8 : 0) + ((flg & 0x01) ? 4 : 0);
    return frame.size() > 4 + size ? size : 0;
}

}  // namespace

bool is_message_set(std::span<const std::byte> bytes) {
    return bytes.size() > kBatchMagicOffset &&
           (bytes[kBatchMagicOffset] == std::byte{0} || bytes[kBatchMagicOffset] == std::byte{1});
}

uint32_t crc32_ieee(std::span<const std::byte> data) {
    uLong crc = ::crc32(0L, Z_NULL, 0);
    // zlib takes uInt lengths: feed large inputs in pieces.
    while (!data.empty()) {
        const size_t n = std::min<size_t>(data.size(), 1u << 30);
        crc = ::crc32(crc, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(n));
        data = data.subspan(n);
    }
    return static_cast<uint32_t>(crc);
}

std::optional<uint8_t> lz4_header_checksum(std::span<const std::byte> frame, bool kafka3160) {
    const size_t descriptor = lz4_descriptor_size(frame);
    if (descriptor == 0)
        return std::nullopt;
    const auto* p = reinterpret_cast<const uint8_t*>(frame.data());
    const uint32_t h = kafka3160 ? xxh32(p, 4 + descriptor) : xxh32(p + 4, descriptor);
    return static_cast<uint8_t>((h >> 8) & 0xff);
}

Expected<RawMessage, LegacyError> parse_entry(std::span<const std::byte> entry, size_t& consumed) {
    if (entry.size() < kLogOverhead)
        return error("truncated message set: " + std::to_string(entry.size()) +
                     " bytes left, less than an entry header");
    const auto size = wire::load_be<int32_t>(entry.data() + 8);
    if (size < static_cast<int32_t>(kV0HeaderSize))
        return error("message size " + std::to_string(size) + " is smaller than a message header");
    if (static_cast<size_t>(size) > entry.size() - kLogOverhead)
        return error("truncated message: size " + std::to_string(size) + ", " +
                     std::to_string(entry.size() - kLogOverhead) + " bytes left");
    const auto msg = entry.subspan(kLogOverhead, static_cast<size_t>(size));
    RawMessage m;
    m.magic = static_cast<int8_t>(msg[4]);
    if (m.magic != 0 && m.magic != 1)
        return error("message magic " + std::to_string(m.magic) + " in a v0/v1 message set");
    if (m.magic == 1 && msg.size() < kV1HeaderSize)
        return error("message size " + std::to_string(size) + " is smaller than a v1 header");
    const auto stored_crc = wire::load_be<uint32_t>(msg.data());
    if (const uint32_t actual = crc32_ieee(msg.subspan(4)); actual != stored_crc)
        return error("message CRC mismatch: stored " + std::to_string(stored_crc) + ", computed " +
                     std::to_string(actual));
    m.attributes = static_cast<int8_t>(msg[5]);
    if ((m.attributes & 0x07) > 3)
        return error("message codec " + std::to_string(m.attributes & 0x07) +
                     " is not valid for message format v0/v1");
    size_t pos = 6;
    if (m.magic == 1) {
        m.timestamp = wire::load_be<int64_t>(msg.data() + pos);
        pos += 8;
    }
    auto read_bytes = [&](std::optional<std::span<const std::byte>>& out) -> bool {
        if (msg.size() - pos < 4)
            return false;
        const auto n = wire::load_be<int32_t>(msg.data() + pos);
        pos += 4;
        if (n == -1)
            return true;
        if (n < 0 || static_cast<size_t>(n) > msg.size() - pos)
            return false;
        out = msg.subspan(pos, static_cast<size_t>(n));
        pos += static_cast<size_t>(n);
        return true;
    };
    if (!read_bytes(m.key) || !read_bytes(m.value) || pos != msg.size())
        return error("message key/value lengths do not match its size " + std::to_string(size));
    consumed = kLogOverhead + static_cast<size_t>(size);
    return m;
}

Expected<std::optional<LegacyMessage>, LegacyError> MessageSetReader::next() {
    for (;;) {
        if (in_wrapper_) {
            if (inner_pos_ < plain_.size()) {
                size_t consumed = 0;
                auto raw = parse_entry(std::span(plain_).subspan(inner_pos_), consumed);
                if (!raw)
                    return error("in a compressed message: " + raw.error().message);
                inner_pos_ += consumed;
                if ((raw->attributes & 0x07) != 0)
                    return error("compressed message inside a compressed message");
                if (raw->magic != wrapper_magic_)
                    return error("inner message of magic " + std::to_string(raw->magic) +
                                 " in a wrapper of magic " + std::to_string(wrapper_magic_));
                LegacyMessage m{raw->magic, raw->timestamp, raw->key, raw->value, wrapper_codec_};
                if (wrapper_magic_ == 1 && wrapper_log_append_time_)
                    m.timestamp = wrapper_timestamp_;
                return std::optional<LegacyMessage>(m);
            }
            in_wrapper_ = false;
        }
        if (pos_ == set_.size())
            return std::optional<LegacyMessage>();
        size_t consumed = 0;
        auto raw = parse_entry(set_.subspan(pos_), consumed);
        if (!raw)
            return error(raw.error().message);
        pos_ += consumed;
        const auto codec = static_cast<Compression>(raw->attributes & 0x07);
        if (codec == Compression::none)
            return std::optional<LegacyMessage>(
                LegacyMessage{raw->magic, raw->timestamp, raw->key, raw->value, codec});
        if (!raw->value)
            return error("compressed message with a null value");
        std::span<const std::byte> compressed = *raw->value;
        std::vector<std::byte> patched;
        if (codec == Compression::lz4 && raw->magic == 0) {
            // KAFKA-3160: put the correct header checksum in place of what the old client wrote.
            if (auto hc = lz4_header_checksum(compressed, false)) {
                patched.assign(compressed.begin(), compressed.end());
                patched[4 + lz4_descriptor_size(compressed)] = static_cast<std::byte>(*hc);
                compressed = patched;
            }
        }
        if (auto r = compression::decompress(codec, compressed, plain_, max_plain_); !r)
            return error("compressed message (" + std::string(compression_name(codec)) +
                         "): " + r.error().message);
        if (plain_.empty())
            return error("compressed message holding no messages");
        in_wrapper_ = true;
        inner_pos_ = 0;
        wrapper_magic_ = raw->magic;
        wrapper_codec_ = codec;
        wrapper_log_append_time_ = (raw->attributes & 0x08) != 0;
        wrapper_timestamp_ = raw->timestamp;
    }
}

}  // namespace skiff::protocol::legacy
