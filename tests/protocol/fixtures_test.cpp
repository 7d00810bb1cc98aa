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

#include "protocol/protocol.h"

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
    auto check = [](const auto& r) { return r ? std::string() : r.error().message; };
    switch (static_cast<ApiKey>(key)) {
        case ApiKey::api_versions:
            return check(decode_message<ApiVersionsRequest>(body, version));
        case ApiKey::metadata:
            return check(decode_message<MetadataRequest>(body, version));
        case ApiKey::produce:
            return check(decode_message<ProduceRequest>(body, version));
        case ApiKey::fetch:
            return check(decode_message<FetchRequest>(body, version));
        case ApiKey::list_offsets:
            return check(decode_message<ListOffsetsRequest>(body, version));
        default:
            return "no decoder for API key " + std::to_string(key);
    }
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
