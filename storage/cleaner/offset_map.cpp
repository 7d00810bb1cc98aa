#include "storage/cleaner/offset_map.h"

#include <algorithm>
#include <cstring>

namespace skiff::storage::cleaner {

namespace {

constexpr uint64_t kPrime1 = 0x9E3779B185EBCA87ULL;
constexpr uint64_t kPrime2 = 0xC2B2AE3D27D4EB4FULL;
constexpr uint64_t kPrime3 = 0x165667B19E3779F9ULL;

uint64_t rotl(uint64_t x, int r) {
    return (x << r) | (x >> (64 - r));
}

// Final avalanche: every input bit affects every output bit.
uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xFF51AFD7ED558CCDULL;
    x ^= x >> 33;
    x *= 0xC4CEB9FE1A85EC53ULL;
    x ^= x >> 33;
    return x;
}

uint64_t load_word(const std::byte* p, size_t n) {
    uint64_t w = 0;
    std::memcpy(&w, p, n);
    return w;
}

}  // namespace

KeyHash hash_key(std::span<const std::byte> key) {
    const size_t n = key.size();
    uint64_t a = kPrime3 ^ (n * kPrime1);
    uint64_t b = kPrime2 ^ (n * kPrime3) ^ 0x5851F42D4C957F2DULL;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const uint64_t w = load_word(key.data() + i, 8);
        a = rotl(a ^ (w * kPrime1), 31) * kPrime2;
        b = rotl(b ^ (w * kPrime2), 27) * kPrime1 + a;
    }
    if (i < n) {
        const uint64_t w = load_word(key.data() + i, n - i) ^ (static_cast<uint64_t>(n - i) << 56);
        a = rotl(a ^ (w * kPrime1), 31) * kPrime2;
        b = rotl(b ^ (w * kPrime2), 27) * kPrime1 + a;
    }
    a = mix(a + rotl(b, 17));
    b = mix(b ^ a ^ kPrime3);
    return KeyHash{a, b};
}

OffsetMap::OffsetMap(int64_t memory_bytes, double load_factor) {
    const size_t slots =
        std::max<size_t>(1, static_cast<size_t>(std::max<int64_t>(memory_bytes, 0)) / kSlotBytes);
    slots_.assign(slots, Slot{});
    const double factor = std::clamp(load_factor, 0.0, 1.0);
    // At least one key, and always one empty slot left so a probe for a missing key ends.
    capacity_ = std::clamp<size_t>(static_cast<size_t>(static_cast<double>(slots) * factor), 1,
                                   slots > 1 ? slots - 1 : 1);
}

size_t OffsetMap::find(const KeyHash& hash) const {
    const size_t n = slots_.size();
    size_t i = static_cast<size_t>(hash.low % n);
    for (;;) {
        const Slot& s = slots_[i];
        if (s.offset < 0 || (s.high == hash.high && s.low == hash.low))
            return i;
        i = i + 1 == n ? 0 : i + 1;
    }
}

bool OffsetMap::put(const KeyHash& hash, int64_t offset) {
    if (slots_.size() == 1 && size_ == 1 &&
        !(slots_[0].high == hash.high && slots_[0].low == hash.low))
        return false;  // a one-slot map is full with one key (find would not terminate)
    Slot& s = slots_[find(hash)];
    if (s.offset < 0) {
        if (size_ >= capacity_)
            return false;
        s.high = hash.high;
        s.low = hash.low;
        ++size_;
    }
    s.offset = offset;
    latest_offset_ = std::max(latest_offset_, offset);
    return true;
}

std::optional<int64_t> OffsetMap::get(const KeyHash& hash) const {
    if (size_ == 0)
        return std::nullopt;
    if (slots_.size() == 1)
        return slots_[0].high == hash.high && slots_[0].low == hash.low
                   ? std::optional<int64_t>(slots_[0].offset)
                   : std::nullopt;
    const Slot& s = slots_[find(hash)];
    if (s.offset < 0)
        return std::nullopt;
    return s.offset;
}

void OffsetMap::clear() {
    std::fill(slots_.begin(), slots_.end(), Slot{});
    size_ = 0;
    latest_offset_ = -1;
}

}  // namespace skiff::storage::cleaner
