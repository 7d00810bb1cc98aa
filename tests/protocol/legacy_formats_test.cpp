// Message format v0/v1: parsing and validation (message_set.h), up-conversion to record batch v2
// (up_convert.h) and down-conversion from it (down_convert.h).
#include <gtest/gtest.h>
#include <snappy.h>

#include <string>
#include <vector>

#include "protocol/compression/batch_recompress.h"
#include "protocol/compression/compression.h"
#include "protocol/legacy/down_convert.h"
#include "protocol/legacy/message_set.h"
#include "protocol/legacy/up_convert.h"
#include "protocol/record_batch.h"
#include "protocol/record_builder.h"
#include "protocol/record_iterator.h"
#include "protocol/wire.h"

namespace skiff::protocol::legacy {
namespace {

using Bytes = std::vector<std::byte>;
using OptBytes = std::optional<std::span<const std::byte>>;

Bytes bytes_of(std::string_view s) {
    auto b = std::as_bytes(std::span(s.data(), s.size()));
    return {b.begin(), b.end()};
}
std::string text(const OptBytes& b) {
    return b ? std::string(reinterpret_cast<const char*>(b->data()), b->size()) : "<null>";
}

struct Msg {
    std::optional<std::string> key;
    std::optional<std::string> value;
    int64_t timestamp = -1;
};

// A message set of uncompressed messages, inner offsets 0..n-1 as a v1 wrapper needs them.
Bytes message_set(int8_t magic, const std::vector<Msg>& msgs) {
    Bytes out;
    int64_t offset = 0;
    for (const auto& m : msgs) {
        Bytes k = m.key ? bytes_of(*m.key) : Bytes{};
        Bytes v = m.value ? bytes_of(*m.value) : Bytes{};
        append_message(out, magic, offset++, 0, m.timestamp, m.key ? OptBytes(k) : std::nullopt,
                       m.value ? OptBytes(v) : std::nullopt);
    }
    return out;
}

Bytes wrapper(int8_t magic, Compression codec, const Bytes& compressed, int64_t timestamp = -1,
              int8_t extra_attributes = 0) {
    Bytes out;
    append_message(out, magic, 0, static_cast<int8_t>(static_cast<int>(codec) | extra_attributes),
                   timestamp, std::nullopt, OptBytes(compressed));
    return out;
}

Bytes compressed(Compression codec, const Bytes& plain) {
    Bytes out;
    EXPECT_TRUE(compression::compress(codec, plain, out));
    return out;
}

// The records of an up-converted batch, decompressed when needed.
std::vector<Record> records_of(const Bytes& batch, Bytes& plain) {
    auto h = check_batch(batch);
    EXPECT_TRUE(h) << (h ? "" : h.error().message);
    std::span<const std::byte> body = std::span(batch).subspan(kBatchHeaderSize);
    if (h->compression() != Compression::none) {
        EXPECT_TRUE(compression::decompress(h->compression(), body, plain, 1 << 20));
        body = plain;
    }
    auto it = RecordIterator::over_records(body, *h);
    std::vector<Record> out;
    for (;;) {
        auto r = it.next();
        EXPECT_TRUE(r);
        if (!r || !*r)
            break;
        out.push_back(**r);
    }
    return out;
}

Expected<UpConverted, LegacyError> convert(const Bytes& set, Bytes& out) {
    Bytes scratch;
    return up_convert(set, 1 << 20, out, scratch);
}

TEST(LegacyMessageSet, KnownCrcV0) {
    Bytes set = message_set(0, {{"k", "v"}});
    ASSERT_EQ(set.size(), 12u + 16u);
    EXPECT_EQ(wire::load_be<uint32_t>(set.data() + 12), 0x1fecd70au);  // zlib.crc32 in Python
    size_t consumed = 0;
    auto m = parse_entry(set, consumed);
    ASSERT_TRUE(m) << m.error().message;
    EXPECT_EQ(consumed, set.size());
    EXPECT_EQ(text(m->key), "k");
    EXPECT_EQ(text(m->value), "v");
    EXPECT_EQ(m->timestamp, kNoTimestamp);
}

TEST(LegacyMessageSet, KnownCrcV1) {
    Bytes set = message_set(1, {{std::nullopt, "hello", 1700000000000}});
    EXPECT_EQ(wire::load_be<uint32_t>(set.data() + 12), 0x8ee30bbau);
    size_t consumed = 0;
    auto m = parse_entry(set, consumed);
    ASSERT_TRUE(m) << m.error().message;
    EXPECT_FALSE(m->key);
    EXPECT_EQ(text(m->value), "hello");
    EXPECT_EQ(m->timestamp, 1700000000000);
}

TEST(LegacyMessageSet, CorruptCrcIsRefused) {
    Bytes set = message_set(1, {{"a", "one", 1}, {"b", "two", 2}});
    set.back() ^= std::byte{1};
    Bytes out;
    auto r = convert(set, out);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("CRC"), std::string::npos) << r.error().message;
}

TEST(LegacyMessageSet, MalformedSetsAreRefused) {
    const Bytes good = message_set(0, {{"k", "v"}});
    Bytes out;
    Bytes truncated(good.begin(), good.end() - 1);
    EXPECT_FALSE(convert(truncated, out));
    Bytes trailing = good;
    trailing.push_back(std::byte{0});
    EXPECT_FALSE(convert(trailing, out));
    Bytes small = good;  // message_size below a v0 header
    wire::store_be<int32_t>(small.data() + 8, 13);
    EXPECT_FALSE(convert(small, out));
    // A key length running past the message: CRC recomputed so only the length is wrong.
    Bytes long_key = good;
    wire::store_be<int32_t>(long_key.data() + 18, 100);
    wire::store_be<uint32_t>(long_key.data() + 12, crc32_ieee(std::span(long_key).subspan(16)));
    EXPECT_FALSE(convert(long_key, out));
    Bytes zstd = wrapper(1, Compression::zstd, compressed(Compression::zstd, good));
    EXPECT_FALSE(convert(zstd, out));
}

TEST(LegacyUpConvert, UncompressedV0BecomesOneBatch) {
    Bytes set = message_set(0, {{"k1", "v1"}, {std::nullopt, "v2"}, {"k3", std::nullopt}});
    Bytes batch;
    auto r = convert(set, batch);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->record_count, 3);
    EXPECT_EQ(r->codec, Compression::none);
    auto summaries = validate_batches(batch);
    ASSERT_TRUE(summaries) << summaries.error().message;
    ASSERT_EQ(summaries->size(), 1u);
    EXPECT_EQ((*summaries)[0].record_count, 3);
    EXPECT_EQ((*summaries)[0].last_offset_delta, 2);
    EXPECT_EQ((*summaries)[0].base_timestamp, -1);  // v0 has no timestamps: NO_TIMESTAMP
    EXPECT_EQ((*summaries)[0].max_timestamp, -1);
    EXPECT_EQ((*summaries)[0].producer_id, -1);
    Bytes plain;
    auto recs = records_of(batch, plain);
    ASSERT_EQ(recs.size(), 3u);
    EXPECT_EQ(text(recs[0].key), "k1");
    EXPECT_EQ(text(recs[1].key), "<null>");
    EXPECT_EQ(text(recs[1].value), "v2");
    EXPECT_EQ(text(recs[2].value), "<null>");
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(recs[i].offset_delta, i);
        EXPECT_EQ(recs[i].timestamp_delta, 0);
    }
}

TEST(LegacyUpConvert, V1KeepsTimestamps) {
    Bytes set = message_set(1, {{"a", "1", 1000}, {"b", "2", 1005}, {"c", "3", 999}});
    Bytes batch;
    ASSERT_TRUE(convert(set, batch));
    auto h = check_batch(batch);
    ASSERT_TRUE(h);
    EXPECT_EQ(h->base_timestamp, 1000);
    EXPECT_EQ(h->max_timestamp, 1005);
    EXPECT_FALSE(h->log_append_time());
    Bytes plain;
    auto recs = records_of(batch, plain);
    ASSERT_EQ(recs.size(), 3u);
    EXPECT_EQ(recs[1].timestamp_delta, 5);
    EXPECT_EQ(recs[2].timestamp_delta, -1);
}

class LegacyWrappers : public ::testing::TestWithParam<std::tuple<int, Compression>> {};

TEST_P(LegacyWrappers, CompressedWrapperIsUnpackedAndBatchKeepsCodec) {
    const auto [magic, codec] = GetParam();
    const std::vector<Msg> inner = {{"k1", "first", 10}, {"k2", "second", 20}, {"k3", "third", 30}};
    Bytes frame = compressed(codec, message_set(static_cast<int8_t>(magic), inner));
    if (codec == Compression::lz4 && magic == 0) {  // what 0.8-0.9 clients wrote (KAFKA-3160)
        auto wrong = lz4_header_checksum(frame, true);
        auto right = lz4_header_checksum(frame, false);
        ASSERT_TRUE(wrong && right);
        ASSERT_NE(*wrong, *right);  // else this test could not tell the quirk from a good frame
        frame[6] = static_cast<std::byte>(*wrong);  // FLG, BD, then HC: no optional fields
    }
    Bytes set = wrapper(static_cast<int8_t>(magic), codec, frame, 30);
    // An uncompressed message after the wrapper: both end up in the one batch.
    Bytes tail = message_set(static_cast<int8_t>(magic), {{"k4", "fourth", 40}});
    set.insert(set.end(), tail.begin(), tail.end());
    Bytes batch;
    auto r = convert(set, batch);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->record_count, 4);
    EXPECT_EQ(r->codec, codec);
    Bytes plain;
    auto recs = records_of(batch, plain);
    ASSERT_EQ(recs.size(), 4u);
    const char* values[] = {"first", "second", "third", "fourth"};
    for (int i = 0; i < 4; ++i) {
        EXPECT_EQ(text(recs[i].value), values[i]);
        EXPECT_EQ(recs[i].offset_delta, i);
        EXPECT_EQ(recs[i].timestamp_delta, magic == 1 ? 10 * i : 0);
    }
}

INSTANTIATE_TEST_SUITE_P(Codecs, LegacyWrappers,
                         ::testing::Combine(::testing::Values(0, 1),
                                            ::testing::Values(Compression::gzip,
                                                              Compression::snappy,
                                                              Compression::lz4)));

TEST(LegacyUpConvert, RawSnappyWrapper) {
    Bytes inner = message_set(1, {{"k", "raw snappy", 7}});
    std::string raw;
    snappy::Compress(reinterpret_cast<const char*>(inner.data()), inner.size(), &raw);
    Bytes batch;
    auto r = convert(wrapper(1, Compression::snappy, bytes_of(raw), 7), batch);
    ASSERT_TRUE(r) << r.error().message;
    Bytes plain;
    auto recs = records_of(batch, plain);
    ASSERT_EQ(recs.size(), 1u);
    EXPECT_EQ(text(recs[0].value), "raw snappy");
}

TEST(LegacyUpConvert, Kafka3160HeaderIsRefusedForMagic1) {
    Bytes frame = compressed(Compression::lz4, message_set(1, {{"k", "v", 1}}));
    frame[6] = static_cast<std::byte>(*lz4_header_checksum(frame, true));
    Bytes batch;
    EXPECT_FALSE(convert(wrapper(1, Compression::lz4, frame, 1), batch));
}

TEST(LegacyUpConvert, LogAppendTimeWrapperGivesItsTimestamp) {
    Bytes frame = compressed(Compression::gzip, message_set(1, {{"a", "1", 5}, {"b", "2", 6}}));
    Bytes batch;
    ASSERT_TRUE(convert(wrapper(1, Compression::gzip, frame, 777, 0x08), batch));
    auto h = check_batch(batch);
    ASSERT_TRUE(h);
    EXPECT_EQ(h->base_timestamp, 777);
    EXPECT_EQ(h->max_timestamp, 777);
}

TEST(LegacyUpConvert, BadWrappersAreRefused) {
    Bytes out;
    // A wrapper inside a wrapper.
    Bytes inner_wrapper =
        wrapper(1, Compression::gzip, compressed(Compression::gzip, message_set(1, {{"k", "v"}})));
    EXPECT_FALSE(
        convert(wrapper(1, Compression::gzip, compressed(Compression::gzip, inner_wrapper)), out));
    // Inner messages of another magic than the wrapper.
    EXPECT_FALSE(convert(
        wrapper(1, Compression::gzip, compressed(Compression::gzip, message_set(0, {{"k", "v"}}))),
        out));
    // A value that is not gzip at all.
    EXPECT_FALSE(convert(wrapper(0, Compression::gzip, bytes_of("not gzip")), out));
    // An empty inner set.
    EXPECT_FALSE(convert(wrapper(0, Compression::gzip, compressed(Compression::gzip, {})), out));
}

// A stored batch: base offset 100, timestamps 5000 + delta.
Bytes stored_batch() {
    BatchSpec spec;
    spec.base_offset = 100;
    spec.base_timestamp = 5000;
    std::vector<RecordSpec> recs;
    for (int i = 0; i < 3; ++i)
        recs.push_back(
            {"key" + std::to_string(i), "value" + std::to_string(i), {{"h", "dropped"}}, i * 10});
    return build_record_batch(spec, recs);
}

std::vector<RawMessage> parse_all(const Bytes& set, std::vector<int64_t>& offsets) {
    std::vector<RawMessage> out;
    size_t pos = 0;
    while (pos < set.size()) {
        size_t consumed = 0;
        auto m = parse_entry(std::span(set).subspan(pos), consumed);
        EXPECT_TRUE(m) << m.error().message;
        if (!m)
            break;
        offsets.push_back(wire::load_be<int64_t>(set.data() + pos));
        out.push_back(*m);
        pos += consumed;
    }
    return out;
}

TEST(LegacyDownConvert, MagicOneFromFetchOffset) {
    Bytes batch = stored_batch();
    Bytes out, plain;
    auto r = down_convert(batch, 1, 101, 1 << 20, 1 << 20, plain, out);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->message_count, 2);
    EXPECT_EQ(r->next_offset, 103);
    std::vector<int64_t> offsets;
    auto msgs = parse_all(out, offsets);
    ASSERT_EQ(msgs.size(), 2u);
    EXPECT_EQ(offsets, (std::vector<int64_t>{101, 102}));
    EXPECT_EQ(msgs[0].magic, 1);
    EXPECT_EQ(msgs[0].timestamp, 5010);
    EXPECT_EQ(msgs[1].timestamp, 5020);
    EXPECT_EQ(text(msgs[0].key), "key1");
    EXPECT_EQ(text(msgs[1].value), "value2");
}

TEST(LegacyDownConvert, MagicZeroFromCompressedBatch) {
    Bytes batch = stored_batch();
    Bytes gz, plain;
    ASSERT_TRUE(compression::recompress_batch(batch, Compression::gzip, 1 << 20, plain, gz));
    ASSERT_EQ(check_batch(gz)->compression(), Compression::gzip);
    Bytes out;
    auto r = down_convert(gz, 0, 0, 1 << 20, 1 << 20, plain, out);
    ASSERT_TRUE(r) << r.error().message;
    std::vector<int64_t> offsets;
    auto msgs = parse_all(out, offsets);
    ASSERT_EQ(msgs.size(), 3u);
    EXPECT_EQ(offsets, (std::vector<int64_t>{100, 101, 102}));
    for (const auto& m : msgs) {
        EXPECT_EQ(m.magic, 0);
        EXPECT_EQ(m.attributes, 0);  // re-emitted uncompressed
    }
    EXPECT_EQ(text(msgs[2].value), "value2");
}

TEST(LegacyDownConvert, StopsAtMaxBytesButWritesOneWholeMessage) {
    Bytes batch = stored_batch();
    Bytes out, plain;
    auto r = down_convert(batch, 1, 0, 1, 1 << 20, plain, out);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->message_count, 1);
    EXPECT_TRUE(r->truncated);
    const size_t one = out.size();
    out.clear();
    r = down_convert(batch, 1, 0, 2 * one, 1 << 20, plain, out);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->message_count, 2);
    EXPECT_EQ(out.size(), 2 * one);
}

TEST(LegacyDownConvert, IgnoresAnIncompleteTrailingBatch) {
    Bytes two = stored_batch();
    Bytes second = stored_batch();
    set_base_offset(second, 103);
    two.insert(two.end(), second.begin(), second.end() - 5);
    Bytes out, plain;
    auto r = down_convert(two, 0, 0, 1 << 20, 1 << 20, plain, out);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->message_count, 3);
}

TEST(LegacyRoundTrip, UpThenDownGivesTheMessagesBack) {
    const std::vector<Msg> msgs = {{"a", "alpha", 11}, {std::nullopt, "beta", 12}, {"c", "", 13}};
    Bytes frame = compressed(Compression::lz4, message_set(1, msgs));
    Bytes batch;
    ASSERT_TRUE(convert(wrapper(1, Compression::lz4, frame, 13), batch));
    set_base_offset(batch, 40);
    Bytes out, plain;
    ASSERT_TRUE(down_convert(batch, 1, 40, 1 << 20, 1 << 20, plain, out));
    std::vector<int64_t> offsets;
    auto back = parse_all(out, offsets);
    ASSERT_EQ(back.size(), msgs.size());
    for (size_t i = 0; i < msgs.size(); ++i) {
        EXPECT_EQ(offsets[i], 40 + static_cast<int64_t>(i));
        EXPECT_EQ(text(back[i].key), msgs[i].key.value_or("<null>"));
        EXPECT_EQ(text(back[i].value), *msgs[i].value);
        EXPECT_EQ(back[i].timestamp, msgs[i].timestamp);
    }
}

}  // namespace
}  // namespace skiff::protocol::legacy
