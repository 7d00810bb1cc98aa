// libFuzzer target for protocol/: one input is a request frame without its size prefix (the same
// form as tests/protocol/fixtures/*.bin). It goes through framing, the request header and the body
// decoder of its API at its version (or, for an unsupported version, at a supported one derived
// from it); every decoded message must re-encode to bytes that decode and re-encode identically.
// Produce records, and the raw input itself, go through batch validation and, with the CRC fixed
// up so mutations get past it, record iteration; and through v0/v1 message set up-conversion and
// down-conversion (protocol/legacy/).
//
// SKIFF_FUZZ_WRITE_SEEDS=DIR writes one encoded request per supported API/version (plus a record
// batch) into DIR at start-up; run.sh uses it to extend the corpus beyond the captured fixtures.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "protocol/api_visit.h"
#include "protocol/crc32c.h"
#include "protocol/legacy/down_convert.h"
#include "protocol/legacy/up_convert.h"
#include "protocol/protocol.h"
#include "protocol/record_batch.h"
#include "protocol/record_builder.h"
#include "protocol/record_iterator.h"
#include "protocol/wire.h"

namespace sp = skiff::protocol;

namespace {

void exercise_records(std::span<const std::byte> bytes) {
    (void)sp::validate_batches(bytes);
    if (bytes.size() < sp::kBatchHeaderSize)
        return;
    std::vector<std::byte> copy(bytes.begin(), bytes.end());
    // Fix the CRC so the iterator sees the mutated records rather than a CRC error.
    auto h = sp::check_batch_framing(copy);
    if (h) {
        auto covered = std::span(copy).subspan(sp::kBatchAttributesOffset,
                                               h->size_bytes() - sp::kBatchAttributesOffset);
        sp::wire::store_be<uint32_t>(copy.data() + sp::kBatchCrcOffset, sp::crc32c(covered));
    }
    (void)sp::read_records(copy);
    // Message format v0/v1: up-conversion (parse, CRC, wrappers) and down-conversion of the v2
    // batch with its CRC fixed, into small bounded buffers.
    std::vector<std::byte> out, scratch;
    (void)sp::legacy::up_convert(bytes, 1 << 20, out, scratch);
    out.clear();
    (void)sp::legacy::down_convert(copy, 1, 0, 1 << 16, 1 << 20, scratch, out);
}

template <class Msg>
void check_reencode(const Msg& m, int16_t version) {
    sp::OutBuffer first;
    sp::encode_message(m, version, first);
    std::vector<std::byte> a(first.bytes().begin(), first.bytes().end());
    auto again = sp::decode_message<Msg>(a, version);
    if (!again) {
        std::fprintf(stderr, "re-decode failed: %s\n", again.error().message.c_str());
        __builtin_trap();
    }
    sp::OutBuffer second;
    sp::encode_message(*again, version, second);
    if (!std::equal(a.begin(), a.end(), second.bytes().begin(), second.bytes().end())) {
        std::fprintf(stderr, "encode/decode/encode mismatch for %s v%d\n",
                     sp::api_name(Msg::api_key), version);
        __builtin_trap();
    }
}

template <class Msg>
void decode_as(std::span<const std::byte> body, int16_t version) {
    auto m = sp::decode_message<Msg>(body, version);
    if (!m) {
        if (m.error().message.empty())
            __builtin_trap();
        return;
    }
    check_reencode(*m, version);
    if constexpr (std::is_same_v<Msg, sp::ProduceRequest>) {
        for (const auto& t : m->topic_data)
            for (const auto& p : t.partition_data)
                if (p.records)
                    exercise_records(*p.records);
    }
}

void decode_body(sp::ApiKey key, int16_t version, std::span<const std::byte> body) {
    sp::visit_api(static_cast<int16_t>(key),
                  [&]<class Request, class Response>() { decode_as<Request>(body, version); });
}

void write_file(const std::string& path, std::span<const std::byte> bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
}

template <class Msg>
void write_seeds(const std::string& dir, const Msg& m, const char* name) {
    const sp::ApiSupport* api = sp::find_api(Msg::api_key);
    for (int16_t v = api->min_version; v <= api->max_version; ++v) {
        auto frame = sp::encode_request(m, v, 1, "fuzz");
        write_file(dir + "/seed_" + name + "_v" + std::to_string(v) + ".bin",
                   std::span(frame).subspan(4));
    }
}

void write_all_seeds(const std::string& dir) {
    auto batch = sp::build_record_batch({}, {{"key", "value", {{"h", "v"}}, 0}, {{}, "x", {}, 3}});
    write_file(dir + "/seed_record_batch.bin", batch);
    static std::vector<std::byte> batch_storage = batch;

    sp::ApiVersionsRequest av{"skiff-fuzz", "1.0"};
    write_seeds(dir, av, "api_versions");
    sp::MetadataRequest md;
    md.topics = std::vector<sp::MetadataRequestTopic>{{{}, "orders"}};
    write_seeds(dir, md, "metadata");
    sp::ProduceRequest pr;
    pr.acks = 1;
    pr.timeout_ms = 1000;
    pr.topic_data.push_back({"orders", {}, {{0, std::span<const std::byte>(batch_storage)}}});
    write_seeds(dir, pr, "produce");
    std::vector<std::byte> message_set;
    const auto key = std::as_bytes(std::span("key", 3));
    const auto value = std::as_bytes(std::span("value", 5));
    sp::legacy::append_message(message_set, 0, 0, 0, -1, key, value);
    sp::legacy::append_message(message_set, 1, 1, 0, 1000, std::nullopt, value);
    write_file(dir + "/seed_message_set.bin", message_set);
    sp::FetchRequest fr;
    fr.topics.push_back({"orders", {}, {{0, -1, 5, -1, -1, 1 << 20}}});
    fr.forgotten_topics_data.push_back({"gone", {}, {1}});
    fr.cluster_id = "c";
    write_seeds(dir, fr, "fetch");
    sp::ListOffsetsRequest lo;
    lo.topics.push_back({"orders", {{0, -1, -1, 1}}});
    write_seeds(dir, lo, "list_offsets");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    if (const char* dir = std::getenv("SKIFF_FUZZ_WRITE_SEEDS"))
        write_all_seeds(dir);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    auto frame = std::span(reinterpret_cast<const std::byte*>(data), size);

    // Framing: the input with a size prefix in front, and the raw input as a prefix itself.
    (void)sp::parse_frame(frame, sp::kDefaultMaxFrameSize);
    (void)sp::parse_frame(frame, 64);

    exercise_records(frame);

    auto h = sp::decode_request_header(frame);
    if (!h)
        return 0;
    if (h->body_offset > frame.size())
        __builtin_trap();
    const sp::ApiSupport* api = sp::find_api(h->header.api_key);
    if (api == nullptr)
        return 0;
    int16_t version = h->header.api_version;
    if (!api->supports(version)) {
        // Still decode, at a supported version derived from the input, for coverage.
        const int span = api->max_version - api->min_version + 1;
        version = static_cast<int16_t>(api->min_version + ((version % span) + span) % span);
    }
    decode_body(api->key, version, frame.subspan(h->body_offset));
    return 0;
}
