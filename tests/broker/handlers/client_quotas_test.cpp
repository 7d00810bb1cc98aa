// DescribeClientQuotas and AlterClientQuotas (KIP-546) and their enforcement on Produce and Fetch:
// what is set is described back through Kafka's filters and survives a restart; each of Kafka's
// refusals with its message, and a refused entry changes nothing while the others apply; cluster
// DESCRIBE_CONFIGS / ALTER_CONFIGS with an authorizer; a client over its producer_byte_rate gets
// a throttle time (its records stored), one over its consumer_byte_rate an empty fetch with one.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "broker/net/session.h"
#include "broker/quotas/quota_entity.h"
#include "handler_fixture.h"
#include "protocol/client_quotas.h"

namespace skiff::broker::test {
namespace {

using protocol::AlterClientQuotasRequest;
using protocol::DescribeClientQuotasRequest;
using protocol::QuotaEntityComponent;

QuotaEntityComponent user(std::optional<std::string> name) {
    return {"user", std::move(name)};
}
QuotaEntityComponent client(std::optional<std::string> name) {
    return {"client-id", std::move(name)};
}

protocol::QuotaAlterEntry set(std::vector<QuotaEntityComponent> entity, const std::string& key,
                              double value) {
    return {std::move(entity), {{key, value, false}}};
}

class ClientQuotasTest : public HandlerTest {
  protected:
    protocol::AlterClientQuotasResponse alter(std::vector<protocol::QuotaAlterEntry> entries,
                                              bool validate_only = false, int16_t version = 1) {
        AlterClientQuotasRequest req;
        req.entries = std::move(entries);
        req.validate_only = validate_only;
        return run(handle_alter_client_quotas, req, version);
    }
    protocol::DescribeClientQuotasResponse describe(
        std::vector<protocol::QuotaFilterComponent> components = {}, bool strict = false,
        int16_t version = 1) {
        DescribeClientQuotasRequest req;
        req.components = std::move(components);
        req.strict = strict;
        return run(handle_describe_client_quotas, req, version);
    }
    void expect_ok(const protocol::AlterClientQuotasResponse& resp) {
        for (const auto& e : resp.entries)
            EXPECT_EQ(e.error_code, ErrorCode::none) << e.error_message.value_or("");
    }
};

TEST_F(ClientQuotasTest, WhatIsSetIsDescribedBackAndSurvivesARestart) {
    expect_ok(alter({set({user("alice"), client(std::nullopt)}, "producer_byte_rate", 1048576),
                     set({client("app")}, "consumer_byte_rate", 2048)}));
    for (int round = 0; round < 2; ++round) {
        auto all = describe({}, false, static_cast<int16_t>(round));  // v0 and v1
        ASSERT_EQ(all.error_code, ErrorCode::none);
        ASSERT_TRUE(all.entries);
        ASSERT_EQ(all.entries->size(), 2u);
        // Entities in a stable order: those without a user first.
        const auto& a = all.entries->at(1);
        ASSERT_EQ(a.entity.size(), 2u);
        EXPECT_EQ(a.entity[0].entity_type, "user");
        EXPECT_EQ(a.entity[0].entity_name, "alice");
        EXPECT_EQ(a.entity[1].entity_type, "client-id");
        EXPECT_EQ(a.entity[1].entity_name, std::nullopt);  // the default
        ASSERT_EQ(a.values.size(), 1u);
        EXPECT_EQ(a.values[0].key, "producer_byte_rate");
        EXPECT_EQ(a.values[0].value, 1048576);
        restart();
    }
}

TEST_F(ClientQuotasTest, DescribeFiltersAsKafkaDoes) {
    expect_ok(alter({set({user("alice")}, "producer_byte_rate", 1),
                     set({user("alice"), client("app")}, "producer_byte_rate", 2),
                     set({user(std::nullopt)}, "producer_byte_rate", 3),
                     set({client("app")}, "producer_byte_rate", 4)}));
    const auto values_of = [&](std::vector<protocol::QuotaFilterComponent> f, bool strict) {
        std::vector<double> out;
        auto resp = describe(std::move(f), strict);
        EXPECT_EQ(resp.error_code, ErrorCode::none) << resp.error_message.value_or("");
        for (const auto& e : resp.entries.value_or(std::vector<protocol::DescribedQuotaEntry>{}))
            out.push_back(e.values.at(0).value);
        std::sort(out.begin(), out.end());
        return out;
    };
    using V = std::vector<double>;
    EXPECT_EQ(values_of({{"user", 0, "alice"}}, false), (V{1, 2}));
    EXPECT_EQ(values_of({{"user", 0, "alice"}}, true), (V{1}));
    EXPECT_EQ(values_of({{"user", 1, std::nullopt}}, false), (V{3}));
    EXPECT_EQ(values_of({{"user", 2, std::nullopt}}, false), (V{1, 2}));  // named users only
    EXPECT_EQ(values_of({{"client-id", 0, "app"}}, false), (V{2, 4}));
    EXPECT_EQ(values_of({{"client-id", 0, "app"}}, true), (V{4}));
    EXPECT_EQ(values_of({}, true), (V{}));
    EXPECT_EQ(values_of({}, false), (V{1, 2, 3, 4}));
}

TEST_F(ClientQuotasTest, ABadFilterIsKafkasError) {
    const auto error_of = [&](std::vector<protocol::QuotaFilterComponent> f) {
        auto resp = describe(std::move(f));
        EXPECT_FALSE(resp.entries);
        return std::make_pair(resp.error_code, resp.error_message.value_or(""));
    };
    EXPECT_EQ(error_of({{"user", 0, std::nullopt}}),
              std::make_pair(ErrorCode::invalid_request,
                             std::string("Request specified MATCH_TYPE_EXACT, but set match "
                                         "string to null.")));
    EXPECT_EQ(error_of({{"user", 1, "x"}}).first, ErrorCode::invalid_request);
    EXPECT_EQ(error_of({{"user", 2, std::nullopt}, {"user", 1, std::nullopt}}),
              std::make_pair(ErrorCode::invalid_request,
                             std::string("Entity type user cannot appear more than once in the "
                                         "filter.")));
    EXPECT_EQ(error_of({{"group", 2, std::nullopt}}),
              std::make_pair(ErrorCode::unsupported_version,
                             std::string("Unsupported entity type group")));
    EXPECT_EQ(error_of({{"user", 7, std::nullopt}}).first, ErrorCode::unsupported_version);
    EXPECT_EQ(error_of({{"ip", 2, std::nullopt}, {"user", 2, std::nullopt}}).first,
              ErrorCode::invalid_request);
}

TEST_F(ClientQuotasTest, EachRefusalIsKafkasAndChangesNothingOfThatEntry) {
    auto resp = alter({
        {{}, {{"producer_byte_rate", 1, false}}},
        {{user("a"), user("b")}, {{"producer_byte_rate", 1, false}}},
        {{{"group", "g"}}, {{"producer_byte_rate", 1, false}}},
        {{user("")}, {{"producer_byte_rate", 1, false}}},
        set({user("c")}, "bytes_per_fortnight", 1),
        set({user("d")}, "producer_byte_rate", 1.5),
        set({user("e")}, "request_percentage", 50),
        set({{"ip", "127.0.0.1"}}, "connection_creation_rate", 10),
        {{user("f")}, {{"producer_byte_rate", 1, false}, {"producer_byte_rate", 2, false}}},
        set({user("g")}, "producer_byte_rate", 0),
        set({user("ok")}, "producer_byte_rate", 100),
    });
    ASSERT_EQ(resp.entries.size(), 11u);
    const std::vector<std::string> messages = {
        "Invalid empty client quota entity",
        "Invalid empty client quota entity, duplicate entity entry user",
        "Unhandled client quota entity type: group",
        "Empty user not supported",
        "Invalid configuration key bytes_per_fortnight",
        "Configuration producer_byte_rate must be a Long value",
        "skiff does not enforce the quota request_percentage (only producer_byte_rate and "
        "consumer_byte_rate)",
        "skiff does not enforce ip quotas (connection_creation_rate)",
        "Duplicate quota key producer_byte_rate not updating quota for this entity user=f",
        "Configuration producer_byte_rate must be at least 1 byte/s",
    };
    for (size_t i = 0; i < messages.size(); ++i) {
        EXPECT_EQ(resp.entries[i].error_code, ErrorCode::invalid_request) << i;
        EXPECT_EQ(resp.entries[i].error_message, messages[i]) << i;
    }
    EXPECT_EQ(resp.entries[10].error_code, ErrorCode::none);
    // The entity is echoed back as sent.
    EXPECT_EQ(resp.entries[10].entity.at(0).entity_name, "ok");
    auto all = describe();
    ASSERT_EQ(all.entries->size(), 1u);
    EXPECT_EQ(all.entries->at(0).entity.at(0).entity_name, "ok");
}

TEST_F(ClientQuotasTest, ValidateOnlyAndRemoval) {
    expect_ok(alter({set({client("app")}, "producer_byte_rate", 100)}, /*validate_only=*/true));
    EXPECT_TRUE(describe().entries->empty());
    expect_ok(alter({set({client("app")}, "producer_byte_rate", 100),
                     set({client("app2")}, "consumer_byte_rate", 100)}));
    expect_ok(alter({{{client("app")}, {{"producer_byte_rate", 0, true}}}}));
    auto left = describe();
    ASSERT_EQ(left.entries->size(), 1u);
    EXPECT_EQ(left.entries->at(0).entity.at(0).entity_name, "app2");
    // Removing what is not there is fine, as in Kafka.
    expect_ok(alter({{{client("nobody")}, {{"consumer_byte_rate", 0, true}}}}));
}

TEST_F(ClientQuotasTest, ClusterPermissionsAreCheckedWithAnAuthorizer) {
    config.authorizer_class_name = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";
    Session alice;
    alice.principal = "User:alice";
    alice.host = "127.0.0.1";
    session = &alice;
    auto refused = alter({set({client("app")}, "producer_byte_rate", 100)});
    EXPECT_EQ(refused.entries.at(0).error_code, ErrorCode::cluster_authorization_failed);
    EXPECT_EQ(describe().error_code, ErrorCode::cluster_authorization_failed);
    const security::AclBinding alter_configs{security::ResourceType::cluster,
                                             std::string(security::kClusterResourceName),
                                             security::PatternType::literal,
                                             "User:alice",
                                             "*",
                                             security::AclOperation::alter_configs,
                                             security::AclPermission::allow};
    ASSERT_FALSE(broker().authorizer()->acls().add({alter_configs}));
    expect_ok(alter({set({client("app")}, "producer_byte_rate", 100)}));
    // ALTER_CONFIGS implies DESCRIBE_CONFIGS.
    EXPECT_EQ(describe().entries->size(), 1u);
}

TEST_F(ClientQuotasTest, AProducerOverItsQuotaIsToldToWaitAndItsRecordsAreStored) {
    create_topic("t");
    // The handler tests' client id is "handler-test"; another client id's quota is not its own.
    expect_ok(alter({set({client("handler-test")}, "producer_byte_rate", 1000),
                     set({client("someone-else")}, "producer_byte_rate", 1)}));
    // Each request is about 3 KB: the first three fit in 10 s at 1,000 B/s, the fourth does not.
    const auto batch = make_batch(1, {}, std::string(3000, 'x'));
    int32_t first_throttled = -1;
    for (int i = 0; i < 4 && first_throttled < 0; ++i) {
        auto resp = run(handle_produce, produce_request("t", 0, batch), 9);
        EXPECT_EQ(resp.responses.at(0).partition_responses.at(0).error_code, ErrorCode::none);
        EXPECT_EQ(resp.throttle_time_ms, throttle_ms);  // the response says what the mute is
        if (resp.throttle_time_ms > 0)
            first_throttled = i;
    }
    EXPECT_EQ(first_throttled, 3);
    // (4 x ~3 KB / 10 s - 1,000) / 1,000 x 10 s: about 2 s.
    EXPECT_GT(throttle_ms, 1000);
    EXPECT_LT(throttle_ms, 3000);
    EXPECT_EQ(broker().logs().get({"t", 0})->high_watermark(), 4);
}

TEST_F(ClientQuotasTest, AConsumerOverItsQuotaGetsAnEmptyFetchWithTheTimeToWait) {
    create_topic("t");
    const auto batch = make_batch(1, {}, std::string(3000, 'x'));
    for (int i = 0; i < 6; ++i)
        run(handle_produce, produce_request("t", 0, batch), 9);
    expect_ok(alter({set({client("handler-test")}, "consumer_byte_rate", 1000)}));
    // A fetch may hold no more than 1,000 B/s x 10 s: three of the ~3 KB batches.
    auto first = run(handle_fetch, fetch_request("t", 0), 12);
    EXPECT_EQ(first.throttle_time_ms, 0);
    const auto& p = first.responses.at(0).partitions.at(0);
    EXPECT_EQ(batches_in(p.records).size(), 3u);
    // The next three would bring the rate to twice the quota: nothing, and the time to wait.
    auto second = run(handle_fetch, fetch_request("t", 3), 12);
    EXPECT_TRUE(second.responses.empty());
    EXPECT_GT(second.throttle_time_ms, 5000);
    EXPECT_EQ(second.throttle_time_ms, throttle_ms);
    // Without the quota the same fetch is answered at once.
    expect_ok(alter({{{client("handler-test")}, {{"consumer_byte_rate", 0, true}}}}));
    auto third = run(handle_fetch, fetch_request("t", 3), 12);
    EXPECT_EQ(third.throttle_time_ms, 0);
    EXPECT_EQ(batches_in(third.responses.at(0).partitions.at(0).records).size(), 3u);
}

}  // namespace
}  // namespace skiff::broker::test
