// GetTelemetrySubscriptions and PushTelemetry (KIP-714) through their handlers: off by default
// (not advertised, UNSUPPORTED_VERSION as KafkaApis answers without a metrics manager); on, a
// client gets an instance id and its subscription, its pushed metrics reach the broker's
// /metrics text labelled with its client id, and a malformed push is INVALID_RECORD and changes
// nothing.
#include <gtest/gtest.h>

#include <algorithm>

#include "../telemetry/otlp_builder.h"
#include "broker/handlers/advertised_apis.h"
#include "broker/metrics/collector.h"
#include "handler_fixture.h"

namespace skiff::broker::test {
namespace {

namespace tb = telemetry::test;

class ClientTelemetryHandlerTest : public HandlerTest {
  protected:
    bool advertised(protocol::ApiKey key) {
        auto resp = run(handle_api_versions, protocol::ApiVersionsRequest{}, 3);
        return std::any_of(resp.api_keys.begin(), resp.api_keys.end(),
                           [&](const auto& v) { return v.api_key == static_cast<int16_t>(key); });
    }
    protocol::GetTelemetrySubscriptionsResponse subscribe() {
        return run(handle_get_telemetry_subscriptions, protocol::GetTelemetrySubscriptionsRequest{},
                   0);
    }
    protocol::PushTelemetryResponse push(const protocol::GetTelemetrySubscriptionsResponse& sub,
                                         const std::string& payload) {
        protocol::PushTelemetryRequest req;
        req.client_instance_id = sub.client_instance_id;
        req.subscription_id = sub.subscription_id;
        req.metrics = tb::bytes(payload);
        return run(handle_push_telemetry, req, 0);
    }
    std::string scrape() {
        metrics::ScrapeSources sources;
        sources.broker = &broker();
        return metrics::collect(sources);
    }
};

TEST_F(ClientTelemetryHandlerTest, OffByDefault) {
    EXPECT_FALSE(advertised(protocol::ApiKey::get_telemetry_subscriptions));
    EXPECT_FALSE(advertised(protocol::ApiKey::push_telemetry));
    EXPECT_EQ(subscribe().error_code, ErrorCode::unsupported_version);
    protocol::GetTelemetrySubscriptionsResponse sub;
    sub.client_instance_id.bytes[0] = 1;
    EXPECT_EQ(push(sub, "").error_code, ErrorCode::unsupported_version);
    EXPECT_EQ(scrape().find("skiff_client_"), std::string::npos);
}

// A client probing with a too-new ApiVersions gets the v0 UNSUPPORTED_VERSION answer built from
// the same list (request_router.cpp): it must leave the APIs out too, or the client would retry
// with versions of APIs that are off.
TEST_F(ClientTelemetryHandlerTest, TheFallbackListLeavesTheApisOutWhenOff) {
    const auto has = [](const std::vector<protocol::ApiVersion>& apis, protocol::ApiKey key) {
        return std::any_of(apis.begin(), apis.end(),
                           [&](const auto& v) { return v.api_key == static_cast<int16_t>(key); });
    };
    EXPECT_FALSE(has(advertised_apis(broker()), protocol::ApiKey::push_telemetry));
    EXPECT_TRUE(has(advertised_apis(broker()), protocol::ApiKey::produce));
}

TEST_F(ClientTelemetryHandlerTest, OnSubscribesAndExposesPushedMetrics) {
    config.client_telemetry_enable = true;
    config.client_telemetry_push_interval_ms = 5000;
    EXPECT_TRUE(advertised(protocol::ApiKey::get_telemetry_subscriptions));
    EXPECT_TRUE(advertised(protocol::ApiKey::push_telemetry));
    auto sub = subscribe();
    ASSERT_EQ(sub.error_code, ErrorCode::none);
    EXPECT_NE(sub.client_instance_id, protocol::Uuid{});
    EXPECT_EQ(sub.push_interval_ms, 5000);
    EXPECT_EQ(sub.requested_metrics, std::vector<std::string>{"org.apache.kafka."});
    auto resp =
        push(sub, tb::metrics_data({tb::gauge("org.apache.kafka.producer.record.queue.time.max",
                                              {tb::double_point(7.5)})}));
    EXPECT_EQ(resp.error_code, ErrorCode::none);
    const std::string text = scrape();
    EXPECT_NE(text.find("skiff_client_org_apache_kafka_producer_record_queue_time_max{"
                        "client_id=\"handler-test\""),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("} 7.5\n"), std::string::npos) << text;
}

TEST_F(ClientTelemetryHandlerTest, MalformedPushIsInvalidRecordAndChangesNothing) {
    config.client_telemetry_enable = true;
    auto sub = subscribe();
    EXPECT_EQ(push(sub, "\x0a\x7f garbage").error_code, ErrorCode::invalid_record);
    const std::string text = scrape();
    EXPECT_EQ(text.find("skiff_client_org_"), std::string::npos) << text;
    EXPECT_NE(text.find("skiff_client_telemetry_pushes_total{error=\"INVALID_RECORD\"} 1"),
              std::string::npos)
        << text;
}

}  // namespace
}  // namespace skiff::broker::test
