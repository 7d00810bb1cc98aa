// The cleaner's scheduling (storage/cleaner/cleaner_manager.h): which log is cleaned and when,
// cleaner-offset-checkpoint in Kafka's format across restarts, max.compaction.lag.ms, and the
// threads cleaning a due log on their own and stopping.
#include "storage/cleaner/cleaner_manager.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "protocol/record_batch.h"
#include "protocol/record_builder.h"
#include "tests/storage/test_batches.h"

namespace skiff::storage {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

constexpr int64_t kNow = 1'000'000'000;

LogConfig compacted(double min_ratio = 0.01) {
    LogConfig c = test::small_config(600, 100);
    c.cleanup_compact = true;
    c.cleanup_delete = false;
    c.min_cleanable_dirty_ratio = min_ratio;
    return c;
}

// `rounds` updates of keys k0..k(keys-1), one record per batch, timestamps `ts`.
void put_rounds(PartitionLog& log, int rounds, int keys, int64_t ts = kNow - 1000) {
    for (int r = 0; r < rounds; ++r)
        for (int k = 0; k < keys; ++k) {
            protocol::BatchSpec spec;
            spec.base_timestamp = ts;
            protocol::RecordSpec rec;
            rec.key = "k" + std::to_string(k);
            rec.value = "v" + std::to_string(r);
            auto batch = protocol::build_record_batch(spec, {rec});
            auto summaries = protocol::validate_batches(batch);
            ASSERT_TRUE(summaries);
            ASSERT_TRUE(log.append(batch, *summaries));
        }
    // What the broker's maintenance thread does after rolls: only flushed segments are cleanable.
    ASSERT_TRUE(log.flush_rolled());
}

struct Fixture {
    TempDir dir;
    std::unique_ptr<LogManager> logs;
    Fixture() { reopen(); }
    void reopen() {
        logs.reset();
        auto m = LogManager::open(dir.path(), test::small_config(600, 100), [] { return kNow; });
        EXPECT_TRUE(m);
        logs = std::move(*m);
    }
    PartitionLog& make(const std::string& topic, const LogConfig& config) {
        logs->set_topic_config(topic, config);
        auto log = logs->get_or_create({topic, 0});
        EXPECT_TRUE(log);
        return **log;
    }
    CleanerManager manager(CleanerSettings s = {}) {
        return CleanerManager(*logs, std::move(s), [] { return kNow; });
    }
};

int64_t records_in(const PartitionLog& log) {
    int64_t n = 0;
    auto r = log.read(log.log_start_offset(), 1 << 30, true);
    EXPECT_TRUE(r);
    for (const auto& slice : r->slices) {
        auto bytes = test::read_slice(slice);
        auto summaries = protocol::validate_batches(bytes);
        EXPECT_TRUE(summaries);
        for (const auto& s : *summaries)
            n += s.record_count;
    }
    return n;
}

TEST(CleanerManager, CleansADueCompactedLogAndCheckpointsIt) {
    Fixture f;
    auto& log = f.make("c", compacted());
    put_rounds(log, 8, 5);
    const int64_t before = records_in(log);
    auto m = f.manager();
    auto cleaned = m.clean_once();
    ASSERT_TRUE(cleaned);
    EXPECT_EQ(*cleaned, (TopicPartition{"c", 0}));
    EXPECT_LT(records_in(log), before);
    EXPECT_GT(m.checkpoint_of({"c", 0}), 0);
    EXPECT_EQ(m.totals().passes, 1);
    // Kafka's file: version 0, one entry, "topic partition offset".
    auto file = read_checkpoint(f.dir.path() / kCleanerOffsetCheckpoint);
    ASSERT_TRUE(file);
    EXPECT_EQ(file->at({"c", 0}), m.checkpoint_of({"c", 0}));
    // Nothing new: nothing due.
    EXPECT_FALSE(m.clean_once());
}

TEST(CleanerManager, NeverTouchesADeleteLog) {
    Fixture f;
    auto& log = f.make("d", test::small_config(600, 100));
    put_rounds(log, 8, 5);
    const int64_t before = records_in(log);
    auto m = f.manager();
    EXPECT_FALSE(m.clean_once());
    EXPECT_EQ(records_in(log), before);
}

TEST(CleanerManager, TheDirtiestLogFirst) {
    Fixture f;
    auto& a = f.make("a", compacted());
    auto& b = f.make("b", compacted());
    put_rounds(a, 8, 5);
    put_rounds(b, 8, 5);
    auto m = f.manager();
    auto first = m.clean_once();
    ASSERT_TRUE(first);
    // The cleaned one now has a clean head: new updates to both make the other one dirtier.
    auto& cleaned = first->topic == "a" ? a : b;
    auto& other = first->topic == "a" ? b : a;
    put_rounds(cleaned, 2, 5);
    put_rounds(other, 2, 5);
    auto second = m.clean_once();
    ASSERT_TRUE(second);
    EXPECT_NE(second->topic, first->topic);
    (void)other;
}

TEST(CleanerManager, TheCheckpointSurvivesARestart) {
    Fixture f;
    put_rounds(f.make("c", compacted()), 8, 5);
    int64_t checkpoint = 0;
    {
        auto m = f.manager();
        ASSERT_TRUE(m.clean_once());
        checkpoint = m.checkpoint_of({"c", 0});
    }
    f.reopen();
    f.logs->set_topic_config("c", compacted());
    auto m = f.manager();
    EXPECT_EQ(m.checkpoint_of({"c", 0}), checkpoint);
    EXPECT_FALSE(m.clean_once());  // already clean up to there
}

TEST(CleanerManager, BelowTheDirtyRatioOnlyTheMaxCompactionLagForcesAClean) {
    Fixture f;
    LogConfig c = compacted(0.99);
    auto& log = f.make("c", c);
    put_rounds(log, 8, 5, kNow - 10'000);
    {
        auto m = f.manager();
        ASSERT_TRUE(m.clean_once());  // the first pass: everything is dirty (ratio 1)
    }
    put_rounds(log, 2, 5, kNow - 10'000);
    {
        auto m = f.manager();
        EXPECT_FALSE(m.clean_once()) << "ratio below 0.99 and no lag limit";
    }
    c.max_compaction_lag_ms = 60'000;  // the dirty records are 10 s old: not yet
    f.logs->set_topic_config("c", c);
    EXPECT_FALSE(f.manager().clean_once());
    c.max_compaction_lag_ms = 5'000;  // now they are too old
    f.logs->set_topic_config("c", c);
    EXPECT_TRUE(f.manager().clean_once());
}

TEST(CleanerManager, TheThreadsCleanOnTheirOwnAndStop) {
    Fixture f;
    auto& log = f.make("c", compacted());
    put_rounds(log, 8, 5);
    CleanerSettings s;
    s.threads = 2;
    s.backoff_ms = 10;
    auto m = f.manager(s);
    m.start();
    for (int i = 0; i < 500 && m.totals().passes == 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    m.stop();
    EXPECT_GE(m.totals().passes, 1);
    EXPECT_EQ(m.totals().failures, 0);
}

TEST(CleanerManager, DisabledStartsNoThread) {
    Fixture f;
    auto& log = f.make("c", compacted());
    put_rounds(log, 8, 5);
    CleanerSettings s;
    s.enable = false;
    s.backoff_ms = 10;
    auto m = f.manager(s);
    m.start();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    m.stop();
    EXPECT_EQ(m.totals().passes, 0);
}

}  // namespace
}  // namespace skiff::storage
