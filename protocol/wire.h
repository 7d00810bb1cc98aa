// Byte-level encodings shared by the message codec and the record iterator:
//   - big-endian fixed-width integers;
//   - unsigned varints (LEB128: 7 bits per byte, low group first, high bit = "more follows");
//   - signed varints/varlongs, zig-zag mapped first (0,-1,1,-2.. -> 0,1,2,3..) so small negative
//     numbers stay short;
//   - int64 sums and differences that wrap as Java's longs do (timestamps a client chose).
// A 32-bit varint takes at most 5 bytes, a 64-bit one at most 10; longer encodings and encodings
// whose value does not fit are rejected rather than silently truncated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

namespace skiff::protocol::wire {

template <class T>
T load_be(const std::byte* p) {
    std::make_unsigned_t<T> v = 0;
    for (size_t i = 0; i < sizeof(T); ++i)
        v = static_cast<decltype(v)>((v << 8) | static_cast<uint8_t>(p[i]));
    return static_cast<T>(v);
}

template <class T>
void store_be(std::byte* p, T value) {
    auto v = static_cast<std::make_unsigned_t<T>>(value);
    for (size_t i = sizeof(T); i-- > 0;) {
        p[i] = static_cast<std::byte>(v & 0xff);
        v = static_cast<decltype(v)>(v >> 8);
    }
}

constexpr uint32_t zigzag32(int32_t v) {
    return (static_cast<uint32_t>(v) << 1) ^ static_cast<uint32_t>(v >> 31);
}
constexpr uint64_t zigzag64(int64_t v) {
    return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
constexpr int32_t unzigzag32(uint32_t v) {
    return static_cast<int32_t>((v >> 1) ^ (~(v & 1u) + 1u));
}
constexpr int64_t unzigzag64(uint64_t v) {
    return static_cast<int64_t>((v >> 1) ^ (~(v & 1u) + 1u));
}

inline constexpr size_t kMaxVarint32Bytes = 5;
inline constexpr size_t kMaxVarint64Bytes = 10;

// Writes the unsigned varint form of v to out (room for kMaxVarint64Bytes); returns its length.
inline size_t put_uvarint(std::byte* out, uint64_t v) {
    size_t n = 0;
    while (v >= 0x80) {
        out[n++] = static_cast<std::byte>((v & 0x7f) | 0x80);
        v >>= 7;
    }
    out[n++] = static_cast<std::byte>(v);
    return n;
}

inline size_t uvarint_size(uint64_t v) {
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        ++n;
    }
    return n;
}

enum class VarintStatus { ok, truncated, too_long };

// Reads an unsigned varint of at most max_bytes from in[pos...]; advances pos on success. Values
// above max_value (UINT32_MAX for 32-bit fields) are too_long.
inline VarintStatus get_uvarint(std::span<const std::byte> in, size_t& pos, uint64_t& out,
                                size_t max_bytes, uint64_t max_value) {
    uint64_t value = 0;
    for (size_t i = 0; i < max_bytes; ++i) {
        if (pos + i >= in.size())
            return VarintStatus::truncated;
        auto b = static_cast<uint8_t>(in[pos + i]);
        uint64_t group = b & 0x7fu;
        unsigned shift = static_cast<unsigned>(7 * i);
        // Bits shifted past 64 would be lost: reject instead of wrapping.
        if (shift > 0 && (group >> (64 - shift)) != 0)
            return VarintStatus::too_long;
        value |= group << shift;
        if ((b & 0x80) == 0) {
            if (value > max_value)
                return VarintStatus::too_long;
            pos += i + 1;
            out = value;
            return VarintStatus::ok;
        }
    }
    return VarintStatus::too_long;
}

// Kafka computes timestamps from a client's base and deltas in Java longs, which wrap; done in
// unsigned arithmetic here so that a hostile batch cannot make it undefined behaviour.
constexpr int64_t wrapping_add(int64_t a, int64_t b) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
constexpr int64_t wrapping_sub(int64_t a, int64_t b) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}

}  // namespace skiff::protocol::wire
