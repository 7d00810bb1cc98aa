// One share-partition's state machine (broker/share/share_partition.h), without persistence:
// acquisition by batches, acknowledgement by ranges, release, reject, renew, lock expiry on a
// fake clock, the delivery count limit, the in-flight limit, skip batches, the start offset and
// retention.
#include "broker/share/share_partition.h"

#include "share_test_support.h"

#include <gtest/gtest.h>

namespace skiff::broker::share {

namespace {

using protocol::ErrorCode;

constexpr MemberRef kAlice = 1;
constexpr MemberRef kBob = 2;
using namespace ack_type;

struct SharePartitionTest : ::testing::Test {
    SharePartition sp{0};
    int64_t now = 1000;
    int16_t limit = 5;
    int32_t locks = 2000;
    int32_t lock_ms = 30000;

    std::vector<AcquiredRecords> acquire(MemberRef m, std::vector<FetchedBatch> batches,
                                         int32_t max_records = 500) {
        std::vector<AcquiredRecords> out;
        AcquireLimits l{max_records, limit, locks, now + lock_ms};
        sp.acquire(m, batches, l, out);
        return out;
    }
    ErrorCode ack(MemberRef m, std::vector<AcknowledgementBatch> batches, bool* durable = nullptr) {
        auto e = sp.check_acknowledgements(m, batches, now);
        if (e != ErrorCode::none)
            return e;
        bool d = false;
        sp.acknowledge(batches, limit, now + lock_ms, d);
        if (durable)
            *durable = d;
        return e;
    }
    std::vector<ShareStateBatch> state() const {
        std::vector<ShareStateBatch> out;
        sp.write_batches(std::nullopt, out);
        return out;
    }
};

TEST_F(SharePartitionTest, AcquiresWholeBatchesAndCountsDeliveries) {
    EXPECT_EQ(sp.next_fetch_offset(30, locks), 0);
    auto got = acquire(kAlice, {{0, 9}, {10, 19}});
    // Adjacent batches of one delivery count come back as one range.
    ASSERT_EQ(got, (std::vector<AcquiredRecords>{{0, 19, 1}}));
    EXPECT_EQ(sp.acquired_records(), 20);
    EXPECT_EQ(sp.end_offset(), 20);
    EXPECT_EQ(sp.next_fetch_offset(30, locks), 20);
    // Nothing acquired twice: a second member gets only what is new.
    got = acquire(kBob, {{0, 9}, {10, 19}, {20, 29}});
    EXPECT_EQ(got, (std::vector<AcquiredRecords>{{20, 29, 1}}));
    EXPECT_EQ(sp.next_fetch_offset(30, locks), std::nullopt);
}

TEST_F(SharePartitionTest, MaxRecordsStopsAtWholeBatches) {
    auto got = acquire(kAlice, {{0, 9}, {10, 19}, {20, 29}}, 15);
    // Batch-optimized: the second batch is taken whole (overshoot), the third not at all.
    EXPECT_EQ(got, (std::vector<AcquiredRecords>{{0, 19, 1}}));
    EXPECT_EQ(sp.end_offset(), 20);
}

TEST_F(SharePartitionTest, AcceptMovesTheStartOffset) {
    acquire(kAlice, {{0, 9}});
    EXPECT_EQ(ack(kAlice, {{0, 4, {kAccept}}}), ErrorCode::none);
    EXPECT_EQ(sp.start_offset(), 5);
    EXPECT_EQ(sp.acquired_records(), 5);
    EXPECT_EQ(ack(kAlice, {{5, 9, {kAccept}}}), ErrorCode::none);
    EXPECT_EQ(sp.start_offset(), 10);
    EXPECT_EQ(sp.range_count(), 0u);  // the state before the start offset is dropped
    EXPECT_EQ(sp.next_fetch_offset(20, locks), 10);
}

TEST_F(SharePartitionTest, ReleasedRecordsAreRedeliveredWithTheirCount) {
    acquire(kAlice, {{0, 9}});
    ASSERT_EQ(ack(kAlice, {{3, 5, {kRelease}}}), ErrorCode::none);
    EXPECT_EQ(sp.available_records(), 3);
    EXPECT_EQ(sp.next_fetch_offset(10, locks), 3);
    // The fetch reads from 3 and passes the batch [0, 9]: only 3..5 are available.
    auto got = acquire(kBob, {{0, 9}});
    EXPECT_EQ(got, (std::vector<AcquiredRecords>{{3, 5, 2}}));
    // Alice still holds 0..2 and 6..9; Bob 3..5.
    EXPECT_EQ(ack(kBob, {{3, 5, {kAccept}}}), ErrorCode::none);
    EXPECT_EQ(ack(kAlice, {{0, 2, {kAccept}}}), ErrorCode::none);
    EXPECT_EQ(sp.start_offset(), 6);
}

TEST_F(SharePartitionTest, RejectedRecordsAreNeverDeliveredAgain) {
    acquire(kAlice, {{0, 9}});
    ASSERT_EQ(ack(kAlice, {{0, 9, {kReject}}}), ErrorCode::none);
    EXPECT_EQ(sp.start_offset(), 10);
    EXPECT_TRUE(acquire(kBob, {{0, 9}}).empty());
}

TEST_F(SharePartitionTest, PerOffsetTypesApplyAsRuns) {
    acquire(kAlice, {{0, 5}});
    ASSERT_EQ(ack(kAlice, {{0, 5, {kAccept, kAccept, kRelease, kReject, 0, kAccept}}}),
              ErrorCode::none);
    EXPECT_EQ(sp.start_offset(), 2);
    // 2 released, 3 rejected and 4 a gap (both archived, one range again), 5 accepted.
    EXPECT_EQ(state(), (std::vector<ShareStateBatch>{{2, 2, kPersistedAvailable, 1},
                                                     {3, 4, kPersistedArchived, 1},
                                                     {5, 5, kPersistedAcknowledged, 1}}));
}

TEST_F(SharePartitionTest, WrongMemberOrExpiredLockChangesNothing) {
    acquire(kAlice, {{0, 9}});
    const auto before = state();
    EXPECT_EQ(ack(kBob, {{0, 9, {kAccept}}}), ErrorCode::invalid_record_state);
    // One bad offset among good ones: all or nothing.
    acquire(kBob, {{10, 19}});
    EXPECT_EQ(ack(kAlice, {{0, 4, {kAccept}}, {8, 12, {kAccept}}}),
              ErrorCode::invalid_record_state);
    EXPECT_EQ(sp.start_offset(), 0);
    now += lock_ms;  // the lock's deadline: expired
    EXPECT_EQ(ack(kAlice, {{0, 9, {kAccept}}}), ErrorCode::invalid_record_state);
    EXPECT_EQ(ack(kAlice, {{100, 109, {kAccept}}}), ErrorCode::invalid_record_state);
    EXPECT_EQ(sp.start_offset(), 0);
    EXPECT_EQ(sp.acquired_records(), 20);
    auto after = state();
    after.pop_back();  // Bob's batch
    EXPECT_EQ(after, before);
}

TEST_F(SharePartitionTest, MalformedAcknowledgementsAreInvalidRequests) {
    acquire(kAlice, {{0, 9}});
    EXPECT_EQ(ack(kAlice, {{5, 4, {kAccept}}}), ErrorCode::invalid_request);
    EXPECT_EQ(ack(kAlice, {{0, 5, {kAccept}}, {5, 9, {kAccept}}}), ErrorCode::invalid_request);
    EXPECT_EQ(ack(kAlice, {{5, 9, {kAccept}}, {0, 3, {kAccept}}}), ErrorCode::invalid_request);
    EXPECT_EQ(ack(kAlice, {{0, 9, {kAccept, kAccept}}}), ErrorCode::invalid_request);
    EXPECT_EQ(ack(kAlice, {{0, 9, {}}}), ErrorCode::invalid_request);
    EXPECT_EQ(ack(kAlice, {{0, 9, {5}}}), ErrorCode::invalid_request);
    EXPECT_EQ(sp.acquired_records(), 10);
}

TEST_F(SharePartitionTest, LocksExpireOnTheClock) {
    acquire(kAlice, {{0, 9}});
    EXPECT_TRUE(sp.expire_locks(now + lock_ms - 1, limit).empty());
    EXPECT_EQ(sp.acquired_records(), 10);
    auto w = sp.expire_locks(now + lock_ms, limit);
    EXPECT_EQ(w.lo, 0);
    EXPECT_EQ(w.hi, 9);
    EXPECT_EQ(sp.available_records(), 10);
    EXPECT_EQ(sp.next_fetch_offset(10, locks), 0);
    now += lock_ms;
    EXPECT_EQ(acquire(kBob, {{0, 9}}), (std::vector<AcquiredRecords>{{0, 9, 2}}));
}

TEST_F(SharePartitionTest, RenewExtendsTheLockWithoutADurableChange) {
    acquire(kAlice, {{0, 9}});
    now += lock_ms - 1;
    bool durable = true;
    ASSERT_EQ(ack(kAlice, {{0, 9, {kRenew}}}, &durable), ErrorCode::none);
    EXPECT_FALSE(durable);
    now += 10;  // past the first deadline, not the renewed one
    EXPECT_TRUE(sp.expire_locks(now, limit).empty());
    EXPECT_EQ(ack(kAlice, {{0, 9, {kAccept}}}, &durable), ErrorCode::none);
    EXPECT_TRUE(durable);
    EXPECT_EQ(sp.start_offset(), 10);
}

TEST_F(SharePartitionTest, DeliveryLimitArchives) {
    limit = 3;
    for (int16_t delivery = 1; delivery <= 3; ++delivery) {
        auto got = acquire(kAlice, {{0, 0}});
        ASSERT_EQ(got, (std::vector<AcquiredRecords>{{0, 0, delivery}}));
        ASSERT_EQ(ack(kAlice, {{0, 0, {kRelease}}}), ErrorCode::none);
    }
    // The third release reached the limit: archived, and the start offset moved past it.
    EXPECT_EQ(sp.start_offset(), 1);
    EXPECT_TRUE(acquire(kAlice, {{0, 0}}).empty());
}

TEST_F(SharePartitionTest, DeliveryLimitArchivesOnLockExpiry) {
    limit = 2;
    acquire(kAlice, {{0, 4}});
    sp.expire_locks(now + lock_ms, limit);
    now += lock_ms;
    acquire(kAlice, {{0, 4}});
    sp.expire_locks(now + lock_ms, limit);
    EXPECT_EQ(sp.start_offset(), 5);
    EXPECT_EQ(sp.available_records(), 0);
}

TEST_F(SharePartitionTest, ReleaseMemberGivesBackOnlyItsRecords) {
    acquire(kAlice, {{0, 9}});
    acquire(kBob, {{10, 19}});
    auto w = sp.release(kAlice, limit);
    EXPECT_EQ(w.lo, 0);
    EXPECT_EQ(w.hi, 9);
    EXPECT_EQ(sp.available_records(), 10);
    EXPECT_EQ(sp.acquired_records(), 10);
    EXPECT_EQ(ack(kBob, {{10, 19, {kAccept}}}), ErrorCode::none);
}

TEST_F(SharePartitionTest, InFlightLimitStopsNewAcquisitions) {
    locks = 15;
    auto got = acquire(kAlice, {{0, 9}, {10, 19}, {20, 29}});
    // The first batch fits, the second starts below the limit and is taken whole.
    EXPECT_EQ(got, (std::vector<AcquiredRecords>{{0, 19, 1}}));
    EXPECT_EQ(sp.next_fetch_offset(30, locks), std::nullopt);
    ASSERT_EQ(ack(kAlice, {{0, 9, {kAccept}}}), ErrorCode::none);
    EXPECT_EQ(sp.next_fetch_offset(30, locks), 20);
    // Released records are acquired again whatever the limit.
    ASSERT_EQ(ack(kAlice, {{10, 19, {kRelease}}}), ErrorCode::none);
    EXPECT_EQ(sp.next_fetch_offset(30, locks), 10);
}

TEST_F(SharePartitionTest, SkipBatchesAreArchivedNeverAcquired) {
    FetchedBatch marker{10, 10, true};
    auto got = acquire(kAlice, {{0, 9}, marker, {11, 19}});
    EXPECT_EQ(got, (std::vector<AcquiredRecords>{{0, 9, 1}, {11, 19, 1}}));
    ASSERT_EQ(ack(kAlice, {{0, 9, {kAccept}}}), ErrorCode::none);
    EXPECT_EQ(sp.start_offset(), 11);  // past the control record
    // An aborted transaction's batch at the start: archived, start offset past it.
    SharePartition other(0);
    std::vector<AcquiredRecords> out;
    FetchedBatch aborted{0, 4, true};
    other.acquire(kAlice, std::span(&aborted, 1), {500, limit, locks, now + lock_ms}, out);
    EXPECT_TRUE(out.empty());
    EXPECT_EQ(other.start_offset(), 5);
}

TEST_F(SharePartitionTest, GapsBetweenBatchesAreArchived) {
    // Compaction removed 10..19: the next batch read after 9 starts at 20.
    auto got = acquire(kAlice, {{0, 9}, {20, 29}});
    EXPECT_EQ(got, (std::vector<AcquiredRecords>{{0, 9, 1}, {20, 29, 1}}));
    ASSERT_EQ(ack(kAlice, {{0, 9, {kAccept}}}), ErrorCode::none);
    EXPECT_EQ(sp.start_offset(), 20);
}

TEST_F(SharePartitionTest, RecordsBelowTheStartOffsetAreNeverDelivered) {
    SharePartition late(50);
    std::vector<AcquiredRecords> out;
    std::vector<FetchedBatch> batches{{40, 59}};
    late.acquire(kAlice, batches, {500, limit, locks, now + lock_ms}, out);
    EXPECT_EQ(out, (std::vector<AcquiredRecords>{{50, 59, 1}}));
}

TEST_F(SharePartitionTest, RetentionMovesTheStartOffset) {
    acquire(kAlice, {{0, 9}});
    ASSERT_EQ(ack(kAlice, {{0, 4, {kRelease}}}), ErrorCode::none);
    EXPECT_TRUE(sp.move_start_to(7));
    EXPECT_EQ(sp.start_offset(), 7);
    EXPECT_EQ(sp.available_records(), 0);
    EXPECT_EQ(sp.acquired_records(), 3);
    EXPECT_FALSE(sp.move_start_to(3));
    // Beyond everything tracked.
    EXPECT_TRUE(sp.move_start_to(100));
    EXPECT_EQ(sp.next_fetch_offset(110, locks), 100);
    EXPECT_EQ(sp.acquired_records(), 0);
}

TEST_F(SharePartitionTest, RangesMergeAgainAfterSplits) {
    acquire(kAlice, {{0, 99}});
    ASSERT_EQ(ack(kAlice, {{10, 19, {kRelease}}, {30, 39, {kRelease}}}), ErrorCode::none);
    EXPECT_EQ(sp.range_count(), 5u);
    acquire(kAlice, {{0, 99}});  // re-acquires 10..19 and 30..39 (count 2), 1 lock deadline
    ASSERT_EQ(ack(kAlice, {{0, 99, {kAccept}}}), ErrorCode::none);
    EXPECT_EQ(sp.range_count(), 0u);
    EXPECT_EQ(sp.start_offset(), 100);
}

TEST_F(SharePartitionTest, LagCountsWhatIsNotDone) {
    acquire(kAlice, {{0, 9}});
    ASSERT_EQ(ack(kAlice, {{2, 3, {kAccept}}}), ErrorCode::none);
    EXPECT_EQ(sp.lag(50), 48);
    ASSERT_EQ(ack(kAlice, {{0, 1, {kAccept}}}), ErrorCode::none);
    EXPECT_EQ(sp.lag(50), 46);
}

TEST_F(SharePartitionTest, RestoreReadsAcquiredAsAvailableAndKeepsCounts) {
    acquire(kAlice, {{0, 9}});
    ASSERT_EQ(ack(kAlice, {{0, 2, {kAccept}}, {5, 5, {kRelease}}}), ErrorCode::none);
    SharePartition again(sp.start_offset());
    for (const auto& b : state())
        again.restore(b);
    again.finish_restore();
    EXPECT_EQ(again.start_offset(), 3);
    EXPECT_EQ(again.end_offset(), 10);
    EXPECT_EQ(again.acquired_records(), 0);
    EXPECT_EQ(again.available_records(), 7);
    std::vector<AcquiredRecords> out;
    std::vector<FetchedBatch> batches{{0, 9}};
    again.acquire(kBob, batches, {500, limit, locks, now + lock_ms}, out);
    EXPECT_EQ(out, (std::vector<AcquiredRecords>{{3, 9, 2}}));
}

}  // namespace
}  // namespace skiff::broker::share
