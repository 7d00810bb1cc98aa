#include "storage/cleaner/offset_map.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace skiff::storage::cleaner {
namespace {

KeyHash h(const std::string& s) {
    return hash_key(std::as_bytes(std::span(s.data(), s.size())));
}

TEST(OffsetMap, PutGetAndReplace) {
    OffsetMap map(24 * 100, 0.9);
    EXPECT_EQ(map.slots(), 100u);
    EXPECT_EQ(map.capacity(), 90u);
    EXPECT_FALSE(map.get(h("a")));
    EXPECT_TRUE(map.put(h("a"), 5));
    EXPECT_TRUE(map.put(h("b"), 7));
    EXPECT_TRUE(map.put(h("a"), 9));
    EXPECT_EQ(map.get(h("a")), 9);
    EXPECT_EQ(map.get(h("b")), 7);
    EXPECT_FALSE(map.get(h("c")));
    EXPECT_EQ(map.size(), 2u);
    EXPECT_EQ(map.latest_offset(), 9);
    map.clear();
    EXPECT_EQ(map.size(), 0u);
    EXPECT_FALSE(map.get(h("a")));
}

TEST(OffsetMap, ReportsFullAndNeverGrows) {
    OffsetMap map(24 * 64, 0.5);
    const size_t memory = map.memory_bytes();
    ASSERT_EQ(map.capacity(), 32u);
    for (int i = 0; i < 32; ++i)
        ASSERT_TRUE(map.put(h("key-" + std::to_string(i)), i));
    EXPECT_FALSE(map.put(h("one too many"), 100));
    EXPECT_FALSE(map.get(h("one too many")));
    // A key already in it can still be updated when full.
    EXPECT_TRUE(map.put(h("key-3"), 200));
    EXPECT_EQ(map.get(h("key-3")), 200);
    EXPECT_EQ(map.size(), 32u);
    EXPECT_EQ(map.memory_bytes(), memory);
    for (int i = 0; i < 32; ++i)
        EXPECT_EQ(map.get(h("key-" + std::to_string(i))), i == 3 ? 200 : i);
}

TEST(OffsetMap, TinyMaps) {
    OffsetMap one(1, 0.9);  // below one slot: still one slot, one key
    EXPECT_EQ(one.slots(), 1u);
    EXPECT_TRUE(one.put(h("a"), 1));
    EXPECT_FALSE(one.put(h("b"), 2));
    EXPECT_TRUE(one.put(h("a"), 3));
    EXPECT_EQ(one.get(h("a")), 3);
    EXPECT_FALSE(one.get(h("b")));
}

TEST(OffsetMap, HashSpreadsKeys) {
    // 200,000 keys of every length 0..40 and similar prefixes: no two share a hash, and the
    // halves are independent enough that no low half repeats either.
    std::set<std::pair<uint64_t, uint64_t>> full;
    std::set<uint64_t> low;
    for (int i = 0; i < 200000; ++i) {
        std::string key =
            "user-" + std::to_string(i) + std::string(static_cast<size_t>(i % 41), 'x');
        auto k = h(key);
        full.insert({k.high, k.low});
        low.insert(k.low);
    }
    EXPECT_EQ(full.size(), 200000u);
    EXPECT_EQ(low.size(), 200000u);
    EXPECT_NE(h(""), h(std::string(1, '\0')));
    EXPECT_NE(h("ab"), h("ba"));
    EXPECT_EQ(h("same"), h("same"));
}

}  // namespace
}  // namespace skiff::storage::cleaner
