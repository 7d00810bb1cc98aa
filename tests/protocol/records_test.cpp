// Record batch validation and the record iterator, including corrupt input (CRC-32C itself is
// tested in crc32c_test.cpp).
#include <gtest/gtest.h>

#include "protocol/crc32c.h"
#include "protocol/record_batch.h"
#include "protocol/record_builder.h"
#include "protocol/record_iterator.h"
#include "protocol/wire.h"
#include "test_util.h"

namespace skiff::protocol {
namespace {

std::vector<std::byte> sample_batch() {
    return build_record_batch({100, 1700000000000, 7, 1, 0, 0},
                              {{"k1", "v1", {{"h", "x"}, {"n", std::nullopt}}, 0},
                               {std::nullopt, std::nullopt, {}, 5},
                               {"k3", std::string(300, 'z'), {}, 9}});
}

TEST(RecordBatch, ValidBatchesBackToBack) {
    auto a = sample_batch();
    auto b = build_record_batch({103, 0, -1, -1, -1, 0}, {{"x", "y", {}, 0}});
    std::vector<std::byte> both = a;
    both.insert(both.end(), b.begin(), b.end());
    auto r = validate_batches(both);
    ASSERT_TRUE(r) << r.error().message;
    ASSERT_EQ(r->size(), 2u);
    EXPECT_EQ((*r)[0].record_count, 3);
    EXPECT_EQ((*r)[0].producer_id, 7);
    EXPECT_EQ((*r)[1].size_bytes, b.size());
}

TEST(RecordIterator, TimestampsWrapAsJavaLongsDo) {
    // A client may send any int64 base timestamp and delta; reading them back must not be
    // undefined behaviour (UBSan found this through the fuzzer).
    auto batch = build_record_batch({0, INT64_MAX, -1, -1, -1, 0}, {{"k", "v", {}, 1}});
    auto it = RecordIterator::open(batch);
    ASSERT_TRUE(it);
    auto r = it->next();
    ASSERT_TRUE(r && *r);
    EXPECT_EQ(record_timestamp(it->header(), **r), INT64_MIN);
    EXPECT_EQ(record_offset(it->header(), **r), 0);
}

TEST(RecordBatch, CorruptionsGiveTypedErrors) {
    auto good = sample_batch();
    {
        auto bad = good;
        bad.back() ^= std::byte{1};
        auto r = validate_batches(bad);
        ASSERT_FALSE(r);
        EXPECT_EQ(r.error().code, BatchErrc::crc_mismatch);
    }
    {
        auto bad = good;
        bad[kBatchMagicOffset] = std::byte{1};
        auto r = validate_batches(bad);
        ASSERT_FALSE(r);
        EXPECT_EQ(r.error().code, BatchErrc::legacy_magic);
        EXPECT_NE(r.error().message.find("v1"), std::string::npos);
        bad[kBatchMagicOffset] = std::byte{0};
        EXPECT_EQ(validate_batches(bad).error().code, BatchErrc::legacy_magic);
        bad[kBatchMagicOffset] = std::byte{7};
        EXPECT_EQ(validate_batches(bad).error().code, BatchErrc::unknown_magic);
    }
    {
        auto bad = good;
        wire::store_be<int32_t>(bad.data() + 8, 0x7fffffff);  // Length beyond the bytes present
        EXPECT_EQ(validate_batches(bad).error().code, BatchErrc::truncated);
        wire::store_be<int32_t>(bad.data() + 8, -5);
        EXPECT_EQ(validate_batches(bad).error().code, BatchErrc::invalid_length);
    }
    {
        auto bad = good;
        wire::store_be<int32_t>(bad.data() + 57, 9);  // RecordsCount > LastOffsetDelta + 1
        EXPECT_EQ(validate_batches(bad).error().code, BatchErrc::invalid_count);
    }
    {
        // An empty batch, as the log cleaner keeps for an idempotent producer's last sequence:
        // valid in a log (check_batch), refused from a client (validate_batches).
        std::vector<std::byte> empty(good.begin(),
                                     good.begin() + static_cast<ptrdiff_t>(kBatchHeaderSize));
        wire::store_be<int32_t>(empty.data() + 8,
                                static_cast<int32_t>(kBatchHeaderSize - kBatchLogOverhead));
        wire::store_be<int32_t>(empty.data() + 57, 0);
        wire::store_be<uint32_t>(
            empty.data() + kBatchCrcOffset,
            crc32c(std::span<const std::byte>(empty).subspan(kBatchAttributesOffset)));
        auto stored = check_batch(empty);
        ASSERT_TRUE(stored) << stored.error().message;
        EXPECT_EQ(stored->records_count, 0);
        auto sent = validate_batches(empty);
        ASSERT_FALSE(sent);
        EXPECT_EQ(sent.error().code, BatchErrc::invalid_count);
        EXPECT_NE(sent.error().message.find("no records"), std::string::npos);
    }
    {
        // Offsets that would run past int64: every reader's last_offset() + 1 would overflow.
        auto bad = build_record_batch({INT64_MAX - 2, 0, -1, -1, -1, 0},
                                      {{"a", "b", {}, 0}, {"c", "d", {}, 0}, {"e", "f", {}, 0}});
        EXPECT_EQ(validate_batches(bad).error().code, BatchErrc::invalid_offset);
        auto fits = build_record_batch({INT64_MAX - 3, 0, -1, -1, -1, 0},
                                       {{"a", "b", {}, 0}, {"c", "d", {}, 0}, {"e", "f", {}, 0}});
        EXPECT_TRUE(validate_batches(fits));
    }
    {
        auto two = good;
        two.insert(two.end(), good.begin(), good.begin() + 30);  // a second, truncated batch
        auto r = validate_batches(two);
        ASSERT_FALSE(r);
        EXPECT_EQ(r.error().code, BatchErrc::truncated);
        EXPECT_EQ(r.error().position, good.size());
    }
    EXPECT_EQ(validate_batches({}).error().code, BatchErrc::empty);
    for (size_t n = 1; n < good.size(); ++n)
        EXPECT_FALSE(validate_batches(std::span(good).first(n))) << n;
}

TEST(RecordIterator, ReadsKeysValuesAndHeaders) {
    auto batch = sample_batch();
    auto records = read_records(batch);
    ASSERT_TRUE(records) << records.error().message;
    ASSERT_EQ(records->size(), 3u);
    const Record& r0 = (*records)[0];
    EXPECT_EQ(r0.offset_delta, 0);
    ASSERT_TRUE(r0.key);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(r0.key->data()), r0.key->size()), "k1");
    ASSERT_EQ(r0.headers.size(), 2u);
    EXPECT_EQ(r0.headers[0].key, "h");
    EXPECT_FALSE(r0.headers[1].value);
    const Record& r1 = (*records)[1];
    EXPECT_FALSE(r1.key);
    EXPECT_FALSE(r1.value);
    EXPECT_EQ(r1.timestamp_delta, 5);
    EXPECT_EQ(r1.offset_delta, 1);
    EXPECT_EQ((*records)[2].value->size(), 300u);
}

TEST(RecordIterator, RefusesCompressedAndCorruptRecords) {
    auto gz = build_record_batch({0, 0, -1, -1, -1, 1}, {{"k", "v", {}, 0}});
    auto r = RecordIterator::open(gz);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("gzip"), std::string::npos);

    // Corrupt every byte of the record area in turn, fixing the CRC so the batch still validates:
    // the iterator must report an error or decode something, never read out of bounds.
    auto good = sample_batch();
    for (size_t i = kBatchHeaderSize; i < good.size(); ++i) {
        for (uint8_t flip : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xff}}) {
            auto bad = good;
            bad[i] ^= std::byte{flip};
            uint32_t crc = crc32c(std::span(bad).subspan(kBatchAttributesOffset));
            wire::store_be<uint32_t>(bad.data() + kBatchCrcOffset, crc);
            (void)read_records(bad);
        }
    }
    // A record length reaching past the batch is an error.
    auto bad = good;
    bad[kBatchHeaderSize] = std::byte{0x7e};  // zig-zag 63 -> fine; make it huge instead:
    bad[kBatchHeaderSize] = std::byte{0xfe};
    bad[kBatchHeaderSize + 1] = std::byte{0x7f};
    wire::store_be<uint32_t>(bad.data() + kBatchCrcOffset,
                             crc32c(std::span(bad).subspan(kBatchAttributesOffset)));
    auto records = read_records(bad);
    ASSERT_FALSE(records);
}

}  // namespace
}  // namespace skiff::protocol
