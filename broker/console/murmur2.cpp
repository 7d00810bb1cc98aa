#include "broker/console/murmur2.h"

namespace skiff::broker::console {

int32_t murmur2(std::string_view key) {
    constexpr uint32_t kSeed = 0x9747b28cu;
    constexpr uint32_t kM = 0x5bd1e995u;
    constexpr int kR = 24;
    const auto* data = reinterpret_cast<const uint8_t*>(key.data());
    const size_t length = key.size();
    uint32_t h = kSeed ^ static_cast<uint32_t>(length);
    const size_t whole = length / 4;
    for (size_t i = 0; i < whole; ++i) {
        const size_t at = i * 4;
        uint32_t k = static_cast<uint32_t>(data[at]) | (static_cast<uint32_t>(data[at + 1]) << 8) |
                     (static_cast<uint32_t>(data[at + 2]) << 16) |
                     (static_cast<uint32_t>(data[at + 3]) << 24);
        k *= kM;
        k ^= k >> kR;
        k *= kM;
        h *= kM;
        h ^= k;
    }
    const size_t tail = length & ~size_t{3};
    switch (length % 4) {
        case 3:
            h ^= static_cast<uint32_t>(data[tail + 2]) << 16;
            [[fallthrough]];
        case 2:
            h ^= static_cast<uint32_t>(data[tail + 1]) << 8;
            [[fallthrough]];
        case 1:
            h ^= static_cast<uint32_t>(data[tail]);
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
    const auto positive = static_cast<uint32_t>(murmur2(key)) & 0x7fffffffu;
    return static_cast<int32_t>(positive % static_cast<uint32_t>(partitions));
}

}  // namespace skiff::broker::console
