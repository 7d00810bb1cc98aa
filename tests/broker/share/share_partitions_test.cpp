// The share-partition manager over real __share_group_state partition logs: one write per call,
// snapshots every N updates, replay after a "restart" (a new manager over the same logs, no clean
// shutdown: kill -9), the start offset by share.auto.offset.reset, retention, lock expiry by
// tick(), release_member, delete_group and the offsets admin.
#include "broker/share/share_partitions.h"

#include "share_test_support.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "broker/topics/internal_log.h"

namespace skiff::broker::share {

namespace {

namespace fs = std::filesystem;
using protocol::ErrorCode;
using Acquired = std::vector<AcquiredRecords>;
using namespace ack_type;

struct SharePartitionsTest : ::testing::Test {
    fs::path dir = fs::temp_directory_path() /
                   ("skiff-share-" + std::to_string(::getpid()) + "-" +
                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
    static constexpr int kLogPartitions = 3;
    std::vector<std::unique_ptr<storage::PartitionLog>> logs;
    SharePartitionsConfig config;
    storage::LogConfig log_config;  // of the __share_group_state partitions
    ShareGroupConfig group;
    LogBounds bounds{0, 100, {}};
    int64_t now = 1'000'000;
    int64_t high_watermark = 100;
    protocol::Uuid topic_id{{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}};
    SharePartitionKey key{"g", {"orders", 0}, topic_id};
    std::unique_ptr<SharePartitions> shares;

    void SetUp() override {
        fs::remove_all(dir);
        group.auto_offset_reset = ShareAutoOffsetReset::earliest;
        config.snapshot_update_records = 500;
        open();
    }
    void TearDown() override {
        shares.reset();
        logs.clear();
        fs::remove_all(dir);
    }

    // Opens (or reopens, like a restart after kill -9: nothing is closed) the manager.
    void open() {
        shares.reset();
        logs.clear();
        std::vector<storage::PartitionLog*> raw;
        for (int p = 0; p < kLogPartitions; ++p) {
            auto log = storage::PartitionLog::open(
                dir / ("__share_group_state-" + std::to_string(p)), log_config);
            ASSERT_TRUE(log);
            logs.push_back(std::move(*log));
            raw.push_back(logs.back().get());
        }
        ShareTopicLookup lookup;
        lookup.id = [this](const std::string& t) -> std::optional<protocol::Uuid> {
            if (t == "orders")
                return topic_id;
            return std::nullopt;
        };
        lookup.name = [this](const protocol::Uuid& id) -> std::optional<std::string> {
            if (id == topic_id)
                return std::string("orders");
            return std::nullopt;
        };
        lookup.high_watermark = [this](const storage::TopicPartition&) {
            return std::optional<int64_t>(high_watermark);
        };
        config.clock_ms = [this] { return now; };
        ShareStateLogs state_logs;
        state_logs.existing = raw;
        state_logs.partitions_to_create = kLogPartitions;
        auto opened = SharePartitions::open(state_logs, config, lookup);
        ASSERT_TRUE(opened) << opened.error();
        shares = std::move(*opened);
    }

    int64_t log_records() const {
        int64_t n = 0;
        for (const auto& l : logs)
            n += l->log_end_offset();
        return n;
    }
    std::optional<int64_t> start_of(const std::string& g = "g") {
        return shares->describe_offsets(g, {{"orders", 0}})[{"orders", 0}].start_offset;
    }
    std::optional<int64_t> next() { return shares->next_fetch_offset(key, group, bounds, now); }
    Acquired acquire(const std::string& member, std::vector<FetchedBatch> batches,
                     int32_t max_records = 500) {
        return shares->acquire(key, member, batches, max_records, group, now, unsynced);
    }
    ErrorCode ack(const std::string& member, std::vector<AcknowledgementBatch> batches) {
        return shares->acknowledge(key, member, batches, group, now, unsynced);
    }
    UnsyncedWrites unsynced;  // durable mode's writes (the tests below run in the default mode)
};

// Durable mode (flush.messages=1): an acquisition's and an acknowledgement's records are appended
// without a sync and handed back in `unsynced` for the request to wait for; the initial snapshot
// (no request waits for it) syncs as it is written. In the default mode nothing is handed back.
TEST_F(SharePartitionsTest, DurableModeHandsTheRequestsWritesBackUnsynced) {
    ASSERT_EQ(next(), 0);
    ASSERT_EQ(acquire("m", {{0, 9}}), (Acquired{{0, 9, 1}}));
    EXPECT_TRUE(unsynced.empty());

    log_config.flush_interval_messages = 1;
    key.tp.partition = 1;  // a share-partition of its own, in a durable log
    open();
    ASSERT_EQ(next(), 0);
    EXPECT_TRUE(unsynced.empty());
    ASSERT_EQ(acquire("m", {{0, 9}}), (Acquired{{0, 9, 1}}));
    ASSERT_EQ(unsynced.size(), 1u);
    ASSERT_EQ(ack("m", {{0, 4, {kAccept}}}), ErrorCode::none);
    ASSERT_EQ(unsynced.size(), 2u);
    storage::PartitionLog* log = unsynced[1].log;
    EXPECT_EQ(unsynced[0].log, log);
    EXPECT_EQ(unsynced[1].end, log->log_end_offset());
    EXPECT_LT(log->high_watermark(), unsynced[0].end);  // neither is on disk yet
    log->sync_appended();
    EXPECT_EQ(log->high_watermark(), log->log_end_offset());

    open();  // both replayed: 0-4 acknowledged, 5-9 delivered once and available again
    ASSERT_EQ(acquire("m2", {{0, 9}}), (Acquired{{5, 9, 2}}));
}

TEST_F(SharePartitionsTest, FirstReadStartsByAutoOffsetResetAndIsPersisted) {
    group.auto_offset_reset = ShareAutoOffsetReset::latest;
    bounds = {10, 100, {}};
    EXPECT_EQ(next(), std::nullopt);  // latest: the end, nothing to read yet
    EXPECT_EQ(log_records(), 1);      // the initial snapshot
    EXPECT_EQ(start_of(), 100);
    open();
    EXPECT_EQ(start_of(), 100);
    // earliest, in another group; by_duration through the log's time index.
    SharePartitionKey other{"h", {"orders", 0}, topic_id};
    group.auto_offset_reset = ShareAutoOffsetReset::earliest;
    EXPECT_EQ(shares->next_fetch_offset(other, group, bounds, now), 10);
    group.auto_offset_reset = ShareAutoOffsetReset::by_duration;
    group.by_duration_ms = 60'000;
    int64_t asked = 0;
    bounds.offset_for_time = [&](int64_t ts) -> std::optional<int64_t> {
        asked = ts;
        return 42;
    };
    SharePartitionKey third{"i", {"orders", 0}, topic_id};
    EXPECT_EQ(shares->next_fetch_offset(third, group, bounds, now), 42);
    EXPECT_EQ(asked, now - 60'000);
}

TEST_F(SharePartitionsTest, OneWritePerCallNeverOnePerRecord) {
    ASSERT_EQ(next(), 0);
    const int64_t before = log_records();
    // 100 records in 10 batches, one call: one record.
    std::vector<FetchedBatch> batches;
    for (int64_t b = 0; b < 10; ++b)
        batches.push_back({b * 10, b * 10 + 9});
    EXPECT_EQ(acquire("m1", batches), (Acquired{{0, 99, 1}}));
    EXPECT_EQ(log_records(), before + 1);
    // 100 offsets acknowledged one type per offset, one call: one record.
    std::vector<int8_t> types(100, kAccept);
    types[50] = kRelease;
    EXPECT_EQ(ack("m1", {{0, 99, types}}), ErrorCode::none);
    EXPECT_EQ(log_records(), before + 2);
    // Refused acknowledgements write nothing.
    EXPECT_EQ(ack("m2", {{50, 50, {kAccept}}}), ErrorCode::invalid_record_state);
    EXPECT_EQ(log_records(), before + 2);
    EXPECT_EQ(shares->records_written(), 3);
}

TEST_F(SharePartitionsTest, SnapshotEveryNUpdates) {
    config.snapshot_update_records = 3;
    open();
    ASSERT_EQ(next(), 0);  // initial snapshot
    EXPECT_EQ(shares->snapshots_written(), 1);
    for (int64_t i = 0; i < 8; ++i) {
        ASSERT_EQ(acquire("m", {{i, i}}).size(), 1u);
    }
    // 8 writes after the first snapshot: 3 updates, a snapshot, 3 updates, a snapshot.
    EXPECT_EQ(shares->records_written(), 9);
    EXPECT_EQ(shares->snapshots_written(), 3);
    open();                // replays snapshot + updates
    EXPECT_EQ(next(), 0);  // everything acquired before the restart is available again
    EXPECT_EQ(acquire("m", {{0, 7}}), (Acquired{{0, 7, 2}}));
}

TEST_F(SharePartitionsTest, RestartKeepsAcknowledgedAndDeliveryCounts) {
    ASSERT_EQ(next(), 0);
    ASSERT_EQ(acquire("m1", {{0, 9}, {10, 19}}), (Acquired{{0, 19, 1}}));
    ASSERT_EQ(ack("m1", {{0, 4, {kAccept}}, {10, 12, {kReject}}}), ErrorCode::none);
    ASSERT_EQ(ack("m1", {{5, 5, {kRelease}}}), ErrorCode::none);
    ASSERT_EQ(acquire("m2", {{0, 9}}), (Acquired{{5, 5, 2}}));
    open();  // kill -9: no close, no final snapshot
    // Acknowledged records never again; acquired ones available, their counts kept.
    EXPECT_EQ(next(), 5);
    EXPECT_EQ(acquire("m3", {{0, 9}, {10, 19}, {20, 29}}),
              (Acquired{{5, 5, 3}, {6, 9, 2}, {13, 19, 2}, {20, 29, 1}}));
    // The old member's locks are gone with the broker.
    EXPECT_EQ(ack("m1", {{6, 9, {kAccept}}}), ErrorCode::invalid_record_state);
}

TEST_F(SharePartitionsTest, PoisonRecordReachesItsLimitAcrossRestarts) {
    group.delivery_count_limit = 3;
    ASSERT_EQ(next(), 0);
    for (int16_t delivery = 1; delivery <= 3; ++delivery) {
        ASSERT_EQ(acquire("m", {{0, 0}}), (Acquired{{0, 0, delivery}}));
        open();  // the consumer crashes with the broker every time
        ASSERT_TRUE(next().has_value());
    }
    // Delivered three times: archived, never delivered again.
    EXPECT_TRUE(acquire("m", {{0, 0}}).empty());
    EXPECT_EQ(start_of(), 1);
}

TEST_F(SharePartitionsTest, TickExpiresLocksAndPersists) {
    group.record_lock_duration_ms = 1000;
    ASSERT_EQ(next(), 0);
    ASSERT_EQ(acquire("m1", {{0, 9}}).size(), 1u);
    const int64_t written = shares->records_written();
    shares->tick(now + 999);
    EXPECT_EQ(shares->records_written(), written);  // nothing due: no write
    EXPECT_EQ(ack("m1", {{0, 0, {kAccept}}}), ErrorCode::none);
    shares->tick(now + 1000);
    EXPECT_EQ(shares->records_written(), written + 2);
    now += 1000;
    EXPECT_EQ(ack("m1", {{1, 9, {kAccept}}}), ErrorCode::invalid_record_state);
    EXPECT_EQ(acquire("m2", {{0, 9}}), (Acquired{{1, 9, 2}}));
    auto stats = shares->stats();
    ASSERT_EQ(stats.size(), 1u);
    EXPECT_EQ(stats[0].in_flight, 9);
    EXPECT_EQ(stats[0].lag, 99);
    EXPECT_EQ(stats[0].key.tp.topic, "orders");
}

TEST_F(SharePartitionsTest, ReleaseMemberMakesItsRecordsAvailable) {
    ASSERT_EQ(next(), 0);
    ASSERT_EQ(acquire("m1", {{0, 9}}).size(), 1u);
    ASSERT_EQ(acquire("m2", {{10, 19}}).size(), 1u);
    shares->release_member("g", "m1", now);
    EXPECT_EQ(next(), 0);
    EXPECT_EQ(acquire("m3", {{0, 19}}), (Acquired{{0, 9, 2}}));
    EXPECT_EQ(ack("m2", {{10, 19, {kAccept}}}), ErrorCode::none);
    EXPECT_EQ(ack("m1", {{0, 9, {kAccept}}}), ErrorCode::invalid_record_state);
}

TEST_F(SharePartitionsTest, RetentionMovesTheStartOffsetDurably) {
    ASSERT_EQ(next(), 0);
    ASSERT_EQ(acquire("m1", {{0, 9}}).size(), 1u);
    bounds.log_start_offset = 50;  // DeleteRecords
    EXPECT_EQ(next(), 50);
    open();
    EXPECT_EQ(start_of(), 50);
}

TEST_F(SharePartitionsTest, DeleteGroupWritesTombstones) {
    ASSERT_EQ(next(), 0);
    ASSERT_EQ(acquire("m1", {{0, 9}}).size(), 1u);
    SharePartitionKey p1{"g", {"orders", 1}, topic_id};
    ASSERT_TRUE(shares->next_fetch_offset(p1, group, bounds, now));
    EXPECT_EQ(shares->partitions_with_state("g"),
              (std::vector<storage::TopicPartition>{{"orders", 0}, {"orders", 1}}));
    shares->delete_group("g");
    EXPECT_TRUE(shares->partitions_with_state("g").empty());
    EXPECT_EQ(ack("m1", {{0, 9, {kAccept}}}), ErrorCode::invalid_record_state);
    open();
    EXPECT_TRUE(shares->partitions_with_state("g").empty());
    EXPECT_EQ(shares->share_partition_count(), 0u);
}

TEST_F(SharePartitionsTest, AlterAndDeleteOffsets) {
    ASSERT_EQ(next(), 0);
    ASSERT_EQ(acquire("m1", {{0, 9}}).size(), 1u);
    auto altered = shares->alter_offsets("g", {{{"orders", 0}, 40}, {{"nope", 0}, 1}});
    EXPECT_EQ(altered[(storage::TopicPartition{"orders", 0})], ErrorCode::none);
    EXPECT_EQ(altered[(storage::TopicPartition{"nope", 0})], ErrorCode::unknown_topic_or_partition);
    // In-flight state after the new start offset is gone.
    EXPECT_EQ(ack("m1", {{0, 9, {kAccept}}}), ErrorCode::invalid_record_state);
    EXPECT_EQ(next(), 40);
    high_watermark = 100;
    auto d = shares->describe_offsets("g", {{"orders", 0}, {"orders", 3}, {"nope", 0}});
    EXPECT_EQ(d[(storage::TopicPartition{"orders", 0})].start_offset, 40);
    EXPECT_EQ(d[(storage::TopicPartition{"orders", 0})].lag, 60);
    EXPECT_EQ(d[(storage::TopicPartition{"orders", 3})].start_offset, std::nullopt);
    EXPECT_EQ(d[(storage::TopicPartition{"nope", 0})].error, ErrorCode::unknown_topic_or_partition);
    open();
    EXPECT_EQ(next(), 40);
    auto deleted = shares->delete_offsets("g", {{"orders", 0}});
    EXPECT_EQ(deleted[(storage::TopicPartition{"orders", 0})], ErrorCode::none);
    open();
    EXPECT_EQ(start_of(), std::nullopt);
    // The next read starts over by share.auto.offset.reset (earliest here).
    EXPECT_EQ(next(), 0);
}

TEST_F(SharePartitionsTest, StateGoesToThePartitionKafkaChooses) {
    ASSERT_EQ(next(), 0);
    const int32_t p =
        share_state_partition_for(share_coordinator_key("g", topic_id, 0), kLogPartitions);
    for (int i = 0; i < kLogPartitions; ++i)
        EXPECT_EQ(logs[static_cast<size_t>(i)]->log_end_offset(), i == p ? 1 : 0) << i;
    // The record read back is a ShareSnapshot of this share-partition.
    int seen = 0;
    auto replayed = replay_internal_log(
        *logs[static_cast<size_t>(p)], "__share_group_state",
        [&](const protocol::BatchHeader&,
            const std::vector<protocol::Record>& records) -> Expected<void, std::string> {
            for (const auto& r : records) {
                auto k = decode_share_key(*r.key);
                EXPECT_TRUE(k);
                EXPECT_EQ(k->type, kShareSnapshotType);
                EXPECT_EQ(k->group_id, "g");
                EXPECT_EQ(k->topic_id, topic_id);
                auto v = decode_share_snapshot(*r.value);
                EXPECT_TRUE(v);
                EXPECT_EQ(v->start_offset, 0);
                EXPECT_EQ(v->state_epoch, 0);
                ++seen;
            }
            return {};
        });
    EXPECT_TRUE(replayed);
    EXPECT_EQ(seen, 1);
}

TEST_F(SharePartitionsTest, PruningKeepsWhatReplayNeeds) {
    config.snapshot_update_records = 2;
    config.prune_interval_ms = 0;
    open();
    ASSERT_EQ(next(), 0);
    for (int64_t i = 0; i < 10; ++i)
        ASSERT_EQ(acquire("m", {{i, i}}).size(), 1u);
    ASSERT_EQ(ack("m", {{0, 3, {kAccept}}}), ErrorCode::none);
    shares->tick(now);
    const int32_t p =
        share_state_partition_for(share_coordinator_key("g", topic_id, 0), kLogPartitions);
    EXPECT_GT(logs[static_cast<size_t>(p)]->log_start_offset(), 0);
    open();
    EXPECT_EQ(next(), 4);
    EXPECT_EQ(acquire("m", {{0, 9}}), (Acquired{{4, 9, 2}}));
}

TEST_F(SharePartitionsTest, TopicIsCreatedAtTheFirstWrite) {
    shares.reset();
    ShareStateLogs lazy;
    lazy.partitions_to_create = kLogPartitions;
    int creations = 0;
    lazy.create = [&]() -> Expected<std::vector<storage::PartitionLog*>, std::string> {
        ++creations;
        std::vector<storage::PartitionLog*> raw;
        for (auto& l : logs)
            raw.push_back(l.get());
        return raw;
    };
    ShareTopicLookup lookup;
    auto opened = SharePartitions::open(lazy, config, lookup);
    ASSERT_TRUE(opened) << opened.error();
    EXPECT_EQ(creations, 0);  // no share group, no topic
    (*opened)->tick(now);
    EXPECT_EQ(creations, 0);
    EXPECT_EQ((*opened)->next_fetch_offset(key, group, bounds, now), 0);
    EXPECT_EQ(creations, 1);
    UnsyncedWrites unsynced;
    EXPECT_EQ(
        (*opened)->acquire(key, "m", std::vector<FetchedBatch>{{0, 9}}, 500, group, now, unsynced),
        (Acquired{{0, 9, 1}}));
    EXPECT_EQ(creations, 1);
    EXPECT_EQ(log_records(), 2);
}

}  // namespace
}  // namespace skiff::broker::share

namespace skiff::broker::share {
namespace {

// A __share_group_state made earlier with another partition count (a client's Metadata
// auto-created it) is used as it is: the key hashes over its real partition count.
TEST_F(SharePartitionsTest, ExistingTopicKeepsItsPartitionCount) {
    shares.reset();
    ShareStateLogs lazy;
    lazy.partitions_to_create = 50;
    lazy.create = [&]() -> Expected<std::vector<storage::PartitionLog*>, std::string> {
        return std::vector<storage::PartitionLog*>{logs[0].get(), logs[1].get()};
    };
    auto opened = SharePartitions::open(lazy, config, ShareTopicLookup{});
    ASSERT_TRUE(opened) << opened.error();
    ASSERT_EQ((*opened)->next_fetch_offset(key, group, bounds, now), 0);
    const int32_t p = share_state_partition_for(share_coordinator_key("g", topic_id, 0), 2);
    EXPECT_EQ(logs[static_cast<size_t>(p)]->log_end_offset(), 1);
    EXPECT_EQ(logs[static_cast<size_t>(1 - p)]->log_end_offset(), 0);
}

// broker/control's reset: the manager forgets everything and loads the new (here: no) topic;
// its restore: the state read back from the old logs.
TEST_F(SharePartitionsTest, ReopenLoadsTheGivenLogs) {
    ASSERT_EQ(next(), 0);
    ASSERT_EQ(acquire("m", {{0, 9}}).size(), 1u);
    ASSERT_EQ(ack("m", {{0, 4, {kAccept}}}), ErrorCode::none);
    ASSERT_TRUE(shares->reopen(ShareStateLogs{}));
    EXPECT_EQ(shares->share_partition_count(), 0u);
    EXPECT_EQ(ack("m", {{5, 9, {kAccept}}}), ErrorCode::invalid_record_state);
    ShareStateLogs old;
    for (auto& l : logs)
        old.existing.push_back(l.get());
    ASSERT_TRUE(shares->reopen(old));
    EXPECT_EQ(start_of(), 5);
    EXPECT_EQ(next(), 5);
}

// Four members consume three share-partitions at once while the broker's timer ticks: every
// record is acquired and accepted exactly once, and nothing deadlocks.
TEST_F(SharePartitionsTest, ConcurrentMembersShareEveryRecordOnce) {
    constexpr int64_t kRecords = 20'000;
    bounds.read_end_offset = kRecords;
    std::atomic<int64_t> accepted{0};
    std::atomic<bool> stop{false};
    std::vector<std::thread> threads;
    for (int m = 0; m < 4; ++m)
        threads.emplace_back([&, m] {
            const std::string member = "member-" + std::to_string(m);
            std::vector<FetchedBatch> batches;
            int idle = 0;
            while (idle < 1000) {
                bool any = false;
                for (int32_t p = 0; p < 3; ++p) {
                    SharePartitionKey k{"g", {"orders", p}, topic_id};
                    auto from = shares->next_fetch_offset(k, group, bounds, now);
                    if (!from)
                        continue;
                    batches.clear();
                    for (int64_t b = *from / 10 * 10; b < std::min(*from / 10 * 10 + 50, kRecords);
                         b += 10)
                        batches.push_back({b, b + 9});
                    UnsyncedWrites unsynced;
                    auto got = shares->acquire(k, member, batches, 20, group, now, unsynced);
                    for (const auto& a : got) {
                        ASSERT_EQ(
                            shares->acknowledge(k, member,
                                                std::vector<AcknowledgementBatch>{
                                                    {a.first_offset, a.last_offset, {kAccept}}},
                                                group, now, unsynced),
                            ErrorCode::none);
                        accepted += a.last_offset - a.first_offset + 1;
                        any = true;
                    }
                }
                idle = any ? 0 : idle + 1;
            }
        });
    std::thread ticker([&] {
        while (!stop)
            shares->tick(now);
    });
    for (auto& t : threads)
        t.join();
    stop = true;
    ticker.join();
    EXPECT_EQ(accepted.load(), 3 * kRecords);
    for (int32_t p = 0; p < 3; ++p) {
        auto d = shares->describe_offsets("g", {{"orders", p}});
        EXPECT_EQ(d[(storage::TopicPartition{"orders", p})].start_offset, kRecords) << p;
    }
}

// Not a test: how fast one share-partition goes through acquire + acknowledge, with its writes
// to a real log (run with --gtest_also_run_disabled_tests; it asserts nothing about time).
TEST_F(SharePartitionsTest, DISABLED_Throughput) {
    ASSERT_EQ(next(), 0);
    constexpr int64_t kRecords = 2'000'000;
    constexpr int64_t kPerBatch = 100;  // records per log batch
    constexpr int64_t kPerFetch = 500;  // records per ShareFetch
    bounds.read_end_offset = kRecords;
    const auto started = std::chrono::steady_clock::now();
    std::vector<FetchedBatch> batches;
    for (int64_t fetch = 0; fetch < kRecords; fetch += kPerFetch) {
        batches.clear();
        for (int64_t b = fetch; b < fetch + kPerFetch; b += kPerBatch)
            batches.push_back({b, b + kPerBatch - 1});
        auto got = acquire("m", batches);
        ASSERT_EQ(got.size(), 1u);
        ASSERT_EQ(ack("m", {{got[0].first_offset, got[0].last_offset, {kAccept}}}),
                  ErrorCode::none);
    }
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::printf("%lld records, %lld writes in %.3f s: %.0f records/s\n",
                static_cast<long long>(kRecords), static_cast<long long>(shares->records_written()),
                s, static_cast<double>(kRecords) / s);
    EXPECT_EQ(start_of(), kRecords);
}

}  // namespace
}  // namespace skiff::broker::share
