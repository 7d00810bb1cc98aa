#include "broker/control/snapshots.h"

#include "broker/control/state_reset.h"

#include <gtest/gtest.h>

#include "tests/broker/control/control_fixture.h"

namespace skiff::broker::test {
namespace {

using control::delete_snapshot;
using control::list_snapshots;
using control::restore_snapshot;
using control::take_snapshot;

class SnapshotTest : public ControlTest {
  protected:
    SnapshotTest() {
        // Small segments: the snapshot then links sealed segments and copies the active one.
        config.log_segment_bytes = 4096;
    }

    struct State {
        std::map<std::string, std::vector<std::byte>> data;  // "<topic>-<p>" -> every byte
        std::map<std::string, int64_t> ends;                 // "<topic>-<p>" -> log end
        std::map<std::string, storage::TopicId> ids;
        std::map<std::string, TopicOverrides> overrides;
        std::map<std::string, group::GroupOffsets> offsets;
        std::vector<std::string> txn_ids;
    };

    State state() {
        State s;
        for (const auto& t : broker().topics().list()) {
            if (t.name.starts_with("__"))
                continue;
            s.ids[t.name] = t.id;
            s.overrides[t.name] = broker().topics().overrides(t.name).value_or(TopicOverrides{});
            for (int32_t p = 0; p < t.partition_count; ++p) {
                const std::string key = t.name + "-" + std::to_string(p);
                s.data[key] = contents(t.name, p);
                s.ends[key] = broker().logs().get({t.name, p})->log_end_offset();
            }
        }
        for (const auto& g : broker().groups().offsets().groups())
            s.offsets[g] = broker().groups().offsets().group_offsets(g);
        for (const auto& t : broker().transactions().list())
            s.txn_ids.push_back(t.transactional_id);
        return s;
    }

    static void expect_equal(const State& a, const State& b) {
        EXPECT_EQ(a.data, b.data);
        EXPECT_EQ(a.ends, b.ends);
        EXPECT_EQ(a.ids, b.ids);
        EXPECT_EQ(a.overrides, b.overrides);
        ASSERT_EQ(a.offsets.size(), b.offsets.size());
        for (const auto& [group, offsets] : a.offsets) {
            ASSERT_TRUE(b.offsets.contains(group)) << group;
            const auto& other = b.offsets.at(group);
            ASSERT_EQ(offsets.size(), other.size()) << group;
            for (const auto& [tp, c] : offsets)
                EXPECT_EQ(c.offset, other.at(tp).offset) << group << " " << tp.topic;
        }
        EXPECT_EQ(a.txn_ids, b.txn_ids);
    }
};

TEST_F(SnapshotTest, RestoreBringsBackEveryRecordOffsetIdConfigAndCommit) {
    create_topic("orders", 2, {{"retention.ms", "3600000"}});
    create_topic("payments", 1);
    for (int i = 0; i < 40; ++i) {  // several segments per partition
        append("orders", i % 2, 50, "o" + std::to_string(i) + "-");
        append("payments", 0, 20);
    }
    commit("billing", "orders", 0, 100);
    commit("billing", "orders", 1, 50);
    commit("audit", "payments", 0, 7);
    ASSERT_EQ(broker().transactions().init_producer_id("tx-1", 60000, -1, -1).error,
              ErrorCode::none);
    ASSERT_GT(broker().logs().get({"orders", 0})->segment_count(), 2u);
    const State before = state();

    auto taken = take_snapshot(broker(), "base");
    ASSERT_TRUE(taken.error.empty()) << taken.error;
    EXPECT_EQ(taken.info.name, "base");
    EXPECT_GT(taken.info.files, 0u);
    EXPECT_GT(taken.info.bytes, 0u);

    // Everything changes afterwards.
    for (int i = 0; i < 10; ++i)
        append("orders", 0, 10, "after");
    ASSERT_EQ(broker().topics().remove("payments"), ErrorCode::none);
    create_topic("newcomer", 1);
    append("newcomer", 0, 5);
    commit("billing", "orders", 0, 180);
    commit("other", "newcomer", 0, 2);
    ASSERT_EQ(broker().transactions().init_producer_id("tx-2", 60000, -1, -1).error,
              ErrorCode::none);

    ASSERT_EQ(restore_snapshot(broker(), "base"), "");
    expect_equal(before, state());
    EXPECT_FALSE(broker().topics().partition_count("newcomer"));

    // The restored logs take appends at the right offsets, and the snapshot is not changed.
    const int64_t end = broker().logs().get({"orders", 0})->log_end_offset();
    EXPECT_EQ(append("orders", 0, 4), end);

    // Still equal after reopening the broker on the same dir (crash-like restart).
    restart();
    State after = state();
    after.data.erase("orders-0");
    after.ends.erase("orders-0");
    State expected = before;
    expected.data.erase("orders-0");
    expected.ends.erase("orders-0");
    expect_equal(expected, after);
    EXPECT_EQ(broker().logs().get({"orders", 0})->log_end_offset(), end + 4);

    // Restored a second time: the appends above did not reach the snapshot.
    ASSERT_EQ(restore_snapshot(broker(), "base"), "");
    expect_equal(before, state());
    ASSERT_TRUE(broker().logs().close().has_value());
    restart();
    expect_equal(before, state());
}

TEST_F(SnapshotTest, BadAndTakenNamesAreRefused) {
    create_topic("orders", 1);
    const std::vector<std::string> bad = {
        "", ".", "..", "../x", "a/b", "x y", "~tmp-a", std::string(65, 'a'), "\xc3\xbcn"};
    for (const auto& name : bad)
        EXPECT_FALSE(take_snapshot(broker(), name).error.empty()) << name;
    EXPECT_TRUE(take_snapshot(broker(), std::string(64, 'a')).error.empty());
    EXPECT_TRUE(take_snapshot(broker(), "v1.0_rc-2").error.empty());
    EXPECT_FALSE(take_snapshot(broker(), "v1.0_rc-2").error.empty());  // taken
    EXPECT_FALSE(restore_snapshot(broker(), "missing").empty());
    EXPECT_FALSE(restore_snapshot(broker(), "../..").empty());
    EXPECT_FALSE(delete_snapshot(broker(), "..").empty());
    EXPECT_FALSE(delete_snapshot(broker(), "missing").empty());

    auto listed = list_snapshots(broker());
    ASSERT_EQ(listed.size(), 2u);
    EXPECT_EQ(listed[1].name, "v1.0_rc-2");
    EXPECT_EQ(delete_snapshot(broker(), "v1.0_rc-2"), "");
    EXPECT_EQ(list_snapshots(broker()).size(), 1u);
}

TEST_F(SnapshotTest, TheSnapshotDirIsNeverOpenedAsAPartition) {
    create_topic("orders", 1);
    append("orders", 0, 10);
    ASSERT_TRUE(take_snapshot(broker(), "s1").error.empty());
    // A snapshot named like a partition dir stays inside the snapshots dir.
    ASSERT_TRUE(take_snapshot(broker(), "orders-7").error.empty());
    ASSERT_TRUE(broker().logs().close().has_value());
    restart();
    EXPECT_EQ(user_topics(), std::vector<std::string>{"orders"});
    EXPECT_EQ(broker().topics().partition_count("orders"), 1);
    for (const auto& tp : broker().logs().partitions())
        EXPECT_NE(tp.topic, control::kSnapshotsDir);
    EXPECT_EQ(list_snapshots(broker()).size(), 2u);
}

TEST_F(SnapshotTest, ResetThenRestoreBringsTheStateBack) {
    create_topic("orders", 1);
    append("orders", 0, 30);
    commit("billing", "orders", 0, 30);
    const State before = state();
    ASSERT_TRUE(take_snapshot(broker(), "s").error.empty());
    control::reset_broker(broker(), {});
    EXPECT_TRUE(user_topics().empty());
    ASSERT_EQ(restore_snapshot(broker(), "s"), "");
    expect_equal(before, state());
}

}  // namespace
}  // namespace skiff::broker::test
