#include "broker/control/snapshots.h"

#include "broker/control/state_reset.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "broker/security/credential_store.h"
#include "broker/security/scram.h"
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
        std::map<std::string, int64_t> starts;               // "<topic>-<p>" -> log start
        std::map<std::string, storage::TopicId> ids;
        std::map<std::string, TopicOverrides> overrides;
        std::map<std::string, group::GroupOffsets> offsets;
        std::vector<std::string> txn_ids;
        std::vector<security::AclBinding> acls;    // sorted
        std::map<std::string, std::string> users;  // "<user>/<mechanism>" -> "<salt>/<iterations>"
        group::GroupConfigValues billing_configs;  // group "billing"'s own configs
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
                s.starts[key] = broker().logs().get({t.name, p})->log_start_offset();
            }
        }
        if (broker().authorizer()) {
            s.acls = broker().authorizer()->acls().all();
            std::sort(s.acls.begin(), s.acls.end());
        }
        for (const auto& u : broker().credentials().list())
            for (const auto& [mechanism, iterations] : u.mechanisms)
                s.users[u.user + "/" + std::string(security::scram_mechanism_name(mechanism))] =
                    broker().credentials().lookup(u.user, mechanism)->salt + "/" +
                    std::to_string(iterations);
        for (const auto& g : broker().groups().offsets().groups())
            s.offsets[g] = broker().groups().offsets().group_offsets(g);
        for (const auto& t : broker().transactions().list())
            s.txn_ids.push_back(t.transactional_id);
        s.billing_configs = broker().group_configs().values("billing");
        return s;
    }

    static void expect_equal(const State& a, const State& b) {
        EXPECT_EQ(a.data, b.data);
        EXPECT_EQ(a.ends, b.ends);
        EXPECT_EQ(a.starts, b.starts);
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
        EXPECT_EQ(a.acls, b.acls);
        EXPECT_EQ(a.users, b.users);
        EXPECT_EQ(a.billing_configs, b.billing_configs);
    }
    void set_billing_config(const std::string& name, const std::string& value) {
        ASSERT_EQ(broker().group_configs().set("billing", {{name, value}}, false).error,
                  ErrorCode::none);
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
    set_billing_config("consumer.heartbeat.interval.ms", "6000");
    const State before = state();
    ASSERT_TRUE(take_snapshot(broker(), "s").error.empty());
    control::reset_broker(broker(), {});
    EXPECT_TRUE(user_topics().empty());
    EXPECT_TRUE(broker().group_configs().values("billing").empty());
    ASSERT_EQ(restore_snapshot(broker(), "s"), "");
    expect_equal(before, state());
    EXPECT_EQ(before.billing_configs.size(), 1u);
}

// --- Crashes in the middle of a restore ------------------------------------------------------
//
// control::restore_crash_hook stops restore_snapshot at one of its points (snapshots.h) by
// throwing SimulatedCrash, which is no std::exception and so passes its handlers; the Broker is
// then dropped without closing anything (restart()), finish_interrupted_restore runs as the
// server runs it before opening the logs, and a new Broker opens the dir.

struct SimulatedCrash {};

struct CrashPoint {
    std::string point;         // restore_crash_hook's point
    int calls = 1;             // crash at its n-th call ("moving": n - 1 staged dirs moved in)
    bool rename_some = false;  // "switch": half of the live dirs renamed away first
    bool old_state = false;    // what must be found after: the old state, else the snapshot's
};

std::ostream& operator<<(std::ostream& os, const CrashPoint& c) {
    return os << c.point << "#" << c.calls << (c.rename_some ? "+renamed" : "");
}

class SnapshotCrashTest : public SnapshotTest, public ::testing::WithParamInterface<CrashPoint> {
  protected:
    SnapshotCrashTest() {
        config.authorizer_class_name = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";
    }
    ~SnapshotCrashTest() override { control::restore_crash_hook = nullptr; }

    static security::AclBinding acl(const std::string& resource, const std::string& principal) {
        security::AclBinding b;
        b.resource_name = resource;
        b.principal = principal;
        b.operation = security::AclOperation::read;
        return b;
    }
    void set_user(const std::string& user, const std::string& salt, int32_t iterations) {
        security::ScramCredential c{salt, std::string(32, 'b'), std::string(32, 'c'), iterations};
        ASSERT_TRUE(
            broker().credentials().set(user, security::ScramMechanism::sha256, c).has_value());
    }

    // What the snapshots dir holds besides the snapshots: nothing once a restore is over.
    std::vector<std::string> snapshot_dir_entries() {
        std::vector<std::string> out;
        for (const auto& e :
             fs::directory_iterator(fs::path(config.log_dir) / control::kSnapshotsDir))
            out.push_back(e.path().filename().string());
        std::sort(out.begin(), out.end());
        return out;
    }
    std::vector<std::string> delete_dirs() {
        std::vector<std::string> out;
        for (const auto& e : fs::directory_iterator(config.log_dir))
            if (e.path().filename().string().ends_with("-delete"))
                out.push_back(e.path().filename().string());
        return out;
    }
};

TEST_P(SnapshotCrashTest, TheStateIsTheOldOrTheSnapshotsNeverAMix) {
    const CrashPoint crash = GetParam();
    // The snapshot: several segments per partition, a log start moved by DeleteRecords (to the
    // active segment, as the retention pass it runs removes the sealed ones: the records'
    // timestamps are near 0), commits, a transactional id, a topic config, an ACL and a user.
    create_topic("orders", 2, {{"retention.ms", "3600000"}});
    create_topic("payments", 1);
    for (int i = 0; i < 30; ++i) {
        append("orders", i % 2, 50, "o" + std::to_string(i) + "-");
        append("payments", 0, 20);
    }
    ASSERT_TRUE(broker().logs().get({"orders", 0})->delete_records_before(75));
    ASSERT_GT(broker().logs().get({"orders", 0})->log_start_offset(), 0);
    commit("billing", "orders", 0, 100);
    ASSERT_EQ(broker().transactions().init_producer_id("tx-1", 60000, -1, -1).error,
              ErrorCode::none);
    ASSERT_FALSE(broker().authorizer()->acls().add({acl("orders", "User:alice")}));
    set_user("alice", std::string(16, 'a'), 4096);
    set_billing_config("consumer.heartbeat.interval.ms", "6000");
    const State snapshot = state();
    ASSERT_TRUE(take_snapshot(broker(), "base").error.empty());

    // The state the restore replaces differs in every part, the same partitions' log start
    // offsets included (beyond the snapshot's log end), and the maintenance thread has written
    // its checkpoints.
    for (int i = 0; i < 30; ++i)
        append("orders", 0, 50, "after");
    const int64_t snapshot_end = snapshot.ends.at("orders-0");
    ASSERT_TRUE(broker().logs().get({"orders", 0})->delete_records_before(snapshot_end + 100));
    ASSERT_EQ(broker().topics().remove("payments"), ErrorCode::none);
    create_topic("newcomer", 3);
    append("newcomer", 2, 5);
    ASSERT_EQ(broker().topics().set_overrides("orders", {{"retention.ms", "60000"}}, false).error,
              ErrorCode::none);
    commit("billing", "orders", 0, 900);
    commit("other", "newcomer", 2, 2);
    ASSERT_EQ(broker().transactions().init_producer_id("tx-2", 60000, -1, -1).error,
              ErrorCode::none);
    ASSERT_FALSE(broker().authorizer()->acls().add({acl("newcomer", "User:bob")}));
    set_user("alice", std::string(16, 'z'), 8192);
    set_user("bob", std::string(16, 'b'), 4096);
    set_billing_config("share.isolation.level", "read_committed");
    ASSERT_TRUE(broker().logs().checkpoint().has_value());
    const State old = state();

    int calls = 0;
    control::restore_crash_hook = [&](std::string_view point) {
        if (point != crash.point || ++calls < crash.calls)
            return;
        if (crash.rename_some) {  // as if the removal of the live dirs was cut short
            auto dirs = partition_dirs();
            for (size_t i = 0; i < dirs.size(); i += 2)
                fs::rename(fs::path(config.log_dir) / dirs[i],
                           fs::path(config.log_dir) / (dirs[i] + ".99-delete"));
        }
        throw SimulatedCrash{};
    };
    EXPECT_THROW(restore_snapshot(broker(), "base"), SimulatedCrash);
    ASSERT_EQ(calls, crash.calls) << "the restore never reached the crash point";
    control::restore_crash_hook = nullptr;

    restart();
    ASSERT_EQ(control::finish_interrupted_restore(config.log_dir), "");
    const State& expected = crash.old_state ? old : snapshot;
    expect_equal(expected, state());
    // Nothing left of the restore: no journal, no staging tree, no old dir.
    EXPECT_EQ(snapshot_dir_entries(), std::vector<std::string>{"base"});
    EXPECT_TRUE(delete_dirs().empty());
    if (!crash.old_state)
        EXPECT_EQ(user_topics(), (std::vector<std::string>{"orders", "payments"}));

    // The logs take appends at their ends, and the state holds across another crash and a clean
    // restart, with finish_interrupted_restore having nothing more to do.
    const int64_t end = broker().logs().get({"orders", 1})->log_end_offset();
    EXPECT_EQ(append("orders", 1, 3), end);
    restart();
    ASSERT_EQ(control::finish_interrupted_restore(config.log_dir), "");
    State again = state();
    EXPECT_EQ(again.ends.at("orders-1"), end + 3);
    again.data.erase("orders-1");
    again.ends.erase("orders-1");
    State expected_again = expected;
    expected_again.data.erase("orders-1");
    expected_again.ends.erase("orders-1");
    expect_equal(expected_again, again);
    ASSERT_TRUE(broker().logs().close().has_value());
    restart();
    expect_equal(expected_again, [&] {
        State s = state();
        s.data.erase("orders-1");
        s.ends.erase("orders-1");
        return s;
    }());
}

INSTANTIATE_TEST_SUITE_P(
    SnapshotCrashPoints, SnapshotCrashTest,
    ::testing::Values(CrashPoint{"staged", 1, false, true},   // before the journal
                      CrashPoint{"switch", 1, false, false},  // journaled, nothing renamed
                      CrashPoint{"switch", 1, true, false},   // some old dirs renamed away
                      CrashPoint{"moving", 1, false, false},  // old dirs gone, none moved in
                      CrashPoint{"moving", 2, false, false},  // one staged dir moved in
                      CrashPoint{"moving", 4, false, false},  // three moved in
                      CrashPoint{"moved", 1, false, false}),  // all in, none opened
    [](const ::testing::TestParamInfo<CrashPoint>& info) {
        return info.param.point + std::to_string(info.param.calls) +
               (info.param.rename_some ? "Renamed" : "");
    });

// --- ACLs and SCRAM users ------------------------------------------------------------------

TEST_F(SnapshotTest, RestoreBringsBackTheAclsAndUsersOfTheSnapshot) {
    config.authorizer_class_name = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";
    security::AclBinding read;
    read.resource_name = "orders";
    read.principal = "User:alice";
    read.operation = security::AclOperation::read;
    security::AclBinding write = read;
    write.principal = "User:bob";
    write.operation = security::AclOperation::write;
    const security::ScramCredential alice{std::string(16, 'a'), std::string(32, 'b'),
                                          std::string(32, 'c'), 4096};
    ASSERT_FALSE(broker().authorizer()->acls().add({read}));
    ASSERT_TRUE(
        broker().credentials().set("alice", security::ScramMechanism::sha256, alice).has_value());
    const security::ScramCredential alice512{std::string(16, 'a'), std::string(64, 'b'),
                                             std::string(64, 'c'), 4096};  // SHA-512's key size
    ASSERT_TRUE(broker()
                    .credentials()
                    .set("alice", security::ScramMechanism::sha512, alice512)
                    .has_value());
    const State before = state();
    ASSERT_EQ(before.acls.size(), 1u);
    ASSERT_EQ(before.users.size(), 2u);
    ASSERT_TRUE(take_snapshot(broker(), "s").error.empty());

    // Afterwards: alice's ACL gone, bob's added; alice's password changed, one mechanism
    // removed; bob a new user.
    auto removed = broker().authorizer()->acls().remove({security::AclBindingFilter{}});
    ASSERT_FALSE(removed.error);
    ASSERT_FALSE(broker().authorizer()->acls().add({write}));
    security::ScramCredential changed = alice;
    changed.salt = std::string(16, 'x');
    changed.iterations = 8192;
    ASSERT_TRUE(
        broker().credentials().set("alice", security::ScramMechanism::sha256, changed).has_value());
    ASSERT_TRUE(broker().credentials().remove("alice", security::ScramMechanism::sha512));
    ASSERT_TRUE(
        broker().credentials().set("bob", security::ScramMechanism::sha256, changed).has_value());

    ASSERT_EQ(restore_snapshot(broker(), "s"), "");
    expect_equal(before, state());
    EXPECT_EQ(broker().authorizer()->acls().all(), std::vector<security::AclBinding>{read});
    EXPECT_FALSE(broker().credentials().lookup("bob", security::ScramMechanism::sha256));
    EXPECT_EQ(broker().credentials().lookup("alice", security::ScramMechanism::sha256)->stored_key,
              alice.stored_key);
    // From the files, after a crash-like restart.
    restart();
    expect_equal(before, state());

    // A reset keeps them unless asked; a restore after a reset that removed them brings them
    // back.
    control::reset_broker(broker(), {});
    EXPECT_EQ(state().acls, before.acls);
    EXPECT_EQ(state().users, before.users);
    auto report = control::reset_broker(broker(), {.acls = true, .users = true});
    EXPECT_TRUE(report.error.empty()) << report.error;
    EXPECT_TRUE(state().acls.empty());
    EXPECT_TRUE(state().users.empty());
    ASSERT_EQ(restore_snapshot(broker(), "s"), "");
    expect_equal(before, state());
}

TEST_F(SnapshotTest, RestoreBringsBackTheClientQuotasOfTheSnapshot) {
    const quotas::QuotaEntity app{std::nullopt, quotas::EntityName::named("app")};
    const quotas::QuotaEntity alice{quotas::EntityName::named("alice"), std::nullopt};
    ASSERT_TRUE(broker().client_quotas().apply({{app, quotas::kProducerByteRate, 1000}}));
    const quotas::QuotaMap before = broker().client_quotas().snapshot();
    ASSERT_TRUE(take_snapshot(broker(), "q").error.empty());
    // Afterwards: app's quota changed, alice one of her own.
    ASSERT_TRUE(broker().client_quotas().apply(
        {{app, quotas::kProducerByteRate, 5}, {alice, quotas::kConsumerByteRate, 7}}));
    ASSERT_EQ(restore_snapshot(broker(), "q"), "");
    EXPECT_EQ(broker().client_quotas().snapshot(), before);
    EXPECT_EQ(broker().quota_manager().quota_for(quotas::QuotaKind::produce, "u", "app"), 1000);
    EXPECT_FALSE(broker().quota_manager().enabled(quotas::QuotaKind::fetch));
    restart();
    EXPECT_EQ(broker().client_quotas().snapshot(), before);
    // A reset removes them; the restore brings them back again.
    control::reset_broker(broker(), {});
    ASSERT_TRUE(broker().client_quotas().snapshot().empty());
    ASSERT_EQ(restore_snapshot(broker(), "q"), "");
    EXPECT_EQ(broker().client_quotas().snapshot(), before);
}

// --- The schema registry -------------------------------------------------------------------

class SnapshotRegistryTest : public SnapshotTest {
  protected:
    SnapshotRegistryTest() { config.schema_registry_listeners = "http://127.0.0.1:0"; }

    schema_registry::RestResponse call(const std::string& method, const std::string& path,
                                       const std::string& body = "") {
        schema_registry::RestRequest r;
        r.method = method;
        r.path = path;
        r.body = body;
        return broker().schema_registry()->handle(r);
    }
    int32_t register_schema(const std::string& subject, const std::string& avro_type) {
        auto answer = call("POST", "/subjects/" + subject + "/versions",
                           nlohmann::json{{"schema", avro_type}}.dump());
        EXPECT_EQ(answer.status, 200) << answer.body;
        return answer.status == 200 ? nlohmann::json::parse(answer.body).at("id").get<int32_t>()
                                    : -1;
    }
    // subject -> the ids of its versions, in version order.
    std::map<std::string, std::vector<int32_t>> subjects() {
        std::map<std::string, std::vector<int32_t>> out;
        auto listed = call("GET", "/subjects");
        EXPECT_EQ(listed.status, 200) << listed.body;
        for (const auto& subject : nlohmann::json::parse(listed.body)) {
            const std::string name = subject.get<std::string>();
            auto versions = call("GET", "/subjects/" + name + "/versions");
            for (const auto& v : nlohmann::json::parse(versions.body)) {
                auto one = call(
                    "GET", "/subjects/" + name + "/versions/" + std::to_string(v.get<int32_t>()));
                out[name].push_back(nlohmann::json::parse(one.body).at("id").get<int32_t>());
            }
        }
        return out;
    }
};

TEST_F(SnapshotRegistryTest, RestoreBringsBackSubjectsAndIdsAndNewIdsGoAboveThem) {
    ASSERT_EQ(call("PUT", "/config", R"({"compatibility":"NONE"})").status, 200);
    const int32_t a1 = register_schema("a-value", R"("string")");
    const int32_t a2 = register_schema("a-value", R"({"type":"record","name":"A","fields":[]})");
    const int32_t b1 = register_schema("b-value", R"("long")");
    const auto before = subjects();
    ASSERT_EQ(before.size(), 2u);
    ASSERT_TRUE(take_snapshot(broker(), "s").error.empty());

    const int32_t c1 = register_schema("c-value", R"("double")");
    ASSERT_EQ(call("DELETE", "/subjects/a-value").status, 200);
    ASSERT_NE(subjects(), before);

    ASSERT_EQ(restore_snapshot(broker(), "s"), "");
    EXPECT_EQ(subjects(), before);
    EXPECT_EQ(call("GET", "/schemas/ids/" + std::to_string(b1)).status, 200);
    const int32_t highest = std::max({a1, a2, b1});
    const int32_t next = register_schema("d-value", R"("bytes")");
    EXPECT_GT(next, highest);
    // c1 belonged to the discarded state: unknown again (until a new schema takes its id).
    if (next != c1)
        EXPECT_EQ(call("GET", "/schemas/ids/" + std::to_string(c1)).status, 404);

    auto expected = before;
    expected["d-value"] = {next};
    restart();
    EXPECT_EQ(subjects(), expected);
    EXPECT_GT(register_schema("e-value", R"("float")"), next);
}

// --- Transactions --------------------------------------------------------------------------

TEST_F(SnapshotTest, AnOpenTransactionAtTheSnapshotIsOpenAgainAndCanBeEnded) {
    create_topic("orders", 1);
    append("orders", 0, 2);  // 0-1, not transactional
    auto& txns = broker().transactions();
    // tx-long: a long timeout, ended by its producer after the restore. tx-short: 1 ms, ended by
    // the coordinator's timeout abort.
    auto open_txn = [&](const std::string& id, int32_t timeout_ms, int count) {
        auto pid = txns.init_producer_id(id, timeout_ms, -1, -1);
        EXPECT_EQ(pid.error, ErrorCode::none);
        EXPECT_EQ(txns.add_partitions(id, pid.producer_id, pid.producer_epoch, {{"orders", 0}}),
                  ErrorCode::none);
        protocol::BatchSpec spec;
        spec.producer_id = pid.producer_id;
        spec.producer_epoch = pid.producer_epoch;
        spec.base_sequence = 0;
        spec.attributes = 0x10;  // transactional
        auto batch = make_batch(count, spec);
        auto summaries = protocol::validate_batches(batch);
        EXPECT_TRUE(summaries.has_value());
        EXPECT_TRUE(broker().logs().get({"orders", 0})->append(batch, *summaries).has_value());
        return pid;
    };
    const auto long_pid = open_txn("tx-long", 60000, 3);  // 2-4
    const auto short_pid = open_txn("tx-short", 1, 2);    // 5-6
    auto* log = broker().logs().get({"orders", 0});
    ASSERT_EQ(log->last_stable_offset(), 2);
    ASSERT_EQ(log->high_watermark(), 7);
    ASSERT_TRUE(take_snapshot(broker(), "s").error.empty());

    // Both completed afterwards: markers in the partition, Complete* in the coordinator.
    ASSERT_EQ(txns.end_transaction("tx-long", long_pid.producer_id, long_pid.producer_epoch, true),
              ErrorCode::none);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_EQ(txns.abort_timed_out(), 1u);
    ASSERT_EQ(broker().logs().get({"orders", 0})->last_stable_offset(), 9);

    // Restored: both open again, in the coordinator (Ongoing, with the partition) and in the
    // partition (the LSO at the first one's first offset), and after reopening the same.
    ASSERT_EQ(restore_snapshot(broker(), "s"), "");
    for (int round = 0; round < 2; ++round) {
        SCOPED_TRACE(round == 0 ? "restored" : "reopened");
        for (const char* id : {"tx-long", "tx-short"}) {
            auto view = broker().transactions().describe(id);
            ASSERT_TRUE(view) << id;
            EXPECT_EQ(view->metadata.state, txn::TxnState::ongoing) << id;
            EXPECT_EQ(view->metadata.partitions, (std::set<storage::TopicPartition>{{"orders", 0}}))
                << id;
        }
        EXPECT_EQ(broker().logs().get({"orders", 0})->last_stable_offset(), 2);
        EXPECT_EQ(broker().logs().get({"orders", 0})->log_end_offset(), 7);
        if (round == 0)
            restart();
    }

    // tx-short has timed out: the coordinator aborts it (epoch bumped, marker at 7); tx-long is
    // aborted by its producer (marker at 8). Then nothing is left open: the LSO is the log end.
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    EXPECT_EQ(broker().transactions().abort_timed_out(), 1u);
    log = broker().logs().get({"orders", 0});
    EXPECT_EQ(log->last_stable_offset(), 2);  // tx-long's records still open
    EXPECT_EQ(broker().transactions().end_transaction("tx-long", long_pid.producer_id,
                                                      long_pid.producer_epoch, false),
              ErrorCode::none);
    EXPECT_EQ(log->log_end_offset(), 9);
    EXPECT_EQ(log->last_stable_offset(), 9);
    EXPECT_EQ(broker().transactions().describe("tx-long")->metadata.state,
              txn::TxnState::complete_abort);
    auto short_view = broker().transactions().describe("tx-short");
    EXPECT_EQ(short_view->metadata.state, txn::TxnState::complete_abort);
    EXPECT_GT(short_view->metadata.producer_epoch, short_pid.producer_epoch);
    // The producer of tx-short is fenced; a new transaction of tx-long's producer works.
    EXPECT_NE(broker().transactions().add_partitions("tx-short", short_pid.producer_id,
                                                     short_pid.producer_epoch, {{"orders", 0}}),
              ErrorCode::none);
    EXPECT_EQ(broker().transactions().add_partitions("tx-long", long_pid.producer_id,
                                                     long_pid.producer_epoch, {{"orders", 0}}),
              ErrorCode::none);
}

}  // namespace
}  // namespace skiff::broker::test
