// The committed-offsets store on a real partition log: commits and tombstones replay after a
// reopen, and the internal log stays bounded (snapshots + size retention) under many commits.
#include "broker/group/offset_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "broker/group/offset_records.h"
#include "storage/partition_log.h"

namespace skiff::broker::group {
namespace {

namespace fs = std::filesystem;

struct OffsetStoreTest : ::testing::Test {
    fs::path dir = fs::temp_directory_path() /
                   ("skiff-offsets-" + std::to_string(::getpid()) + "-" +
                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
    storage::LogConfig config;
    std::unique_ptr<storage::PartitionLog> log;

    void SetUp() override { fs::remove_all(dir); }
    void TearDown() override { fs::remove_all(dir); }

    std::unique_ptr<OffsetStore> open() {
        log.reset();
        auto opened = storage::PartitionLog::open(dir / "__consumer_offsets-0", config);
        EXPECT_TRUE(opened);
        log = std::move(*opened);
        auto store = OffsetStore::open(*log, config);
        EXPECT_TRUE(store) << store.error();
        return std::move(*store);
    }
};

TEST_F(OffsetStoreTest, CommitsAndTombstonesReplayAfterReopen) {
    {
        auto store = open();
        ASSERT_TRUE(store->commit(
            "g1", {{{"t", 0}, {10, 3, "meta-0", 111}}, {{"t", 1}, {20, -1, "", 222}}}));
        ASSERT_TRUE(store->commit("g1", {{{"t", 0}, {15, 4, "meta-1", 333}}}));
        ASSERT_TRUE(store->commit("g2", {{{"u", 5}, {7, -1, "x", 444}}}));
        auto removed = store->remove("g2");
        ASSERT_TRUE(removed);
        EXPECT_EQ(*removed, 1u);
    }
    auto store = open();  // no close: like a kill -9, the appended bytes are all there is
    auto c = store->get("g1", {"t", 0});
    ASSERT_TRUE(c);
    EXPECT_EQ(c->offset, 15);
    EXPECT_EQ(c->leader_epoch, 4);
    EXPECT_EQ(c->metadata, "meta-1");
    EXPECT_EQ(c->commit_timestamp_ms, 333);
    EXPECT_EQ(store->get("g1", {"t", 1})->offset, 20);
    EXPECT_FALSE(store->get("g2", {"u", 5}));
    EXPECT_EQ(store->groups(), std::vector<std::string>{"g1"});
}

TEST_F(OffsetStoreTest, ExpireRemovesOnlyMatchingOffsets) {
    auto store = open();
    ASSERT_TRUE(store->commit("old", {{{"t", 0}, {1, -1, "", 100}}}));
    ASSERT_TRUE(store->commit("new", {{{"t", 0}, {2, -1, "", 900}}}));
    EXPECT_EQ(store->expire([](const std::string&, const CommittedOffset& c) {
        return c.commit_timestamp_ms < 500;
    }),
              1u);
    store = open();
    EXPECT_FALSE(store->get("old", {"t", 0}));
    EXPECT_TRUE(store->get("new", {"t", 0}));
}

TEST_F(OffsetStoreTest, LogStaysBoundedUnderManyCommitsAndKeepsTheLatestState) {
    config.segment_bytes = 8192;
    auto store = open();
    for (int i = 0; i < 3000; ++i) {
        ASSERT_TRUE(store->commit("g", {{{"t", i % 8}, {i, -1, "m", i}}}));
        if (i % 100 == 0)
            log->apply_retention();
    }
    log->apply_retention();
    EXPECT_GT(store->snapshots_written(), 10);
    // Retention keeps about 2 segments plus the active one.
    EXPECT_LE(log->size_bytes(), 4 * 8192) << log->segment_count() << " segments";
    EXPECT_GT(log->log_start_offset(), 0);
    store = open();
    for (int p = 0; p < 8; ++p) {
        auto c = store->get("g", {"t", p});
        ASSERT_TRUE(c) << p;
        EXPECT_EQ(c->offset, 2992 + p);
    }
}

TEST_F(OffsetStoreTest, GroupRecordsKeepTheirLatestValueThroughSnapshotsAndRetention) {
    config.segment_bytes = 8192;
    auto store = open();
    // Keys as Kafka's: the record type (5, member metadata), then the group id.
    auto key = [](int i) { return std::string("\0\x05\0\x01g", 5) + std::to_string(i); };
    for (int i = 0; i < 3000; ++i) {
        store->stage("g", {{key(i % 8), "value-" + std::to_string(i)}});
        ASSERT_TRUE(store->write_staged());
        if (i % 100 == 0)
            log->apply_retention();
    }
    // The same value again is not written; a deleted group's keys go.
    const int64_t end = log->log_end_offset();
    store->stage("g", {{key(0), "value-2992"}});
    ASSERT_TRUE(store->write_staged());
    EXPECT_EQ(log->log_end_offset(), end);
    store->stage("h", {{std::string("\0\x05\0\x01h", 5), "x"}});
    store->stage("h", {}, /*erase_group=*/true);
    ASSERT_TRUE(store->write_staged());
    log->apply_retention();
    EXPECT_GT(log->log_start_offset(), 0);
    EXPECT_LE(log->size_bytes(), 4 * 8192);
    store = open();
    const GroupRecordMap records = store->group_records();
    ASSERT_EQ(records.size(), 1u);
    ASSERT_EQ(records.at("g").size(), 8u);
    for (int p = 0; p < 8; ++p)
        EXPECT_EQ(records.at("g").at(key(p)), "value-" + std::to_string(2992 + p));
}

// Durable mode (the log's flush.messages=1): a commit is appended without a sync and says what
// its caller must wait for; one sync then covers every commit appended before it.
TEST_F(OffsetStoreTest, DurableModeCommitsWaitForOneSharedSync) {
    config.flush_interval_messages = 1;
    auto store = open();
    auto first = store->commit("g", {{{"t", 0}, {10, -1, "", 1}}});
    auto second = store->commit("h", {{{"t", 0}, {20, -1, "", 2}}});
    ASSERT_TRUE(first && second);
    ASSERT_TRUE(*first && *second);
    EXPECT_EQ((*first)->log, log.get());
    EXPECT_EQ((*second)->end, log->log_end_offset());
    EXPECT_LT((*first)->end, (*second)->end);
    // Applied at once (an OffsetFetch sees it), but the log shows nothing unsynced to readers.
    EXPECT_EQ(store->get("h", {"t", 0})->offset, 20);
    EXPECT_LT(log->high_watermark(), (*second)->end);
    int done = 0;
    for (const auto& pending : {**first, **second})
        log->when_durable(pending.end, [&](const auto& r) { done += r ? 1 : 100; });
    EXPECT_EQ(done, 0);
    log->sync_appended();
    EXPECT_EQ(done, 2);
    EXPECT_EQ(log->high_watermark(), (*second)->end);
}

// The writes that stay synchronous (a transaction's marker here) flush what durable mode's
// commits left unsynced before them, and complete their waiters.
TEST_F(OffsetStoreTest, DurableModeMarkerFlushCoversTheTransactionalCommitBeforeIt) {
    config.flush_interval_messages = 1;
    auto store = open();
    auto pending = store->commit_transactional("g", 7, 0, {{{"t", 0}, {5, -1, "", 1}}});
    ASSERT_TRUE(pending && *pending);
    bool synced = false;
    log->when_durable((*pending)->end, [&](const auto& r) { synced = static_cast<bool>(r); });
    EXPECT_FALSE(synced);
    ASSERT_TRUE(store->complete_transaction(7, 0, 0, /*commit=*/true));
    EXPECT_TRUE(synced);
    EXPECT_EQ(store->get("g", {"t", 0})->offset, 5);
}

TEST_F(OffsetStoreTest, DefaultModeCommitsHaveNothingToWaitFor) {
    auto store = open();
    auto committed = store->commit("g", {{{"t", 0}, {10, -1, "", 1}}});
    ASSERT_TRUE(committed);
    EXPECT_FALSE(*committed);
    auto txn = store->commit_transactional("g", 7, 0, {{{"t", 1}, {5, -1, "", 1}}});
    ASSERT_TRUE(txn);
    EXPECT_FALSE(*txn);
    EXPECT_EQ(log->high_watermark(), log->log_end_offset());
}

}  // namespace
}  // namespace skiff::broker::group

namespace skiff::broker::group {
namespace {

// Named apart from coordinator_fixture.h's bytes_of: unity builds may put both in one batch.
std::vector<std::byte> record_bytes_of(const std::string& s) {
    auto b = std::as_bytes(std::span(s.data(), s.size()));
    return {b.begin(), b.end()};
}

// The exact bytes Kafka writes for OffsetCommitKey v1 and OffsetCommitValue v3.
TEST(OffsetRecords, KafkaLayoutOfKeyAndValue) {
    const std::string key = encode_offset_key({"g", "tp", 7});
    const std::string expected_key(
        "\x00\x01"
        "\x00\x01g"
        "\x00\x02tp"
        "\x00\x00\x00\x07",
        13);
    EXPECT_EQ(key, expected_key);

    OffsetCommitValue v;
    v.offset = 42;
    v.leader_epoch = -1;
    v.metadata = "m";
    v.commit_timestamp = 1700000000000;
    const std::string value = encode_offset_value(v);
    ASSERT_EQ(value.size(), 2u + 8 + 4 + 3 + 8);
    EXPECT_EQ(value.substr(0, 2), std::string("\x00\x03", 2));
    EXPECT_EQ(value.substr(2, 8), std::string("\x00\x00\x00\x00\x00\x00\x00\x2a", 8));
    EXPECT_EQ(value.substr(10, 4), std::string("\xff\xff\xff\xff", 4));

    auto k = decode_offset_key(record_bytes_of(key));
    ASSERT_TRUE(k);
    EXPECT_EQ(k->group, "g");
    EXPECT_EQ(k->topic, "tp");
    EXPECT_EQ(k->partition, 7);
    auto back = decode_offset_value(record_bytes_of(value));
    ASSERT_TRUE(back);
    EXPECT_EQ(back->offset, 42);
    EXPECT_EQ(back->metadata, "m");
    EXPECT_EQ(back->commit_timestamp, 1700000000000);
}

TEST(OffsetRecords, OlderValueVersionsAndMalformedBytes) {
    // Value v1 (Kafka 0.9-0.10): no leader epoch, an expire timestamp after the commit time.
    std::string v1(
        "\x00\x01"
        "\x00\x00\x00\x00\x00\x00\x00\x05"
        "\x00\x00"
        "\x00\x00\x00\x00\x00\x00\x00\x09"
        "\x00\x00\x00\x00\x00\x00\x00\x0a",
        28);
    auto old = decode_offset_value(record_bytes_of(v1));
    ASSERT_TRUE(old);
    EXPECT_EQ(old->offset, 5);
    EXPECT_EQ(old->leader_epoch, -1);
    EXPECT_EQ(old->commit_timestamp, 9);

    auto truncated = decode_offset_value(record_bytes_of(encode_offset_value({}).substr(0, 9)));
    ASSERT_FALSE(truncated);
    EXPECT_EQ(truncated.error().field, "offset");
    auto trailing = decode_offset_key(record_bytes_of(encode_offset_key({"g", "t", 0}) + "x"));
    EXPECT_FALSE(trailing);
}

}  // namespace
}  // namespace skiff::broker::group
