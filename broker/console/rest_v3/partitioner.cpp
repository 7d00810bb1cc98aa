#include "broker/console/rest_v3/partitioner.h"

namespace skiff::broker::console::rest_v3 {

// Unsigned arithmetic throughout: Java's int multiplications wrap, C++'s signed ones may not.
int32_t murmur2(std::string_view bytes) {
    constexpr uint32_t kSeed = 0x9747b28cU;
    constexpr uint32_t kM = 0x5bd1e995U;
    constexpr int kR = 24;
    const auto length = static_cast<uint32_t>(bytes.size());
    const auto byte = [&](size_t i) {
        return static_cast<uint32_t>(static_cast<uint8_t>(bytes[i]));
    };
    uint32_t h = kSeed ^ length;
    const size_t whole = bytes.size() / 4;
    for (size_t i = 0; i < whole; ++i) {
        const size_t at = i * 4;
        uint32_t k = byte(at) | (byte(at + 1) << 8) | (byte(at + 2) << 16) | (byte(at + 3) << 24);
        k *= kM;
        k ^= k >> kR;
        k *= kM;
        h *= kM;
        h ^= k;
    }
    const size_t tail = whole * 4;
    switch (bytes.size() % 4) {
        case 3:
            h ^= byte(tail + 2) << 16;
            [[fallthrough]];
        case 2:
            h ^= byte(tail + 1) << 8;
            [[fallthrough]];
        case 1:
            h ^= byte(tail);
            h *= kM;
            break;
        default:
            break;
    }
    h ^= h >> 13;
    h *= kM;
    h ^= h >> 15;
    return static_cast<int32_t>(h);
}

int32_t partition_for_key(std::string_view key, int32_t partitions) {
    // Kafka's Utils.toPositive: the sign bit cleared (not abs(), which overflows on INT_MIN).
    const auto positive = static_cast<int32_t>(static_cast<uint32_t>(murmur2(key)) & 0x7fffffffU);
    return partitions <= 0 ? 0 : positive % partitions;
}

}  // namespace skiff::broker::console::rest_v3
