// Durable mode (flush.messages=1) with group commit: an append is acknowledged and visible only
// once on disk, and one sync covers every append made before it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>

#include "storage/group_commit.h"
#include "storage/partition_log.h"
#include "storage/sync_timing.h"
#include "tests/storage/test_batches.h"

namespace skiff::storage {
namespace {

using test::TempDir;

std::atomic<int> g_log_syncs{0};
std::atomic<int> g_file_syncs{0};

void count_syncs(SyncKind kind, int64_t) {
    (kind == SyncKind::log_flush ? g_log_syncs : g_file_syncs)++;
}

struct CountSyncs {
    CountSyncs() {
        g_log_syncs = 0;
        g_file_syncs = 0;
        set_sync_observer(count_syncs);
    }
    ~CountSyncs() { set_sync_observer(nullptr); }
};

LogConfig durable() {
    LogConfig c = test::config();
    c.flush_interval_messages = 1;
    return c;
}

AppendResult append_deferred(PartitionLog& log, int64_t timestamp) {
    auto bytes = test::make_batch(2, 150, timestamp);
    auto summaries = protocol::validate_batches(bytes);
    EXPECT_TRUE(summaries);
    auto r = log.append(bytes, *summaries, AppendOrigin::client, Durability::group_commit);
    EXPECT_TRUE(r) << (r ? "" : r.error().message);
    return r ? *r : AppendResult{};
}

// Counts the completions of when_durable and keeps the last result.
struct Done {
    int calls = 0;
    bool ok = false;
    PartitionLog::SyncDone callback() {
        return [this](const Expected<void, StorageError>& r) {
            ++calls;
            ok = r.has_value();
        };
    }
};

TEST(GroupCommitTest, AnAppendIsNeitherAcknowledgedNorVisibleBeforeItsSync) {
    TempDir dir;
    auto log = PartitionLog::open(dir.path(), durable(), test::fixed_now);
    ASSERT_TRUE(log);
    ASSERT_TRUE((*log)->durable_mode());
    auto appended = append_deferred(**log, 1000);
    ASSERT_TRUE(appended.sync_pending);
    EXPECT_EQ(appended.base_offset, 0);
    EXPECT_EQ((*log)->log_end_offset(), 2);
    EXPECT_EQ((*log)->high_watermark(), 0);  // not on disk: no reader sees it
    EXPECT_EQ((*log)->last_stable_offset(), 0);
    auto read = (*log)->read(0, 1 << 20, true);
    ASSERT_TRUE(read);
    EXPECT_TRUE(read->slices.empty());
    EXPECT_EQ(read->high_watermark, 0);
    EXPECT_FALSE((*log)->offset_for_timestamp(0));

    Done done;
    (*log)->when_durable(appended.last_offset + 1, done.callback());
    EXPECT_EQ(done.calls, 0);
    (*log)->sync_appended();
    EXPECT_EQ(done.calls, 1);
    EXPECT_TRUE(done.ok);
    EXPECT_EQ((*log)->high_watermark(), 2);
    read = (*log)->read(0, 1 << 20, true);
    ASSERT_TRUE(read);
    EXPECT_EQ(read->total_bytes, 150);
    EXPECT_EQ(read->high_watermark, 2);
    // Already durable: completed at once.
    Done again;
    (*log)->when_durable(2, again.callback());
    EXPECT_EQ(again.calls, 1);
}

TEST(GroupCommitTest, OneSyncAcknowledgesEveryAppendMadeBeforeIt) {
    TempDir dir;
    auto log = PartitionLog::open(dir.path(), durable(), test::fixed_now);
    ASSERT_TRUE(log);
    std::vector<Done> done(3);  // 3 x 150 bytes: one 800-byte segment
    for (auto& d : done) {
        auto a = append_deferred(**log, 1000);
        (*log)->when_durable(a.last_offset + 1, d.callback());
    }
    CountSyncs counter;
    (*log)->sync_appended();
    for (const auto& d : done) {
        EXPECT_EQ(d.calls, 1);
        EXPECT_TRUE(d.ok);
    }
    // One fdatasync, of the .log (the directory is synced too, not counted as a file).
    EXPECT_EQ(g_log_syncs.load(), 1);
    EXPECT_EQ(g_file_syncs.load(), 1);
    EXPECT_EQ((*log)->high_watermark(), 6);
    // Nothing new: the next sync does nothing.
    (*log)->sync_appended();
    EXPECT_EQ(g_log_syncs.load(), 1);
    // The indexes stay above the recovery point: recovery rebuilds them from the synced .log.
    EXPECT_EQ((*log)->recovery_point(), 0);
}

TEST(GroupCommitTest, ASyncAfterARollCoversBothSegmentsAndTheDirectory) {
    TempDir dir;
    auto log = PartitionLog::open(dir.path(), durable(), test::fixed_now);
    ASSERT_TRUE(log);
    Done done;
    int64_t end = 0;
    for (int i = 0; i < 6; ++i)  // 900 bytes: the sixth batch rolls
        end = append_deferred(**log, 1000 + i).last_offset + 1;
    ASSERT_EQ((*log)->segment_count(), 2u);
    (*log)->when_durable(end, done.callback());
    CountSyncs counter;
    (*log)->sync_appended();
    EXPECT_EQ(done.calls, 1);
    EXPECT_EQ(g_file_syncs.load(), 2);  // both .log files
    EXPECT_EQ((*log)->high_watermark(), 12);
}

TEST(GroupCommitTest, InternalWritersAndOtherModesFlushAsTheirSettingsSay) {
    TempDir dir;
    auto log = PartitionLog::open(dir.path(), durable(), test::fixed_now);
    ASSERT_TRUE(log);
    // Durability::flush_settings in durable mode: flushed on the appending thread, visible.
    auto internal = test::append_batch(**log, 2, 150);
    EXPECT_FALSE(internal.sync_pending);
    EXPECT_EQ((*log)->high_watermark(), 2);
    EXPECT_EQ((*log)->recovery_point(), 2);

    TempDir other;
    auto by_default = PartitionLog::open(other.path(), test::config(), test::fixed_now);
    ASSERT_TRUE(by_default);
    EXPECT_FALSE((*by_default)->durable_mode());
    auto a = append_deferred(**by_default, 1000);
    EXPECT_FALSE(a.sync_pending);
    EXPECT_EQ((*by_default)->high_watermark(), 2);  // visible at once, flushed later
}

TEST(GroupCommitTest, CloseAndLeavingDurableModeCompleteTheWaiters) {
    TempDir dir;
    auto log = PartitionLog::open(dir.path(), durable(), test::fixed_now);
    ASSERT_TRUE(log);
    Done done;
    (*log)->when_durable(append_deferred(**log, 1000).last_offset + 1, done.callback());
    (*log)->update_config(test::config());  // out of durable mode: flushed, everything visible
    EXPECT_EQ(done.calls, 1);
    EXPECT_TRUE(done.ok);
    EXPECT_FALSE((*log)->durable_mode());
    EXPECT_EQ((*log)->high_watermark(), 2);

    (*log)->update_config(durable());
    Done closing;
    (*log)->when_durable(append_deferred(**log, 1000).last_offset + 1, closing.callback());
    EXPECT_EQ((*log)->high_watermark(), 2);
    ASSERT_TRUE((*log)->close());
    EXPECT_EQ(closing.calls, 1);
    EXPECT_TRUE(closing.ok);
}

TEST(GroupCommitTest, TheCommitterThreadsSyncWhatIsRequested) {
    TempDir dir;
    auto log = PartitionLog::open(dir.path(), durable(), test::fixed_now);
    ASSERT_TRUE(log);
    GroupCommitter committer(2);
    std::promise<bool> synced;
    auto a = append_deferred(**log, 1000);
    (*log)->when_durable(a.last_offset + 1, [&](const Expected<void, StorageError>& r) {
        synced.set_value(r.has_value());
    });
    committer.request(log->get());
    committer.request(log->get());  // queued once
    auto f = synced.get_future();
    ASSERT_EQ(f.wait_for(std::chrono::seconds(10)), std::future_status::ready);
    EXPECT_TRUE(f.get());
    committer.forget(log->get());
    EXPECT_EQ((*log)->high_watermark(), 2);
}

// A restart after the sync: what was acknowledged is there, and visible.
TEST(GroupCommitTest, SyncedAppendsAreThereAfterAnUncleanRestart) {
    TempDir dir;
    {
        auto log = PartitionLog::open(dir.path(), durable(), test::fixed_now);
        ASSERT_TRUE(log);
        for (int i = 0; i < 4; ++i)
            append_deferred(**log, 1000 + i);
        (*log)->sync_appended();
        // No close: a crash. The recovery point is still 0.
    }
    auto reopened = PartitionLog::open(dir.path(), durable(), test::fixed_now, false, 0);
    ASSERT_TRUE(reopened);
    EXPECT_EQ((*reopened)->high_watermark(), 8);
    auto read = (*reopened)->read(0, 1 << 20, true);
    ASSERT_TRUE(read);
    EXPECT_EQ(read->total_bytes, 600);
}

}  // namespace
}  // namespace skiff::storage
