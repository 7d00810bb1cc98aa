// KIP-714's GetTelemetrySubscriptions (71) and PushTelemetry (72) v0: round trips, and the
// request bytes as Kafka's schemas lay them out (flexible from v0: a tag buffer after each).
#include <gtest/gtest.h>

#include "protocol/protocol.h"
#include "test_util.h"

namespace skiff::protocol {
namespace {

using test::for_each_version;
using test::round_trip;

TEST(RoundTrip, GetTelemetrySubscriptions) {
    GetTelemetrySubscriptionsRequest m;
    m.client_instance_id.bytes[3] = 9;
    for_each_version(ApiKey::get_telemetry_subscriptions, [&](int16_t v) {
        round_trip(m, v, [&](const GetTelemetrySubscriptionsRequest& d) {
            EXPECT_EQ(d.client_instance_id, m.client_instance_id);
        });
    });
    GetTelemetrySubscriptionsResponse r;
    r.client_instance_id.bytes[0] = 1;
    r.subscription_id = -5;
    r.accepted_compression_types = {4, 3, 1, 2};
    r.push_interval_ms = 30000;
    r.telemetry_max_bytes = 1048576;
    r.delta_temporality = true;
    r.requested_metrics = {"org.apache.kafka.producer.", ""};
    for_each_version(ApiKey::get_telemetry_subscriptions, [&](int16_t v) {
        round_trip(r, v, [&](const GetTelemetrySubscriptionsResponse& d) {
            EXPECT_EQ(d.client_instance_id, r.client_instance_id);
            EXPECT_EQ(d.subscription_id, -5);
            EXPECT_EQ(d.accepted_compression_types, r.accepted_compression_types);
            EXPECT_EQ(d.push_interval_ms, 30000);
            EXPECT_EQ(d.telemetry_max_bytes, 1048576);
            EXPECT_TRUE(d.delta_temporality);
            EXPECT_EQ(d.requested_metrics, r.requested_metrics);
        });
    });
}

TEST(RoundTrip, PushTelemetry) {
    const std::vector<std::byte> payload = {std::byte{0x0a}, std::byte{0x00}};
    PushTelemetryRequest m;
    m.client_instance_id.bytes[15] = 7;
    m.subscription_id = 12;
    m.terminating = true;
    m.compression_type = 4;
    m.metrics = std::span<const std::byte>(payload);
    for_each_version(ApiKey::push_telemetry, [&](int16_t v) {
        round_trip(m, v, [&](const PushTelemetryRequest& d) {
            EXPECT_EQ(d.client_instance_id, m.client_instance_id);
            EXPECT_EQ(d.subscription_id, 12);
            EXPECT_TRUE(d.terminating);
            EXPECT_EQ(d.compression_type, 4);
            ASSERT_TRUE(d.metrics);
            EXPECT_EQ(std::vector<std::byte>(d.metrics->begin(), d.metrics->end()), payload);
        });
    });
    PushTelemetryResponse r;
    r.error_code = ErrorCode::telemetry_too_large;
    for_each_version(ApiKey::push_telemetry, [&](int16_t v) {
        round_trip(r, v, [&](const PushTelemetryResponse& d) {
            EXPECT_EQ(d.error_code, ErrorCode::telemetry_too_large);
        });
    });
}

TEST(TelemetryMessages, PushRequestBytesAsKafkaLaysThemOut) {
    const std::vector<std::byte> payload = {std::byte{0xab}};
    PushTelemetryRequest m;
    m.client_instance_id.bytes[0] = 0x11;
    m.subscription_id = 0x01020304;
    m.terminating = false;
    m.compression_type = 1;
    m.metrics = std::span<const std::byte>(payload);
    OutBuffer out;
    encode_message(m, 0, out);
    std::vector<uint8_t> got;
    for (auto b : out.bytes())
        got.push_back(static_cast<uint8_t>(b));
    std::vector<uint8_t> want(16, 0);
    want[0] = 0x11;
    // subscription id, terminating, compression, compact bytes (length + 1), payload, no tags
    want.insert(want.end(), {0x01, 0x02, 0x03, 0x04, 0x00, 0x01, 0x02, 0xab, 0x00});
    EXPECT_EQ(got, want);
}

}  // namespace
}  // namespace skiff::protocol
