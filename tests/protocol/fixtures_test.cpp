// Decodes every captured client request in fixtures/ (see fixtures/README.md): the header with
// decode_request_header, the body with the message type for its API key at its version. Any
// fixture that fails to decode, or that leaves bytes unread, fails the test. Known captures get
// extra field checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "protocol/api_visit.h"
#include "protocol/protocol.h"
#include "protocol/record_batch.h"
#include "protocol/record_iterator.h"

namespace skiff::protocol {
namespace {

namespace fs = std::filesystem;

std::vector<std::byte> read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::byte> out(chars.size());
    std::memcpy(out.data(), chars.data(), chars.size());
    return out;
}

// Decodes the body with the message type of `key`; returns an error message or "".
std::string decode_body(int16_t key, int16_t version, std::span<const std::byte> body) {
    std::string error;
    const bool known = visit_api(key, [&]<class Request, class Response>() {
        auto r = decode_message<Request>(body, version);
        if (!r)
            error = r.error().message;
    });
    return known ? error : "no decoder for API key " + std::to_string(key);
}

std::vector<fs::path> fixtures() {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(SKIFF_PROTOCOL_FIXTURES))
        if (e.path().extension() == ".bin")
            out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

TEST(Fixtures, EveryCapturedRequestDecodes) {
    auto files = fixtures();
    ASSERT_FALSE(files.empty());
    for (const auto& path : files) {
        SCOPED_TRACE(path.filename().string());
        auto frame = read_file(path);
        auto h = decode_request_header(frame);
        ASSERT_TRUE(h) << h.error().message;
        const ApiSupport* api = find_api(h->header.api_key);
        ASSERT_NE(api, nullptr);
        EXPECT_TRUE(api->supports(h->header.api_version));
        // The file name states api and version; the header must agree.
        std::string expected = std::string("_request_v") + std::to_string(h->header.api_version);
        EXPECT_NE(path.filename().string().find(expected), std::string::npos);
        auto body = std::span(frame).subspan(h->body_offset);
        EXPECT_EQ(decode_body(h->header.api_key, h->header.api_version, body), "");
    }
}

TEST(Fixtures, KcatApiVersionsV3) {
    auto path = fs::path(SKIFF_PROTOCOL_FIXTURES) / "kcat_api_versions_request_v3.bin";
    if (!fs::exists(path))
        GTEST_SKIP();
    auto frame = read_file(path);
    auto h = decode_request_header(frame);
    ASSERT_TRUE(h);
    EXPECT_EQ(h->header.api_key, 18);
    EXPECT_EQ(h->header.api_version, 3);
    EXPECT_TRUE(h->flexible);
    EXPECT_EQ(h->header.client_id, "rdkafka");
    auto m = decode_message<ApiVersionsRequest>(std::span(frame).subspan(h->body_offset), 3);
    ASSERT_TRUE(m) << m.error().message;
    EXPECT_EQ(m->client_software_name, "librdkafka");
    EXPECT_FALSE(m->client_software_version.empty());
}

TEST(Fixtures, KafkaPythonApiVersionsV0) {
    auto path = fs::path(SKIFF_PROTOCOL_FIXTURES) / "kafka-python_api_versions_request_v0.bin";
    if (!fs::exists(path))
        GTEST_SKIP();
    auto frame = read_file(path);
    auto h = decode_request_header(frame);
    ASSERT_TRUE(h);
    EXPECT_EQ(h->header.api_version, 0);
    EXPECT_FALSE(h->flexible);
    ASSERT_TRUE(h->header.client_id);
    EXPECT_EQ(h->header.client_id->rfind("kafka-python", 0), 0u);
    EXPECT_EQ(h->body_offset, frame.size());  // v0 body is empty
}

}  // namespace
}  // namespace skiff::protocol

namespace skiff::protocol {
namespace {

// The captures of fixtures/README.md's recording session against skiff: kcat produced "hello"
// with key "key1" to topic "fixtures" and consumed it from the beginning;
// kafka-python produced key "k", value "from kafka-python", then consumed by assign.
template <class Msg>
Msg decode_fixture(const std::string& name, int16_t expected_key) {
    auto frame = read_file(fs::path(SKIFF_PROTOCOL_FIXTURES) / name);
    auto h = decode_request_header(frame);
    EXPECT_TRUE(h) << name;
    if (!h)
        return {};
    EXPECT_EQ(h->header.api_key, expected_key) << name;
    auto m = decode_message<Msg>(std::span<const std::byte>(frame).subspan(h->body_offset),
                                 h->header.api_version);
    EXPECT_TRUE(m) << name << ": " << (m ? "" : m.error().message);
    // Produce records are views into the frame: keep it alive with the message.
    static std::vector<std::vector<std::byte>> keep;
    keep.push_back(std::move(frame));
    return m ? std::move(*m) : Msg{};
}

std::string as_string(const std::optional<std::span<const std::byte>>& b) {
    if (!b)
        return "<null>";
    return std::string(reinterpret_cast<const char*>(b->data()), b->size());
}

void expect_single_record(const ProduceRequest& req, const std::string& key,
                          const std::string& value) {
    ASSERT_EQ(req.topic_data.size(), 1u);
    EXPECT_EQ(req.topic_data[0].name, "fixtures");
    ASSERT_EQ(req.topic_data[0].partition_data.size(), 1u);
    const auto& p = req.topic_data[0].partition_data[0];
    EXPECT_EQ(p.index, 0);
    ASSERT_TRUE(p.records);
    auto batches = validate_batches(*p.records);
    ASSERT_TRUE(batches) << batches.error().message;
    ASSERT_EQ(batches->size(), 1u);
    EXPECT_EQ((*batches)[0].record_count, 1);
    auto records = read_records(*p.records);
    ASSERT_TRUE(records);
    ASSERT_EQ(records->size(), 1u);
    EXPECT_EQ(as_string((*records)[0].key), key);
    EXPECT_EQ(as_string((*records)[0].value), value);
}

TEST(Fixtures, KcatProduceV7CarriesOneValidBatch) {
    auto req = decode_fixture<ProduceRequest>("kcat_produce_request_v7.bin", 0);
    EXPECT_EQ(req.acks, -1);  // librdkafka's default acks=all
    EXPECT_FALSE(req.transactional_id.has_value());
    expect_single_record(req, "key1", "hello");
}

TEST(Fixtures, KafkaPythonProduceV7CarriesOneValidBatch) {
    auto req = decode_fixture<ProduceRequest>("kafka-python_produce_request_v7.bin", 0);
    EXPECT_EQ(req.acks, 1);  // kafka-python's default
    expect_single_record(req, "k", "from kafka-python");
}

TEST(Fixtures, KcatFetchV11) {
    auto req = decode_fixture<FetchRequest>("kcat_fetch_request_v11.bin", 1);
    EXPECT_EQ(req.replica_id, -1);
    EXPECT_EQ(req.session_id, 0);
    EXPECT_EQ(req.session_epoch, -1);  // librdkafka does not use fetch sessions
    ASSERT_EQ(req.topics.size(), 1u);
    EXPECT_EQ(req.topics[0].topic, "fixtures");
    ASSERT_EQ(req.topics[0].partitions.size(), 1u);
    EXPECT_EQ(req.topics[0].partitions[0].partition, 0);
    EXPECT_EQ(req.topics[0].partitions[0].fetch_offset, 0);
}

TEST(Fixtures, KafkaPythonFetchV4) {
    auto req = decode_fixture<FetchRequest>("kafka-python_fetch_request_v4.bin", 1);
    ASSERT_EQ(req.topics.size(), 1u);
    EXPECT_EQ(req.topics[0].topic, "fixtures");
    EXPECT_EQ(req.topics[0].partitions[0].fetch_offset, 0);
}

TEST(Fixtures, KcatListOffsetsV2AsksForEarliest) {
    auto req = decode_fixture<ListOffsetsRequest>("kcat_list_offsets_request_v2.bin", 2);
    ASSERT_EQ(req.topics.size(), 1u);
    EXPECT_EQ(req.topics[0].name, "fixtures");
    ASSERT_EQ(req.topics[0].partitions.size(), 1u);
    EXPECT_EQ(req.topics[0].partitions[0].timestamp, -2);  // kcat -C -o beginning
}

TEST(Fixtures, KafkaPythonListOffsetsV1AsksForEarliestOrLatest) {
    auto req = decode_fixture<ListOffsetsRequest>("kafka-python_list_offsets_request_v1.bin", 2);
    ASSERT_EQ(req.topics.size(), 1u);
    EXPECT_EQ(req.topics[0].name, "fixtures");
    auto ts = req.topics[0].partitions[0].timestamp;
    EXPECT_TRUE(ts == -1 || ts == -2) << ts;
}

TEST(Fixtures, MetadataRequests) {
    auto kcat = decode_fixture<MetadataRequest>("kcat_metadata_request_v4.bin", 3);
    // librdkafka's first Metadata asks for brokers only: an empty (not null) topic list.
    ASSERT_TRUE(kcat.topics.has_value());
    EXPECT_TRUE(kcat.topics->empty());
    // kafka-python's first Metadata is v0 with an empty list, which also means every topic.
    auto kp = decode_fixture<MetadataRequest>("kafka-python_metadata_request_v0.bin", 3);
    ASSERT_TRUE(kp.topics.has_value());
    EXPECT_TRUE(kp.topics->empty());
}

}  // namespace
}  // namespace skiff::protocol
