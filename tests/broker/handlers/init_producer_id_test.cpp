// InitProducerId: every non-transactional request gets a fresh producer id with epoch 0, even
// when it names an id and epoch (v3+, KIP-360); a transactional id keeps its producer id and gets
// the next epoch (the transaction coordinator's own tests are tests/broker/
// transaction_coordinator_test.cpp, the transaction APIs' tests transactions_test.cpp).
#include <gtest/gtest.h>

#include <set>

#include "handler_fixture.h"
#include "protocol/init_producer_id.h"

namespace skiff::broker::test {
namespace {

using protocol::InitProducerIdRequest;

constexpr int16_t kLatestInitProducerId = 4;

using InitProducerIdTest = HandlerTest;

TEST_F(InitProducerIdTest, AFreshIdWithEpochZeroEveryTime) {
    std::set<int64_t> ids;
    for (int i = 0; i < 3; ++i) {
        auto r = run(handle_init_producer_id, InitProducerIdRequest{}, kLatestInitProducerId);
        EXPECT_EQ(r.error_code, ErrorCode::none);
        EXPECT_GE(r.producer_id, 0);
        EXPECT_EQ(r.producer_epoch, 0);
        EXPECT_TRUE(broker().producer_ids().issued(r.producer_id));
        ids.insert(r.producer_id);
    }
    EXPECT_EQ(ids.size(), 3u);
}

TEST_F(InitProducerIdTest, AnIdAndEpochInTheRequestAreNotHonoured) {
    auto first = run(handle_init_producer_id, InitProducerIdRequest{}, kLatestInitProducerId);
    ASSERT_EQ(first.error_code, ErrorCode::none);
    for (int16_t v : {int16_t{3}, int16_t{4}}) {
        for (auto [id, epoch] :
             {std::pair<int64_t, int16_t>{0, 0}, {first.producer_id, 0}, {first.producer_id, 5}}) {
            InitProducerIdRequest req;
            req.producer_id = id;
            req.producer_epoch = epoch;
            auto r = run(handle_init_producer_id, req, v);
            EXPECT_EQ(r.error_code, ErrorCode::none);
            EXPECT_NE(r.producer_id, first.producer_id) << "v" << v << " id " << id;
            EXPECT_NE(r.producer_id, id) << "v" << v;
            EXPECT_EQ(r.producer_epoch, 0) << "v" << v << " epoch " << epoch;
        }
    }
}

TEST_F(InitProducerIdTest, ATransactionalIdKeepsItsProducerIdAndBumpsTheEpoch) {
    InitProducerIdRequest req;
    req.transactional_id = "tx-1";
    req.transaction_timeout_ms = 60000;
    auto first = run(handle_init_producer_id, req, kLatestInitProducerId);
    EXPECT_EQ(first.error_code, ErrorCode::none);
    EXPECT_GE(first.producer_id, 0);
    EXPECT_EQ(first.producer_epoch, 0);
    EXPECT_TRUE(broker().producer_ids().issued(first.producer_id));
    auto second = run(handle_init_producer_id, req, kLatestInitProducerId);
    EXPECT_EQ(second.error_code, ErrorCode::none);
    EXPECT_EQ(second.producer_id, first.producer_id);
    EXPECT_EQ(second.producer_epoch, 1);
}

TEST_F(InitProducerIdTest, ATimeoutAboveTheMaximumIsRefused) {
    config.transaction_max_timeout_ms = 60000;
    InitProducerIdRequest req;
    req.transactional_id = "tx-1";
    req.transaction_timeout_ms = 60001;
    auto r = run(handle_init_producer_id, req, kLatestInitProducerId);
    EXPECT_EQ(r.error_code, ErrorCode::invalid_transaction_timeout);
    EXPECT_EQ(r.producer_id, -1);
    EXPECT_EQ(r.producer_epoch, -1);
}

// Kafka: INVALID_REQUEST (an empty id is neither idempotent-only nor a valid transactional id).
TEST_F(InitProducerIdTest, AnEmptyTransactionalIdIsInvalid) {
    InitProducerIdRequest req;
    req.transactional_id = "";
    req.transaction_timeout_ms = 60000;
    auto r = run(handle_init_producer_id, req, kLatestInitProducerId);
    EXPECT_EQ(r.error_code, ErrorCode::invalid_request);
    EXPECT_EQ(r.producer_id, -1);
}

// PRODUCER_FENCED exists from v4; v3 gets INVALID_PRODUCER_EPOCH for the same stale epoch.
TEST_F(InitProducerIdTest, AStaleExpectedEpochIsFencedPerVersion) {
    InitProducerIdRequest req;
    req.transactional_id = "tx-1";
    req.transaction_timeout_ms = 60000;
    auto first = run(handle_init_producer_id, req, kLatestInitProducerId);
    run(handle_init_producer_id, req, kLatestInitProducerId);  // epoch 1
    run(handle_init_producer_id, req,
        kLatestInitProducerId);  // epoch 2: epoch 0 is neither current nor last
    req.producer_id = first.producer_id;
    req.producer_epoch = first.producer_epoch;
    EXPECT_EQ(run(handle_init_producer_id, req, 4).error_code, ErrorCode::producer_fenced);
    EXPECT_EQ(run(handle_init_producer_id, req, 3).error_code, ErrorCode::invalid_producer_epoch);
}

TEST_F(InitProducerIdTest, IdsAreNotReusedAfterARestartOfTheAllocator) {
    auto before = run(handle_init_producer_id, InitProducerIdRequest{}, kLatestInitProducerId);
    // A second allocator over the same log dir (what a restarted broker would build).
    ProducerIdAllocator restarted(broker().logs().log_dir());
    EXPECT_TRUE(restarted.issued(before.producer_id));
    EXPECT_GT(restarted.next(), before.producer_id);
}

TEST_F(InitProducerIdTest, V6TwoPhaseCommitIsRefusedAsKafkaDoesWithItOff) {
    InitProducerIdRequest two_pc;
    two_pc.transactional_id = "t";
    two_pc.enable_2pc = true;
    auto r = run(handle_init_producer_id, two_pc, 6);
    EXPECT_EQ(r.error_code, ErrorCode::transactional_id_authorization_failed);
    EXPECT_EQ(r.producer_id, -1);
    InitProducerIdRequest keep;
    keep.keep_prepared_txn = true;
    r = run(handle_init_producer_id, keep, 6);
    EXPECT_EQ(r.error_code, ErrorCode::unsupported_version);
    EXPECT_EQ(r.producer_id, -1);
    // Neither flag: an idempotent producer's id, with no ongoing transaction to report.
    r = run(handle_init_producer_id, InitProducerIdRequest{}, 6);
    EXPECT_EQ(r.error_code, ErrorCode::none);
    EXPECT_GE(r.producer_id, 0);
    EXPECT_EQ(r.ongoing_txn_producer_id, -1);
    EXPECT_EQ(r.ongoing_txn_producer_epoch, -1);
}

TEST_F(InitProducerIdTest, EverySupportedVersion) {
    for (int16_t v = 0; v <= 6; ++v) {
        auto r = run(handle_init_producer_id, InitProducerIdRequest{}, v);
        EXPECT_EQ(r.error_code, ErrorCode::none) << "v" << v;
        EXPECT_EQ(r.producer_epoch, 0) << "v" << v;
    }
}

}  // namespace
}  // namespace skiff::broker::test
