// The cleaner's key map (Kafka's SkimpyOffsetMap): a fixed block of memory mapping the 128-bit
// hash of a record key to the offset of the last record seen with that key. Open addressing with
// linear probing over slots of {hash, offset}; the slot count is fixed at construction and the
// map never grows: once `capacity()` keys are in it (the slots times the load factor), put() of
// a new key reports that the map is full and the cleaner stops at a segment boundary, leaving the
// rest for a later pass.
//
// Two keys with the same 128-bit hash are taken as one key (as Kafka does with its MD5 hashes):
// with 2^-64 odds per pair for a map of a few million keys this never happens in practice.
//
// Not thread-safe: one cleaning pass owns its map.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace skiff::storage::cleaner {

struct KeyHash {
    uint64_t high = 0;
    uint64_t low = 0;
    bool operator==(const KeyHash&) const = default;
};

// A 128-bit hash of `key` (two independently seeded 64-bit lanes over 8-byte words, each
// finished with a multiply-xorshift avalanche). Not cryptographic; stable across runs.
KeyHash hash_key(std::span<const std::byte> key);

class OffsetMap {
  public:
    // Bytes per slot: the hash and the offset.
    static constexpr size_t kSlotBytes = 24;

    // `memory_bytes` of slots (at least 1 slot), filled to at most `load_factor` of them.
    OffsetMap(int64_t memory_bytes, double load_factor);

    // Records `offset` as the latest for `hash` (replacing an older one). False when the key is
    // new and the map already holds capacity() keys: nothing is changed then.
    bool put(const KeyHash& hash, int64_t offset);
    std::optional<int64_t> get(const KeyHash& hash) const;
    void clear();

    size_t size() const { return size_; }
    size_t capacity() const { return capacity_; }
    size_t slots() const { return slots_.size(); }
    size_t memory_bytes() const { return slots_.size() * kSlotBytes; }
    // The greatest offset put since the last clear, -1 if none.
    int64_t latest_offset() const { return latest_offset_; }

  private:
    struct Slot {
        uint64_t high = 0;
        uint64_t low = 0;
        int64_t offset = -1;  // -1: empty (offsets are never negative)
    };
    size_t find(const KeyHash& hash) const;  // the slot holding hash, or the empty one to use

    std::vector<Slot> slots_;
    size_t capacity_ = 0;
    size_t size_ = 0;
    int64_t latest_offset_ = -1;
};

}  // namespace skiff::storage::cleaner
