// Micro-benchmark of the broker's work for pre-0.11 clients (protocol/legacy/), per batch of
// 1000 messages with ~100-byte text values and 10-byte keys, against what the v2 paths do:
//   produce  up_convert (parse, CRC-32 per message, one v2 batch, CRC-32C) vs validate_batches
//            on the equivalent v2 batch (the v2 produce path's per-batch work);
//   fetch    down_convert (walk records, one message with CRC-32 each) vs memcpy of the stored
//            batch (a floor: the v2 fetch path does no user-space work per byte at all, sendfile).
// Prints one line per case: ns per message, MB/s of input (MB = 10^6 bytes), median of 9 runs.
//
//   legacy_formats_bench [MESSAGES_PER_SET]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "protocol/compression/batch_recompress.h"
#include "protocol/compression/compression.h"
#include "protocol/legacy/down_convert.h"
#include "protocol/legacy/up_convert.h"
#include "protocol/record_batch.h"
#include "protocol/record_builder.h"

namespace sp = skiff::protocol;
using Bytes = std::vector<std::byte>;

namespace {

std::vector<std::string> text_values(int n) {
    static const char* words[] = {"broker",  "partition", "offset", "segment", "index",   "fetch",
                                  "produce", "record",    "batch",  "leader",  "replica", "topic"};
    std::mt19937 rng(42);
    std::vector<std::string> out;
    for (int i = 0; i < n; ++i) {
        std::string v;
        while (v.size() < 100) {
            v += words[rng() % 12];
            v += ' ';
        }
        out.push_back(v);
    }
    return out;
}

template <class F>
double median_ns(int reps, F f) {
    std::vector<double> t;
    for (int r = 0; r < 9; ++r) {
        auto a = std::chrono::steady_clock::now();
        for (int i = 0; i < reps; ++i)
            f();
        auto b = std::chrono::steady_clock::now();
        t.push_back(std::chrono::duration<double, std::nano>(b - a).count() / reps);
    }
    std::sort(t.begin(), t.end());
    return t[4];
}

void report(const char* name, double ns_per_set, int messages, size_t input_bytes) {
    std::printf("%-44s %8.1f ns/message %9.1f MB/s\n", name, ns_per_set / messages,
                static_cast<double>(input_bytes) / ns_per_set * 1e3);
}

}  // namespace

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 1000;
    const auto values = text_values(n);
    // v1 message set, uncompressed.
    Bytes set;
    for (int i = 0; i < n; ++i) {
        std::string key = "key-" + std::to_string(i % 1000);
        sp::legacy::append_message(set, 1, i, 0, 1700000000000 + i,
                                   std::as_bytes(std::span(key.data(), key.size())),
                                   std::as_bytes(std::span(values[i].data(), values[i].size())));
    }
    auto wrap = [&](sp::Compression codec) {
        Bytes z, out;
        if (!sp::compression::compress(codec, set, z))
            std::abort();
        sp::legacy::append_message(out, 1, n - 1, static_cast<int8_t>(codec), 1700000000000 + n,
                                   std::nullopt, std::span<const std::byte>(z));
        return out;
    };
    const Bytes gzip_set = wrap(sp::Compression::gzip);
    const Bytes lz4_set = wrap(sp::Compression::lz4);
    // The equivalent v2 batch, uncompressed and lz4.
    std::vector<sp::RecordSpec> specs;
    for (int i = 0; i < n; ++i)
        specs.push_back({"key-" + std::to_string(i % 1000), values[i], {}, i});
    sp::BatchSpec bs;
    bs.base_timestamp = 1700000000000;
    const Bytes batch = sp::build_record_batch(bs, specs);
    Bytes lz4_batch, plain;
    if (!sp::compression::recompress_batch(batch, sp::Compression::lz4, 1 << 30, plain, lz4_batch))
        std::abort();

    Bytes out, scratch;
    const int reps = std::max(1, 200000 / n);
    std::printf("%d messages per set, %zu bytes as a v1 message set, %zu as a v2 batch\n", n,
                set.size(), batch.size());
    report("produce v2 batch: validate_batches (baseline)",
           median_ns(reps, [&] { (void)sp::validate_batches(batch); }), n, batch.size());
    report("produce v1 set -> v2: up_convert",
           median_ns(reps, [&] { (void)sp::legacy::up_convert(set, 1 << 30, out, scratch); }), n,
           set.size());
    report("produce v1 gzip wrapper -> v2 gzip: up_convert",
           median_ns(reps, [&] { (void)sp::legacy::up_convert(gzip_set, 1 << 30, out, scratch); }),
           n, gzip_set.size());
    report("produce v1 lz4 wrapper -> v2 lz4: up_convert",
           median_ns(reps, [&] { (void)sp::legacy::up_convert(lz4_set, 1 << 30, out, scratch); }),
           n, lz4_set.size());
    report("fetch v2 batch: memcpy (floor; v2 uses sendfile)",
           median_ns(reps, [&] { out.assign(batch.begin(), batch.end()); }), n, batch.size());
    report("fetch v2 -> v1 messages: down_convert",
           median_ns(reps,
                     [&] {
                         out.clear();
                         (void)sp::legacy::down_convert(batch, 1, 0, 1 << 30, 1 << 30, plain, out);
                     }),
           n, batch.size());
    report("fetch v2 lz4 -> v1 messages: down_convert",
           median_ns(reps,
                     [&] {
                         out.clear();
                         (void)sp::legacy::down_convert(lz4_batch, 1, 0, 1 << 30, 1 << 30, plain,
                                                        out);
                     }),
           n, lz4_batch.size());
    return 0;
}
