// Kafka's codecs (protocol/compression/) and the rebuild of a batch in another codec: round
// trips, vectors written by other implementations, truncated and garbage input, size limits.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "protocol/compression/batch_recompress.h"
#include "protocol/compression/compression.h"
#include "protocol/crc32c.h"
#include "protocol/record_batch.h"
#include "protocol/record_builder.h"
#include "protocol/record_iterator.h"

namespace skiff::protocol::compression {
namespace {

constexpr Compression kCodecs[] = {Compression::gzip, Compression::snappy, Compression::lz4,
                                   Compression::zstd};

std::vector<std::byte> bytes(std::initializer_list<int> values) {
    std::vector<std::byte> out;
    for (int v : values)
        out.push_back(static_cast<std::byte>(v));
    return out;
}

std::vector<std::byte> bytes(std::string_view s) {
    const auto* p = reinterpret_cast<const std::byte*>(s.data());
    return {p, p + s.size()};
}

std::string text(const std::vector<std::byte>& b) {
    return {reinterpret_cast<const char*>(b.data()), b.size()};
}

// Compressible text with some noise, larger than one snappy (32 KiB) and lz4 (64 KiB) block.
std::vector<std::byte> sample(size_t n) {
    std::mt19937 rng(42);
    std::string s;
    while (s.size() < n)
        s += "record-" + std::to_string(rng() % 1000) + " value payload ";
    s.resize(n);
    return bytes(s);
}

TEST(Codecs, RoundTripEverySize) {
    for (Compression c : kCodecs) {
        for (size_t n : {size_t{0}, size_t{1}, size_t{100}, size_t{40000}, size_t{300000}}) {
            const auto input = sample(n);
            std::vector<std::byte> packed;
            ASSERT_TRUE(compress(c, input, packed)) << compression_name(c) << " " << n;
            std::vector<std::byte> unpacked;
            auto r = decompress(c, packed, unpacked, 1 << 20);
            ASSERT_TRUE(r) << compression_name(c) << " " << n << ": " << r.error().message;
            EXPECT_EQ(unpacked, input) << compression_name(c) << " " << n;
        }
    }
}

TEST(Codecs, CompressAppendsAfterExistingBytes) {
    for (Compression c : kCodecs) {
        std::vector<std::byte> out = bytes("head");
        ASSERT_TRUE(compress(c, sample(1000), out));
        std::vector<std::byte> unpacked;
        ASSERT_TRUE(decompress(c, std::span(out).subspan(4), unpacked, 1 << 20));
        EXPECT_EQ(unpacked, sample(1000));
    }
}

// Written by other implementations: Python's gzip module, the lz4 and zstd command-line tools
// (zstd from a pipe: no content size in the frame header), and snappy-java's framing built by
// hand from its specification around a raw snappy block.
TEST(Codecs, KnownGoodVectors) {
    const std::string expected = "hello, kafka";
    const std::vector<std::pair<Compression, std::vector<std::byte>>> vectors = {
        {Compression::gzip, bytes({0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xcb,
                                   0x48, 0xcd, 0xc9, 0xc9, 0xd7, 0x51, 0xc8, 0x4e, 0x4c, 0xcb, 0x4e,
                                   0x04, 0x00, 0x6e, 0x16, 0x60, 0x9e, 0x0c, 0x00, 0x00, 0x00})},
        {Compression::lz4, bytes({0x04, 0x22, 0x4d, 0x18, 0x64, 0x40, 0xa7, 0x0c, 0x00, 0x00, 0x80,
                                  0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x2c, 0x20, 0x6b, 0x61, 0x66, 0x6b,
                                  0x61, 0x00, 0x00, 0x00, 0x00, 0x17, 0xd7, 0x87, 0xfd})},
        {Compression::zstd, bytes({0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x58, 0x61, 0x00, 0x00, 0x68, 0x65,
                                   0x6c, 0x6c, 0x6f, 0x2c, 0x20, 0x6b, 0x61, 0x66, 0x6b, 0x61})},
        {Compression::zstd, bytes({0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x0c, 0x61, 0x00, 0x00, 0x68, 0x65,
                                   0x6c, 0x6c, 0x6f, 0x2c, 0x20, 0x6b, 0x61, 0x66, 0x6b, 0x61})},
        // raw snappy: varint length 12, literal tag (12-1)<<2, the bytes
        {Compression::snappy,
         bytes({0x0c, 0x2c, 'h', 'e', 'l', 'l', 'o', ',', ' ', 'k', 'a', 'f', 'k', 'a'})},
        // xerial: magic, version 1, compatible 1, one block of 14 bytes
        {Compression::snappy, bytes({0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0,   0,    0,    0,   1,
                                     0,    0,   0,   1,   0,   0,   0,   14,  0x0c, 0x2c, 'h', 'e',
                                     'l',  'l', 'o', ',', ' ', 'k', 'a', 'f', 'k',  'a'})},
    };
    for (const auto& [codec, packed] : vectors) {
        std::vector<std::byte> out;
        auto r = decompress(codec, packed, out, 1024);
        ASSERT_TRUE(r) << compression_name(codec) << ": " << r.error().message;
        EXPECT_EQ(text(out), expected) << compression_name(codec);
    }
}

TEST(Codecs, SnappyWritesXerialFraming) {
    std::vector<std::byte> out;
    ASSERT_TRUE(compress(Compression::snappy, bytes("hello, kafka"), out));
    ASSERT_GE(out.size(), 20u);
    EXPECT_EQ(std::vector<std::byte>(out.begin(), out.begin() + 16),
              bytes({0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1}));
    EXPECT_EQ(static_cast<size_t>(out[19]) + 20, out.size());  // one block, its length
}

TEST(Codecs, TruncatedInputIsCorrupt) {
    for (Compression c : kCodecs) {
        std::vector<std::byte> packed;
        ASSERT_TRUE(compress(c, sample(5000), packed));
        for (size_t cut : {size_t{0}, size_t{1}, packed.size() / 2, packed.size() - 1}) {
            std::vector<std::byte> out;
            auto r = decompress(c, std::span(packed).first(cut), out, 1 << 20);
            ASSERT_FALSE(r) << compression_name(c) << " cut at " << cut;
            EXPECT_EQ(r.error().code, CodecErrc::corrupt) << compression_name(c);
            EXPECT_TRUE(out.empty());
        }
    }
}

TEST(Codecs, GarbageIsCorrupt) {
    std::mt19937 rng(7);
    for (Compression c : kCodecs) {
        for (int round = 0; round < 50; ++round) {
            std::vector<std::byte> garbage(1 + rng() % 200);
            for (auto& b : garbage)
                b = static_cast<std::byte>(rng());
            std::vector<std::byte> out;
            EXPECT_FALSE(decompress(c, garbage, out, 1 << 20)) << compression_name(c);
        }
    }
}

TEST(Codecs, OutputBeyondTheLimitIsRefused) {
    const std::vector<std::byte> zeros(1 << 20);
    for (Compression c : kCodecs) {
        std::vector<std::byte> packed;
        ASSERT_TRUE(compress(c, zeros, packed));
        std::vector<std::byte> out;
        auto r = decompress(c, packed, out, 100000);
        ASSERT_FALSE(r) << compression_name(c);
        EXPECT_EQ(r.error().code, CodecErrc::too_large) << compression_name(c);
        EXPECT_LE(out.capacity(), size_t{1} << 20);
        ASSERT_TRUE(decompress(c, packed, out, zeros.size())) << compression_name(c);
        EXPECT_EQ(out, zeros);
    }
}

TEST(Codecs, ParseCompressionType) {
    std::optional<Compression> c = Compression::gzip;
    ASSERT_TRUE(parse_compression_type("producer", c));
    EXPECT_FALSE(c);
    ASSERT_TRUE(parse_compression_type("uncompressed", c));
    EXPECT_EQ(c, Compression::none);
    ASSERT_TRUE(parse_compression_type("zstd", c));
    EXPECT_EQ(c, Compression::zstd);
    EXPECT_FALSE(parse_compression_type("none", c));  // Kafka spells it uncompressed
    EXPECT_FALSE(parse_compression_type("LZ4", c));
}

// --- batch rebuild ---

std::vector<RecordSpec> sample_records() {
    return {{"k1", "v1", {{"h", "x"}, {"n", std::nullopt}}, 0},
            {std::nullopt, std::nullopt, {}, 5},
            {"k3", std::string(3000, 'z'), {}, 9}};
}

// A batch whose records are compressed with `codec`, built from the uncompressed one.
std::vector<std::byte> compressed_batch(Compression codec, const BatchSpec& spec,
                                        const std::vector<RecordSpec>& records) {
    auto plain = build_record_batch(spec, records);
    std::vector<std::byte> scratch;
    std::vector<std::byte> out;
    auto r = recompress_batch(plain, codec, 1 << 20, scratch, out);
    EXPECT_TRUE(r) << r.error().message;
    return out;
}

TEST(BatchRecompress, EveryCodecPairKeepsHeaderAndRecords) {
    const BatchSpec spec{1000, 1700000000000, 42, 3, 17, 0};
    const auto reference = build_record_batch(spec, sample_records());
    const BatchHeader ref = read_batch_header(reference);
    const Compression all[] = {Compression::none, Compression::gzip, Compression::snappy,
                               Compression::lz4, Compression::zstd};
    for (Compression from : all) {
        const auto sent = compressed_batch(from, spec, sample_records());
        for (Compression to : all) {
            std::vector<std::byte> plain;
            std::vector<std::byte> out;
            auto r = recompress_batch(sent, to, 1 << 20, plain, out);
            ASSERT_TRUE(r) << compression_name(from) << "->" << compression_name(to);
            auto checked = check_batch(out);  // framing and CRC-32C
            ASSERT_TRUE(checked) << checked.error().message;
            ASSERT_EQ(checked->size_bytes(), out.size());
            const BatchHeader& h = *checked;
            EXPECT_EQ(h.compression(), to);
            EXPECT_EQ(h.attributes & ~0x07, ref.attributes & ~0x07);
            EXPECT_EQ(h.base_offset, ref.base_offset);
            EXPECT_EQ(h.partition_leader_epoch, ref.partition_leader_epoch);
            EXPECT_EQ(h.last_offset_delta, ref.last_offset_delta);
            EXPECT_EQ(h.base_timestamp, ref.base_timestamp);
            EXPECT_EQ(h.max_timestamp, ref.max_timestamp);
            EXPECT_EQ(h.producer_id, 42);
            EXPECT_EQ(h.producer_epoch, 3);
            EXPECT_EQ(h.base_sequence, 17);
            EXPECT_EQ(h.records_count, 3);
            // Records identical: back to uncompressed gives the reference bytes.
            std::vector<std::byte> back;
            ASSERT_TRUE(recompress_batch(out, Compression::none, 1 << 20, plain, back));
            EXPECT_EQ(back, reference) << compression_name(from) << "->" << compression_name(to);
            if (from == to)
                EXPECT_EQ(out, sent);  // stored as sent
        }
    }
}

TEST(BatchRecompress, ResultIsAppendedAndBuffersAreReused) {
    const auto sent = compressed_batch(Compression::lz4, {}, sample_records());
    std::vector<std::byte> plain;
    std::vector<std::byte> out;
    std::vector<std::byte> both;
    ASSERT_TRUE(recompress_batches(sent, Compression::zstd, 1 << 20, plain, out));
    both.insert(both.end(), sent.begin(), sent.end());
    both.insert(both.end(), sent.begin(), sent.end());
    const auto* data_before = plain.data();
    ASSERT_TRUE(recompress_batches(both, Compression::zstd, 1 << 20, plain, out));
    EXPECT_EQ(plain.data(), data_before);  // no new allocation for a same-size batch
    auto summaries = validate_batches(out);
    ASSERT_TRUE(summaries) << summaries.error().message;
    ASSERT_EQ(summaries->size(), 2u);
    EXPECT_EQ((*summaries)[1].compression, Compression::zstd);
}

// A batch with a valid CRC around a body that is not what its codec bits say.
std::vector<std::byte> batch_with_body(Compression codec, int32_t count,
                                       const std::vector<std::byte>& body) {
    auto b = build_record_batch({}, {{"k", "v", {}, 0}});
    b.resize(kBatchHeaderSize);
    b.insert(b.end(), body.begin(), body.end());
    auto put32 = [&](size_t at, uint32_t v) {
        for (int i = 0; i < 4; ++i)
            b[at + i] = static_cast<std::byte>(v >> (24 - 8 * i));
    };
    put32(8, static_cast<uint32_t>(b.size() - kBatchLogOverhead));
    b[22] = static_cast<std::byte>(static_cast<int>(codec));
    put32(23, static_cast<uint32_t>(count - 1));  // last offset delta
    put32(57, static_cast<uint32_t>(count));
    put32(kBatchCrcOffset, crc32c(std::span(b).subspan(kBatchAttributesOffset)));
    EXPECT_TRUE(check_batch(b)) << "test batch must pass the CRC check";
    return b;
}

TEST(BatchRecompress, BadInputIsCorrupt) {
    std::vector<std::byte> plain;
    std::vector<std::byte> out;
    // garbage that does not decompress
    auto garbage = batch_with_body(Compression::lz4, 1, bytes("this is not an lz4 frame"));
    auto r = recompress_batch(garbage, Compression::zstd, 1 << 20, plain, out);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, RebuildErrc::corrupt);
    EXPECT_TRUE(out.empty());
    // decompresses, but to bytes that are not records
    std::vector<std::byte> packed;
    ASSERT_TRUE(compress(Compression::gzip, bytes("definitely not records"), packed));
    r = recompress_batch(batch_with_body(Compression::gzip, 1, packed), Compression::zstd, 1 << 20,
                         plain, out);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, RebuildErrc::corrupt);
    // valid records, but fewer than RecordsCount says
    auto one = build_record_batch({}, {{"k", "v", {}, 0}});
    packed.clear();
    ASSERT_TRUE(compress(Compression::snappy, std::span(one).subspan(kBatchHeaderSize), packed));
    r = recompress_batch(batch_with_body(Compression::snappy, 2, packed), Compression::zstd,
                         1 << 20, plain, out);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, RebuildErrc::corrupt);
    // the same with the right count is fine
    ASSERT_TRUE(recompress_batch(batch_with_body(Compression::snappy, 1, packed), Compression::zstd,
                                 1 << 20, plain, out));
}

TEST(BatchRecompress, DecompressionBombIsRefused) {
    const auto sent =
        compressed_batch(Compression::zstd, {}, {{"k", std::string(500000, 'a'), {}, 0}});
    EXPECT_LT(sent.size(), 1000u);
    std::vector<std::byte> plain;
    std::vector<std::byte> out;
    auto r = recompress_batch(sent, Compression::gzip, 100000, plain, out);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, RebuildErrc::too_large);
}

}  // namespace
}  // namespace skiff::protocol::compression
