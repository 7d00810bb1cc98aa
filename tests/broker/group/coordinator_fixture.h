// The GroupCoordinator over a fresh __consumer_offsets log with a fake clock, and helpers that
// drive the classic protocol through it: shared by the coordinator's tests and the classic
// protocol's (classic/). In a named namespace: GoogleTest wants one fixture type per suite.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/group/group_coordinator.h"
#include "broker/group/offset_store.h"
#include "storage/partition_log.h"

namespace skiff::broker::group {

inline std::vector<std::byte> bytes_of(std::string_view s) {
    std::vector<std::byte> out;
    for (char c : s)
        out.push_back(static_cast<std::byte>(c));
    return out;
}

class TempDir {
  public:
    TempDir() {
        path_ = std::filesystem::temp_directory_path() /
                ("skiff-group-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
        std::filesystem::remove_all(path_);
        std::filesystem::create_directories(path_);
    }
    ~TempDir() { std::filesystem::remove_all(path_); }
    const std::filesystem::path& path() const { return path_; }

  private:
    static inline int counter_ = 0;
    std::filesystem::path path_;
};

// A consumer-protocol member's first heartbeat (v1, epoch 0) in group "g", subscribing to
// `subscribed` and owning nothing.
inline consumer::HeartbeatParams consumer_joining(std::string id,
                                                  std::vector<std::string> subscribed = {"t"},
                                                  int32_t rebalance_timeout_ms = 5000) {
    consumer::HeartbeatParams p;
    p.api_version = 1;
    p.group_id = "g";
    p.member_id = std::move(id);
    p.member_epoch = 0;
    p.rebalance_timeout_ms = rebalance_timeout_ms;
    p.subscribed_topic_names = std::move(subscribed);
    p.owned = consumer::Assignment{};
    return p;
}

struct GroupCoordinatorTest : ::testing::Test {
    TempDir dir;
    std::unique_ptr<storage::PartitionLog> log;
    std::unique_ptr<OffsetStore> store;
    std::unique_ptr<GroupCoordinator> coordinator;
    int64_t now = 1000;

    void SetUp() override { make(0); }
    void make(int64_t initial_delay_ms) {
        coordinator.reset();
        store.reset();
        log.reset();
        auto opened = storage::PartitionLog::open(dir.path() / "__consumer_offsets-0", {});
        ASSERT_TRUE(opened);
        log = std::move(*opened);
        auto s = OffsetStore::open(*log, {});
        ASSERT_TRUE(s) << s.error();
        store = std::move(*s);
        CoordinatorConfig config;
        config.initial_rebalance_delay_ms = initial_delay_ms;
        coordinator = std::make_unique<GroupCoordinator>(config, *store, [this] { return now; });
    }

    JoinParams params(std::string member_id, std::string protocol = "range") {
        JoinParams p;
        p.group_id = "g";
        p.member_id = std::move(member_id);
        p.client_id = "client";
        p.session_timeout_ms = 1000;
        p.rebalance_timeout_ms = 5000;
        p.protocol_type = "consumer";
        p.protocols = {{protocol, bytes_of("meta-" + protocol)}};
        p.require_known_member_id = true;
        return p;
    }

    // Starts a join; the result appears in the returned slot when the coordinator answers.
    std::shared_ptr<std::optional<JoinResult>> join(const JoinParams& p) {
        auto slot = std::make_shared<std::optional<JoinResult>>();
        coordinator->join(p, [slot](JoinResult r) { *slot = std::move(r); });
        return slot;
    }
    std::shared_ptr<std::optional<SyncResult>> sync(
        const std::string& member, int32_t generation,
        std::map<std::string, std::vector<std::byte>> assignments = {}) {
        SyncParams p;
        p.group_id = "g";
        p.member_id = member;
        p.generation_id = generation;
        p.assignments = std::move(assignments);
        auto slot = std::make_shared<std::optional<SyncResult>>();
        coordinator->sync(p, [slot](SyncResult r) { *slot = std::move(r); });
        return slot;
    }
    // The MEMBER_ID_REQUIRED round trip: returns the member id handed out.
    std::string new_member() {
        auto first = join(params(""));
        EXPECT_TRUE(first->has_value());
        EXPECT_EQ((*first)->error, protocol::ErrorCode::member_id_required);
        EXPECT_FALSE((*first)->member_id.empty());
        return (*first)->member_id;
    }
    void advance(int64_t ms) {
        // Tick as the io_context would, so deadlines fire in order.
        for (int64_t done = 0; done < ms; done += GroupCoordinator::kTickMs) {
            now += std::min(GroupCoordinator::kTickMs, ms - done);
            coordinator->tick();
        }
    }
};

// Two static members, "s1" (the leader) and "s2", in a Stable generation with assignments.
struct StaticGroup {
    std::string s1, s2;
    int32_t generation = 0;
};

inline StaticGroup form_static_group(GroupCoordinatorTest& t,
                                     int32_t s2_session_timeout_ms = 1000) {
    StaticGroup sg;
    auto p1 = t.params("");
    p1.group_instance_id = "s1";
    auto j1 = t.join(p1);
    EXPECT_TRUE(j1->has_value());
    sg.s1 = (*j1)->member_id;
    t.sync(sg.s1, 1, {{sg.s1, bytes_of("s1-alone")}});
    auto p2 = t.params("");
    p2.group_instance_id = "s2";
    p2.session_timeout_ms = s2_session_timeout_ms;
    auto j2 = t.join(p2);
    auto again = t.join([&] {
        auto p = t.params(sg.s1);
        p.group_instance_id = "s1";
        return p;
    }());
    EXPECT_TRUE(j2->has_value());
    EXPECT_TRUE(again->has_value());
    sg.s2 = (*j2)->member_id;
    sg.generation = (*j2)->generation_id;
    EXPECT_EQ((*again)->leader, sg.s1);
    t.sync(sg.s2, sg.generation);
    t.sync(sg.s1, sg.generation, {{sg.s1, bytes_of("p0")}, {sg.s2, bytes_of("p1")}});
    EXPECT_EQ(t.coordinator->state("g"), ClassicGroupState::stable);
    return sg;
}

inline JoinParams restart_of(GroupCoordinatorTest& t, const std::string& instance) {
    auto p = t.params("");
    p.group_instance_id = instance;
    return p;
}

}  // namespace skiff::broker::group
