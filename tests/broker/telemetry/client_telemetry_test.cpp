// The subscription and push state of client telemetry (broker/telemetry/client_telemetry.h), on
// a test clock: instance ids handed out for the zero id, the subscription from the settings,
// Kafka's errors for early, unknown, oversized, badly compressed and malformed pushes (which
// change no kept value), delta sums added up, the client bound (oldest dropped, counted), expiry,
// and the exposition's series names and labels.
#include "broker/telemetry/client_telemetry.h"

#include <gtest/gtest.h>

#include "broker/metrics/exposition.h"
#include "config/broker_config.h"
#include "otlp_builder.h"
#include "protocol/compression/compression.h"

namespace skiff::broker::telemetry::test {
namespace {

using protocol::ErrorCode;

class ClientTelemetryTest : public ::testing::Test {
  protected:
    ClientTelemetryTest() { reset(); }
    void reset(size_t max_clients = 10, int32_t max_bytes = 4096) {
        TelemetrySettings s;
        s.metrics = {"org.apache.kafka."};
        s.push_interval_ms = 1000;
        s.max_bytes = max_bytes;
        s.max_clients = max_clients;
        telemetry = std::make_unique<ClientTelemetry>(s, [this] { return now; });
    }
    protocol::GetTelemetrySubscriptionsResponse subscribe(protocol::Uuid id = {}) {
        protocol::GetTelemetrySubscriptionsRequest req;
        req.client_instance_id = id;
        return telemetry->get_subscriptions(req, who);
    }
    ErrorCode push(const protocol::GetTelemetrySubscriptionsResponse& sub,
                   const std::string& payload, int8_t compression = 0, bool terminating = false) {
        protocol::PushTelemetryRequest req;
        req.client_instance_id = sub.client_instance_id;
        req.subscription_id = sub.subscription_id;
        req.compression_type = compression;
        req.terminating = terminating;
        req.metrics = bytes(payload);
        return telemetry->push(req, who);
    }
    std::string scrape() {
        metrics::Exposition out;
        telemetry->write(out);
        return out.take();
    }
    static std::string counter_payload(int64_t v) {
        return metrics_data({sum("org.apache.kafka.producer.connection.creation.total",
                                 {int_point(v, {{"node.id", "1"}})}, 1)});
    }

    int64_t now = 1'000'000;
    ClientIdentity who{"my-producer", "librdkafka", "2.12.0"};
    std::unique_ptr<ClientTelemetry> telemetry;
};

const std::string kCounter = "skiff_client_org_apache_kafka_producer_connection_creation_total";

TEST_F(ClientTelemetryTest, ZeroIdGetsAnInstanceIdAndTheSubscription) {
    auto sub = subscribe();
    EXPECT_EQ(sub.error_code, ErrorCode::none);
    EXPECT_NE(sub.client_instance_id, protocol::Uuid{});
    EXPECT_EQ(sub.requested_metrics, std::vector<std::string>{"org.apache.kafka."});
    EXPECT_EQ(sub.push_interval_ms, 1000);
    EXPECT_EQ(sub.telemetry_max_bytes, 4096);
    EXPECT_TRUE(sub.delta_temporality);
    EXPECT_EQ(sub.accepted_compression_types, (std::vector<int8_t>{4, 3, 1, 2}));
    auto other = subscribe();
    EXPECT_NE(other.client_instance_id, sub.client_instance_id);
    EXPECT_NE(other.subscription_id, sub.subscription_id);  // XORed with the instance's hash
    EXPECT_EQ(telemetry->clients(), 2u);
}

TEST_F(ClientTelemetryTest, SubscriptionIdFollowsTheSettings) {
    auto sub = subscribe();
    TelemetrySettings s;
    s.metrics = {"org.apache.kafka.producer."};
    s.push_interval_ms = 1000;
    ClientTelemetry changed(s, [this] { return now; });
    protocol::GetTelemetrySubscriptionsRequest req;
    req.client_instance_id = sub.client_instance_id;
    auto again = changed.get_subscriptions(req, who);
    EXPECT_EQ(again.error_code, ErrorCode::none);
    EXPECT_NE(again.subscription_id, sub.subscription_id);
}

TEST_F(ClientTelemetryTest, PushKeepsValuesAndDeltasAddUp) {
    auto sub = subscribe();
    EXPECT_EQ(push(sub, counter_payload(2)), ErrorCode::none);
    now += 1000;
    EXPECT_EQ(push(sub, counter_payload(3)), ErrorCode::none);
    EXPECT_EQ(telemetry->value(sub.client_instance_id, kCounter, {{"node_id", "1"}}), 5.0);
    const std::string text = scrape();
    EXPECT_NE(text.find("# TYPE " + kCounter + " counter"), std::string::npos) << text;
    EXPECT_NE(text.find(kCounter + "{client_id=\"my-producer\",client_instance_id=\""),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("client_software_name=\"librdkafka\",client_software_version=\"2.12.0\","
                        "node_id=\"1\"} 5\n"),
              std::string::npos)
        << text;
}

TEST_F(ClientTelemetryTest, GaugesKeepTheLastValueWithResourceAttributes) {
    auto sub = subscribe();
    auto payload = [](double v) {
        return metrics_data(
            {gauge("org.apache.kafka.consumer.poll.idle.ratio.avg", {double_point(v)})},
            {{"group.id", "g1"}});
    };
    EXPECT_EQ(push(sub, payload(0.25)), ErrorCode::none);
    now += 1000;
    EXPECT_EQ(push(sub, payload(0.5)), ErrorCode::none);
    EXPECT_EQ(telemetry->value(sub.client_instance_id,
                               "skiff_client_org_apache_kafka_consumer_poll_idle_ratio_avg",
                               {{"group_id", "g1"}}),
              0.5);
}

TEST_F(ClientTelemetryTest, CompressedPushesAreRead) {
    const std::string payload = counter_payload(4);
    for (auto codec : {protocol::Compression::gzip, protocol::Compression::snappy,
                       protocol::Compression::lz4, protocol::Compression::zstd}) {
        reset();
        auto sub = subscribe();
        std::vector<std::byte> compressed;
        ASSERT_TRUE(protocol::compression::compress(codec, bytes(payload), compressed));
        EXPECT_EQ(
            push(sub,
                 std::string(reinterpret_cast<const char*>(compressed.data()), compressed.size()),
                 static_cast<int8_t>(codec)),
            ErrorCode::none);
        EXPECT_EQ(telemetry->value(sub.client_instance_id, kCounter, {{"node_id", "1"}}), 4.0);
    }
}

TEST_F(ClientTelemetryTest, BadPushesGetKafkasErrorsAndChangeNothing) {
    auto sub = subscribe();
    ASSERT_EQ(push(sub, counter_payload(1)), ErrorCode::none);
    auto value = [&] {
        return telemetry->value(sub.client_instance_id, kCounter, {{"node_id", "1"}});
    };
    // Before the push interval is over.
    EXPECT_EQ(push(sub, counter_payload(100)), ErrorCode::throttling_quota_exceeded);
    now += 1000;
    // Malformed protobuf.
    EXPECT_EQ(push(sub, "not a protobuf"), ErrorCode::invalid_record);
    now += 1000;
    // Not gzip at all, though it says so.
    EXPECT_EQ(push(sub, counter_payload(100), 1), ErrorCode::invalid_record);
    now += 1000;
    // An unknown codec.
    EXPECT_EQ(push(sub, counter_payload(100), 9), ErrorCode::unsupported_compression_type);
    now += 1000;
    // Over telemetry.max.bytes.
    EXPECT_EQ(push(sub, std::string(4097, 'x')), ErrorCode::telemetry_too_large);
    now += 1000;
    // A subscription id that is not the instance's.
    auto wrong = sub;
    wrong.subscription_id ^= 1;
    EXPECT_EQ(push(wrong, counter_payload(100)), ErrorCode::unknown_subscription_id);
    now += 1000;
    // An instance id skiff never handed out: nothing is made for it.
    auto stranger = sub;
    stranger.client_instance_id.bytes[0] ^= 0xff;
    EXPECT_EQ(push(stranger, counter_payload(100)), ErrorCode::unknown_subscription_id);
    EXPECT_EQ(telemetry->clients(), 1u);
    // The zero id.
    auto zero = sub;
    zero.client_instance_id = {};
    EXPECT_EQ(push(zero, counter_payload(100)), ErrorCode::invalid_request);
    EXPECT_EQ(value(), 1.0);
    const std::string text = scrape();
    EXPECT_NE(text.find("skiff_client_telemetry_pushes_total{error=\"INVALID_RECORD\"} 2"),
              std::string::npos)
        << text;
}

TEST_F(ClientTelemetryTest, InflatingBeyondTheBoundIsTooLarge) {
    auto sub = subscribe();
    // Zeros compress to almost nothing: 4096 * kMaxInflation + 1 of them.
    std::string zeros(4096 * kMaxInflation + 1, '\0');
    std::vector<std::byte> compressed;
    ASSERT_TRUE(
        protocol::compression::compress(protocol::Compression::zstd, bytes(zeros), compressed));
    ASSERT_LE(compressed.size(), 4096u);
    EXPECT_EQ(
        push(sub, std::string(reinterpret_cast<const char*>(compressed.data()), compressed.size()),
             4),
        ErrorCode::telemetry_too_large);
}

TEST_F(ClientTelemetryTest, GetWithinTheIntervalIsThrottledUnlessThePushWasRefused) {
    auto sub = subscribe();
    EXPECT_EQ(subscribe(sub.client_instance_id).error_code, ErrorCode::throttling_quota_exceeded);
    auto wrong = sub;
    wrong.subscription_id ^= 1;
    EXPECT_EQ(push(wrong, counter_payload(1)), ErrorCode::unknown_subscription_id);
    EXPECT_EQ(subscribe(sub.client_instance_id).error_code, ErrorCode::none);
    now += 1000;
    EXPECT_EQ(subscribe(sub.client_instance_id).error_code, ErrorCode::none);
}

TEST_F(ClientTelemetryTest, TerminatingPushIsTheLast) {
    auto sub = subscribe();
    ASSERT_EQ(push(sub, counter_payload(1)), ErrorCode::none);
    // Early, but terminating: accepted.
    EXPECT_EQ(push(sub, counter_payload(1), 0, true), ErrorCode::none);
    now += 5000;
    EXPECT_EQ(push(sub, counter_payload(1)), ErrorCode::invalid_request);
    EXPECT_EQ(telemetry->value(sub.client_instance_id, kCounter, {{"node_id", "1"}}), 2.0);
}

TEST_F(ClientTelemetryTest, OldestClientIsDroppedBeyondTheBoundAndCounted) {
    reset(2);
    auto a = subscribe();
    now += 10;
    auto b = subscribe();
    now += 10;
    ASSERT_EQ(push(a, counter_payload(1)), ErrorCode::none);  // a heard from after b
    now += 10;
    auto c = subscribe();
    EXPECT_EQ(telemetry->clients(), 2u);
    now += 1000;
    EXPECT_EQ(push(b, counter_payload(1)), ErrorCode::unknown_subscription_id);
    EXPECT_EQ(push(a, counter_payload(1)), ErrorCode::none);
    EXPECT_NE(scrape().find("skiff_client_telemetry_clients_dropped_total{reason=\"limit\"} 1"),
              std::string::npos);
}

TEST_F(ClientTelemetryTest, SilentClientsExpireAfterThreeIntervalsOrSixtySeconds) {
    auto sub = subscribe();
    ASSERT_EQ(push(sub, counter_payload(1)), ErrorCode::none);
    now += 60000;
    EXPECT_NE(scrape().find(kCounter + "{"), std::string::npos);
    now += 1;
    const std::string text = scrape();
    EXPECT_EQ(text.find(kCounter + "{"), std::string::npos) << text;
    EXPECT_NE(text.find("skiff_client_telemetry_clients_dropped_total{reason=\"expired\"} 1"),
              std::string::npos);
    EXPECT_EQ(telemetry->clients(), 0u);
}

TEST_F(ClientTelemetryTest, SeriesPerClientAreBounded) {
    reset(10, 1 << 20);
    auto sub = subscribe();
    // Two pushes of 1,500 series each (a push holds at most 2,000 points): 1,000 of the second
    // push's are beyond the bound.
    for (int p = 0; p < 2; ++p) {
        std::vector<std::string> points;
        for (int i = 0; i < 1500; ++i)
            points.push_back(int_point(1, {{"n", std::to_string(p * 1500 + i)}}));
        ASSERT_EQ(push(sub, metrics_data({gauge("org.apache.kafka.g", points)})), ErrorCode::none);
        now += 1000;
    }
    const std::string text = scrape();
    EXPECT_NE(text.find("skiff_client_telemetry_series_dropped_total 1000"), std::string::npos);
    EXPECT_EQ(telemetry->value(sub.client_instance_id, "skiff_client_org_apache_kafka_g",
                               {{"n", "1999"}}),
              1.0);
    EXPECT_FALSE(telemetry->value(sub.client_instance_id, "skiff_client_org_apache_kafka_g",
                                  {{"n", "2000"}}));
}

TEST_F(ClientTelemetryTest, NamesAndLabelsAreSanitizedAndClashesLeftOut) {
    auto sub = subscribe();
    ASSERT_EQ(push(sub, metrics_data({gauge("x-y.z", {int_point(1, {{"client_id", "spoof"},
                                                                    {"__name__", "n"},
                                                                    {"a.b", "1"},
                                                                    {"a_b", "2"},
                                                                    {"9lives", "3"}})}),
                                      gauge("telemetry.clients", {int_point(9)})})),
              ErrorCode::none);
    const std::string text = scrape();
    EXPECT_NE(text.find("skiff_client_x_y_z{client_id=\"my-producer\",client_instance_id="),
              std::string::npos)
        << text;
    EXPECT_NE(text.find(",a_b=\"1\",_9lives=\"3\"} 1\n"), std::string::npos) << text;
    EXPECT_EQ(text.find("spoof"), std::string::npos);
    EXPECT_NE(text.find("skiff_client_telemetry_clients 1\n"), std::string::npos);
}

TEST_F(ClientTelemetryTest, NamesPromtoolWouldRefuseAreMended) {
    auto sub = subscribe();
    ASSERT_EQ(push(sub, metrics_data({gauge("app.queueDepth", {int_point(1)}),
                                      gauge("app.requests.total", {int_point(2)}),
                                      gauge("app.wait.count", {int_point(3)}),
                                      gauge("app.gauge.level", {int_point(4)})})),
              ErrorCode::none);
    const std::string text = scrape();
    EXPECT_NE(text.find("# TYPE skiff_client_app_queue_depth gauge"), std::string::npos) << text;
    EXPECT_NE(text.find("# TYPE skiff_client_app_requests_total_value gauge"), std::string::npos);
    EXPECT_NE(text.find("# TYPE skiff_client_app_wait_count_value gauge"), std::string::npos);
    EXPECT_NE(text.find("# TYPE skiff_client_app_level gauge"), std::string::npos);
}

TEST(TelemetrySettingsTest, FromTheBrokerConfig) {
    config::BrokerConfig c;
    c.client_telemetry_metrics = "org.apache.kafka.producer., org.apache.kafka.consumer.";
    EXPECT_EQ(
        telemetry_settings(c).metrics,
        (std::vector<std::string>{"org.apache.kafka.producer.", "org.apache.kafka.consumer."}));
    c.client_telemetry_metrics = "*";
    EXPECT_EQ(telemetry_settings(c).metrics, std::vector<std::string>{""});
    EXPECT_EQ(telemetry_settings(config::BrokerConfig{}).push_interval_ms, 30000);
    EXPECT_EQ(telemetry_settings(config::BrokerConfig{}).max_bytes, 1048576);
}

}  // namespace
}  // namespace skiff::broker::telemetry::test
