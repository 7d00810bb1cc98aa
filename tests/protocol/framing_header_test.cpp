#include <gtest/gtest.h>

#include "protocol/api_table.h"
#include "protocol/api_versions.h"
#include "protocol/error_code.h"
#include "protocol/frame.h"
#include "protocol/request_header.h"
#include "protocol/wire.h"
#include "test_util.h"

namespace skiff::protocol {
namespace {

using test::bytes;

TEST(Frame, NeedMoreCompleteAndErrors) {
    EXPECT_EQ(parse_frame(bytes({0, 0, 0}), kDefaultMaxFrameSize).status,
              FrameParse::Status::need_more);
    auto partial = bytes({0, 0, 0, 5, 1, 2});
    auto p = parse_frame(partial, kDefaultMaxFrameSize);
    EXPECT_EQ(p.status, FrameParse::Status::need_more);
    EXPECT_EQ(p.frame_size, 5);
    auto full = bytes({0, 0, 0, 2, 1, 2, 9});  // a byte of the next frame follows
    p = parse_frame(full, kDefaultMaxFrameSize);
    EXPECT_EQ(p.status, FrameParse::Status::complete);
    EXPECT_EQ(p.frame_size, 2);
    EXPECT_EQ(parse_frame(bytes({0, 0, 0, 0}), kDefaultMaxFrameSize).status,
              FrameParse::Status::complete);

    p = parse_frame(bytes({0xff, 0xff, 0xff, 0xff}), kDefaultMaxFrameSize);
    EXPECT_EQ(p.status, FrameParse::Status::error);
    EXPECT_NE(p.error.find("negative"), std::string::npos);
    p = parse_frame(bytes({0x7f, 0xff, 0xff, 0xff}), kDefaultMaxFrameSize);
    EXPECT_EQ(p.status, FrameParse::Status::error);
    EXPECT_NE(p.error.find("socket.request.max.bytes"), std::string::npos);
    EXPECT_EQ(parse_frame(bytes({0, 0, 1, 1}), 256).status, FrameParse::Status::error);
    EXPECT_EQ(parse_frame(bytes({0, 0, 1, 0}), 256).status, FrameParse::Status::need_more);
}

TEST(ApiTable, RangesServeEveryClient) {
    auto contains = [](ApiKey k, int16_t v) {
        const ApiSupport* a = find_api(k);
        return a != nullptr && a->supports(v);
    };
    // docs/clients.md: librdkafka turns features off unless these versions are inside the ranges.
    EXPECT_TRUE(contains(ApiKey::produce, 0));
    EXPECT_TRUE(contains(ApiKey::produce, 3));
    EXPECT_TRUE(contains(ApiKey::produce, 7));
    EXPECT_TRUE(contains(ApiKey::fetch, 4));
    EXPECT_TRUE(contains(ApiKey::fetch, 10));
    EXPECT_TRUE(contains(ApiKey::fetch, 11));
    EXPECT_TRUE(contains(ApiKey::api_versions, 0));
    EXPECT_TRUE(contains(ApiKey::api_versions, 3));
    EXPECT_TRUE(contains(ApiKey::metadata, 0));
    EXPECT_TRUE(contains(ApiKey::list_offsets, 1));
    EXPECT_EQ(find_api(ApiKey::metadata)->first_flexible_version, 9);
    EXPECT_EQ(find_api(ApiKey::fetch)->first_flexible_version, 12);
    EXPECT_EQ(find_api(int16_t{99}), nullptr);
    EXPECT_EQ(find_api(int16_t{-1}), nullptr);
    EXPECT_STREQ(api_name(ApiKey::list_offsets), "ListOffsets");
    EXPECT_EQ(response_header_version(ApiKey::api_versions, 3), 0);
    EXPECT_EQ(response_header_version(ApiKey::metadata, 9), 1);
    EXPECT_EQ(response_header_version(ApiKey::metadata, 8), 0);
}

TEST(ErrorCodes, NumbersAndNames) {
    EXPECT_EQ(static_cast<int16_t>(ErrorCode::unsupported_version), 35);
    EXPECT_EQ(static_cast<int16_t>(ErrorCode::unknown_server_error), -1);
    EXPECT_EQ(static_cast<int16_t>(ErrorCode::not_leader_or_follower), 6);
    EXPECT_EQ(static_cast<int16_t>(ErrorCode::unsupported_compression_type), 76);
    EXPECT_EQ(static_cast<int16_t>(ErrorCode::kafka_storage_error), 56);
    EXPECT_EQ(static_cast<int16_t>(ErrorCode::member_id_required), 79);
    EXPECT_EQ(static_cast<int16_t>(ErrorCode::invalid_record), 87);
    EXPECT_STREQ(error_name(ErrorCode::unsupported_version), "UNSUPPORTED_VERSION");
    EXPECT_STREQ(error_name(ErrorCode::none), "NONE");
    EXPECT_STREQ(error_name(static_cast<ErrorCode>(-77)), "UNKNOWN_ERROR_CODE");
}

TEST(RequestHeader, V1AndV2) {
    // Metadata v1, correlation 7, client "ab": header v1.
    auto v1 = bytes({0, 3, 0, 1, 0, 0, 0, 7, 0, 2, 'a', 'b', 0xee});
    auto h = decode_request_header(v1);
    ASSERT_TRUE(h) << h.error().message;
    EXPECT_EQ(h->header.api_key, 3);
    EXPECT_EQ(h->header.api_version, 1);
    EXPECT_EQ(h->header.correlation_id, 7);
    EXPECT_EQ(h->header.client_id, "ab");
    EXPECT_FALSE(h->flexible);
    EXPECT_EQ(h->body_offset, 12u);

    // Metadata v9 is flexible: client id keeps its int16 length, then a tag buffer with one
    // unknown tag that must be skipped.
    auto v2 = bytes({0, 3, 0, 9, 0, 0, 0, 8, 0xff, 0xff, 1, 5, 2, 0xaa, 0xbb, 0xee});
    h = decode_request_header(v2);
    ASSERT_TRUE(h) << h.error().message;
    EXPECT_EQ(h->header.client_id, std::nullopt);
    EXPECT_TRUE(h->flexible);
    EXPECT_EQ(h->body_offset, 15u);

    // ApiVersions v9 is unsupported: read as v1 so the broker can answer it.
    auto unknown = bytes({0, 18, 0, 9, 0, 0, 0, 1, 0, 0, 5});
    h = decode_request_header(unknown);
    ASSERT_TRUE(h);
    EXPECT_FALSE(h->flexible);
    EXPECT_EQ(h->body_offset, 10u);
}

TEST(RequestHeader, EveryTruncationIsAnError) {
    auto full = bytes({0, 3, 0, 9, 0, 0, 0, 8, 0, 2, 'a', 'b', 1, 5, 2, 0xaa, 0xbb});
    ASSERT_TRUE(decode_request_header(full));
    for (size_t n = 0; n < full.size(); ++n) {
        auto h = decode_request_header(std::span(full).first(n));
        EXPECT_FALSE(h) << n;
    }
    EXPECT_EQ(peek_correlation_id(full), 8);
    EXPECT_EQ(peek_correlation_id(std::span(full).first(7)), std::nullopt);
}

TEST(ApiVersions, UnsupportedVersionAnswer) {
    OutBuffer out;
    encode_api_versions_unsupported(42, out);
    auto frame = out.bytes();
    auto parsed = parse_frame(frame, kDefaultMaxFrameSize);
    ASSERT_EQ(parsed.status, FrameParse::Status::complete);
    ASSERT_EQ(static_cast<size_t>(parsed.frame_size) + 4, frame.size());
    EXPECT_EQ(wire::load_be<int32_t>(frame.data() + 4), 42);
    // Header v0: the body starts right after the correlation id.
    auto body = decode_message<ApiVersionsResponse>(frame.subspan(8), 0);
    ASSERT_TRUE(body) << body.error().message;
    EXPECT_EQ(body->error_code, ErrorCode::unsupported_version);
    bool has_api_versions = false;
    for (const ApiVersion& a : body->api_keys)
        if (a.api_key == 18 && a.min_version == 0 && a.max_version == 4)
            has_api_versions = true;
    EXPECT_TRUE(has_api_versions);
}

TEST(ApiVersions, V3ResponseUsesHeaderV0AndCompactBody) {
    OutBuffer out;
    encode_response(make_api_versions_response(), 3, 5, out);
    auto frame = out.bytes();
    // size | correlation id | error_code (int16) | compact array count ...
    EXPECT_EQ(wire::load_be<int16_t>(frame.data() + 8), 0);
    EXPECT_EQ(static_cast<uint8_t>(frame[10]), supported_apis().size() + 1);
    auto body = decode_message<ApiVersionsResponse>(frame.subspan(8), 3);
    ASSERT_TRUE(body) << body.error().message;
    EXPECT_EQ(body->api_keys.size(), supported_apis().size());
}

}  // namespace
}  // namespace skiff::protocol
