// FindCoordinator: this broker coordinates every group and every transactional id; a share
// group coordinator (v6, key type 2) is refused with INVALID_REQUEST, as Kafka without share
// groups does.
#include <gtest/gtest.h>

#include "handler_fixture.h"
#include "protocol/find_coordinator.h"

namespace skiff::broker::test {
namespace {

using protocol::FindCoordinatorRequest;

using FindCoordinatorTest = HandlerTest;

TEST_F(FindCoordinatorTest, ThisBrokerForAGroupBeforeV4) {
    for (int16_t v = 0; v <= 3; ++v) {
        FindCoordinatorRequest req;
        req.key = "g";
        auto r = run(handle_find_coordinator, req, v);
        EXPECT_EQ(r.error_code, ErrorCode::none) << "v" << v;
        EXPECT_EQ(r.node_id, 1) << "v" << v;
        EXPECT_EQ(r.host, "127.0.0.1") << "v" << v;
        EXPECT_EQ(r.port, 9092) << "v" << v;
        EXPECT_TRUE(r.coordinators.empty());
    }
}

TEST_F(FindCoordinatorTest, AdvertisesTheListenerTheClientCameThrough) {
    config.listeners = {config::Listener{"A", "0.0.0.0", 9092},
                        config::Listener{"B", "127.0.0.1", 9093}};
    config.advertised_listeners = {config::Listener{"B", "b.example", 19093}};
    listener = "B";
    FindCoordinatorRequest req;
    req.key = "g";
    auto r = run(handle_find_coordinator, req, 3);
    EXPECT_EQ(r.host, "b.example");
    EXPECT_EQ(r.port, 19093);
    req.coordinator_keys = {"g"};
    r = run(handle_find_coordinator, req, 4);
    ASSERT_EQ(r.coordinators.size(), 1u);
    EXPECT_EQ(r.coordinators[0].host, "b.example");
    EXPECT_EQ(r.coordinators[0].port, 19093);
}

TEST_F(FindCoordinatorTest, OneAnswerPerKeyFromV4) {
    for (int16_t v = 4; v <= 6; ++v) {
        FindCoordinatorRequest req;
        req.coordinator_keys = {"g1", "g2"};
        auto r = run(handle_find_coordinator, req, v);
        ASSERT_EQ(r.coordinators.size(), 2u);
        for (size_t i = 0; i < 2; ++i) {
            EXPECT_EQ(r.coordinators[i].key, req.coordinator_keys[i]);
            EXPECT_EQ(r.coordinators[i].error_code, ErrorCode::none);
            EXPECT_EQ(r.coordinators[i].node_id, 1);
            EXPECT_EQ(r.coordinators[i].host, "127.0.0.1");
            EXPECT_EQ(r.coordinators[i].port, 9092);
        }
    }
}

TEST_F(FindCoordinatorTest, NoShareCoordinator) {
    FindCoordinatorRequest req;
    req.key_type = protocol::kCoordinatorKeyShare;
    req.coordinator_keys = {"share-group"};
    auto r = run(handle_find_coordinator, req, 6);
    ASSERT_EQ(r.coordinators.size(), 1u);
    EXPECT_EQ(r.coordinators[0].key, "share-group");
    EXPECT_EQ(r.coordinators[0].error_code, ErrorCode::invalid_request);
    EXPECT_EQ(r.coordinators[0].node_id, -1);
    EXPECT_EQ(r.coordinators[0].port, -1);
    // A key type nobody knows gets the same.
    req.key_type = 7;
    EXPECT_EQ(run(handle_find_coordinator, req, 6).coordinators.at(0).error_code,
              ErrorCode::invalid_request);
}

TEST_F(FindCoordinatorTest, ThisBrokerForATransactionalId) {
    for (int16_t v = 1; v <= 3; ++v) {
        FindCoordinatorRequest req;
        req.key = "tx";
        req.key_type = protocol::kCoordinatorKeyTransaction;
        auto r = run(handle_find_coordinator, req, v);
        EXPECT_EQ(r.error_code, ErrorCode::none) << "v" << v;
        EXPECT_EQ(r.node_id, 1) << "v" << v;
        EXPECT_EQ(r.host, "127.0.0.1") << "v" << v;
        EXPECT_EQ(r.port, 9092) << "v" << v;
    }
    FindCoordinatorRequest req;
    req.key_type = protocol::kCoordinatorKeyTransaction;
    req.coordinator_keys = {"tx", "tx-2"};
    auto v4 = run(handle_find_coordinator, req, 4);
    ASSERT_EQ(v4.coordinators.size(), 2u);
    for (const auto& c : v4.coordinators) {
        EXPECT_EQ(c.error_code, ErrorCode::none);
        EXPECT_EQ(c.node_id, 1);
        EXPECT_EQ(c.port, 9092);
    }
    EXPECT_EQ(v4.coordinators[1].key, "tx-2");
}

}  // namespace
}  // namespace skiff::broker::test
