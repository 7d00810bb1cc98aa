// Shared by the console's unit tests: a real Broker over a temporary log directory (the handler
// tests' fixture), the real request router, and a ConsoleEndpoint answering HttpRequests built
// here, without a socket. Routes reach the broker through the same Kafka handlers as clients.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "broker/console/console_endpoint.h"
#include "broker/request_router.h"
#include "protocol/produce.h"
#include "protocol/record_builder.h"
#include "tests/broker/handlers/handler_fixture.h"

namespace skiff::broker::test {

class ConsoleTest : public HandlerTest {
  protected:
    ConsoleTest() { settings.read_only = false; }

    console::ConsoleEndpoint& endpoint() {
        if (!endpoint_)
            endpoint_ =
                std::make_unique<console::ConsoleEndpoint>(broker(), router_, settings, basic_auth);
        return *endpoint_;
    }

    http::HttpResponse request(const std::string& method, const std::string& target,
                               const std::string& body = {},
                               std::vector<std::pair<std::string, std::string>> headers = {}) {
        http::HttpRequest r;
        r.method = method;
        r.target = target;
        const auto q = target.find('?');
        r.path = target.substr(0, q);
        r.query = q == std::string::npos ? "" : target.substr(q + 1);
        r.headers = std::move(headers);
        r.headers.emplace_back("host", "127.0.0.1:8080");
        r.body = body;
        r.peer = "127.0.0.1:40000";
        return endpoint().answer(r);
    }
    http::HttpResponse get(const std::string& target) { return request("GET", target); }

    // Produces `count` records ("v0", "v1"... padded to `value_bytes`) in one batch, through the
    // Produce handler (so the partitions' traffic counters move as for a client).
    void produce(const std::string& topic, int32_t partition, int count, size_t value_bytes = 0) {
        std::vector<protocol::RecordSpec> records;
        for (int i = 0; i < count; ++i) {
            protocol::RecordSpec r;
            r.key = "k" + std::to_string(i);
            r.value = "v" + std::to_string(i);
            if (r.value->size() < value_bytes)
                r.value->append(value_bytes - r.value->size(), 'x');
            r.timestamp_delta = i;
            records.push_back(std::move(r));
        }
        protocol::BatchSpec spec;
        spec.base_timestamp = 1733400000000;
        auto batch = protocol::build_record_batch(spec, records);
        protocol::ProduceRequest req;
        req.acks = -1;
        req.timeout_ms = 1000;
        protocol::TopicProduceData t;
        t.name = topic;
        t.partition_data.push_back({partition, std::span<const std::byte>(batch)});
        req.topic_data.push_back(std::move(t));
        auto resp = run(handle_produce, req, 9);
        ASSERT_EQ(resp.responses.at(0).partition_responses.at(0).error_code, ErrorCode::none);
    }

    // The JSON body of an answer (fails the test when it is not JSON).
    static nlohmann::json json_of(const http::HttpResponse& r) {
        auto parsed = nlohmann::json::parse(r.body, nullptr, false);
        EXPECT_FALSE(parsed.is_discarded()) << r.body;
        return parsed;
    }

    console::ConsoleSettings settings;
    bool basic_auth = false;

  private:
    RequestRouter router_;
    std::unique_ptr<console::ConsoleEndpoint> endpoint_;
};

}  // namespace skiff::broker::test
