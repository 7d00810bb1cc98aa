// Which quota applies to a client, in Kafka's order of the eight entity levels, who shares a
// rate with whom, the throttle time a client over its quota gets, and each rate as /metrics
// reports it.
#include <gtest/gtest.h>

#include <algorithm>

#include "broker/quotas/client_quota_manager.h"

namespace skiff::broker::quotas {
namespace {

const EntityName kDefault = EntityName::default_name();
EntityName named(const char* n) {
    return EntityName::named(n);
}

QuotaMap produce_quotas(std::initializer_list<std::pair<QuotaEntity, double>> list) {
    QuotaMap m;
    for (const auto& [entity, rate] : list)
        m[entity][kProducerByteRate] = rate;
    return m;
}

TEST(ClientQuotaManager, NoQuotaMeansNoThrottle) {
    ClientQuotaManager q({});
    EXPECT_FALSE(q.enabled(QuotaKind::produce));
    EXPECT_EQ(q.record(QuotaKind::produce, "alice", "app", 1e9, 0), 0);
    EXPECT_FALSE(q.max_value_in_window(QuotaKind::fetch, "alice", "app"));
}

TEST(ClientQuotaManager, TheMostSpecificEntityWinsInKafkasOrder) {
    ClientQuotaManager q({});
    // Every level, each with its own value: the first that applies wins.
    const std::pair<QuotaEntity, double> levels[] = {
        {{named("alice"), named("app")}, 1}, {{named("alice"), kDefault}, 2},
        {{named("alice"), std::nullopt}, 3}, {{kDefault, named("app")}, 4},
        {{kDefault, kDefault}, 5},           {{kDefault, std::nullopt}, 6},
        {{std::nullopt, named("app")}, 7},   {{std::nullopt, kDefault}, 8},
    };
    QuotaMap all;
    for (const auto& [e, v] : levels)
        all[e][kProducerByteRate] = v;
    for (size_t dropped = 0; dropped < 8; ++dropped) {
        q.set_quotas(all);
        EXPECT_EQ(q.quota_for(QuotaKind::produce, "alice", "app"), levels[dropped].second);
        all.erase(levels[dropped].first);
    }
    q.set_quotas(all);
    EXPECT_FALSE(q.quota_for(QuotaKind::produce, "alice", "app"));
}

TEST(ClientQuotaManager, EachKindHasItsOwnQuotas) {
    ClientQuotaManager q({});
    QuotaMap m;
    m[{std::nullopt, named("app")}][kConsumerByteRate] = 500;
    q.set_quotas(m);
    EXPECT_FALSE(q.enabled(QuotaKind::produce));
    EXPECT_TRUE(q.enabled(QuotaKind::fetch));
    EXPECT_EQ(q.quota_for(QuotaKind::fetch, "ANONYMOUS", "app"), 500);
    EXPECT_FALSE(q.quota_for(QuotaKind::fetch, "ANONYMOUS", "other"));
}

TEST(ClientQuotaManager, OverTheQuotaTheThrottleTimeIsKafkas) {
    ClientQuotaManager q({.samples = 11, .window_ms = 1000});
    q.set_quotas(produce_quotas({{{std::nullopt, named("app")}, 1000}}));
    // 10,000 bytes in a fresh 10 s span: exactly the quota.
    EXPECT_EQ(q.record(QuotaKind::produce, "u", "app", 10000, 0), 0);
    // 5,000 more: 1,500 B/s, 5 s more to bring it down to 1,000.
    EXPECT_EQ(q.record(QuotaKind::produce, "u", "app", 5000, 0), 5000);
    EXPECT_EQ(q.throttled_requests(QuotaKind::produce), 1u);
    // Another client id has no quota at all.
    EXPECT_EQ(q.record(QuotaKind::produce, "u", "other", 1e9, 0), 0);
}

TEST(ClientQuotaManager, ADefaultClientQuotaGivesEachClientItsOwnRate) {
    ClientQuotaManager q({});
    q.set_quotas(produce_quotas({{{std::nullopt, kDefault}, 1000}}));
    EXPECT_EQ(q.record(QuotaKind::produce, "u", "a", 10000, 0), 0);
    EXPECT_EQ(q.record(QuotaKind::produce, "u", "b", 10000, 0), 0);  // b's own rate
    EXPECT_GT(q.record(QuotaKind::produce, "u", "a", 1000, 0), 0);
}

TEST(ClientQuotaManager, AUserQuotaIsSharedByAllItsClients) {
    ClientQuotaManager q({});
    q.set_quotas(produce_quotas({{{named("alice"), std::nullopt}, 1000}}));
    EXPECT_EQ(q.record(QuotaKind::produce, "alice", "a", 10000, 0), 0);
    // Same user, another client id: the same rate, already at its quota.
    EXPECT_GT(q.record(QuotaKind::produce, "alice", "b", 1000, 0), 0);
    EXPECT_EQ(q.record(QuotaKind::produce, "bob", "b", 1e9, 0), 0);  // no quota for bob
}

TEST(ClientQuotaManager, ChangingAQuotaKeepsWhatTheClientSent) {
    ClientQuotaManager q({});
    q.set_quotas(produce_quotas({{{std::nullopt, named("app")}, 1000}}));
    EXPECT_EQ(q.record(QuotaKind::produce, "u", "app", 10000, 0), 0);
    q.set_quotas(produce_quotas({{{std::nullopt, named("app")}, 500}}));
    // The 10,000 bytes already sent are now twice the quota over the span.
    EXPECT_EQ(q.record(QuotaKind::produce, "u", "app", 0, 0), 10000);
}

TEST(ClientQuotaManager, AFetchIsCappedAtWhatTheQuotaAllowsInASpan) {
    ClientQuotaManager q({.samples = 11, .window_ms = 1000});
    QuotaMap m;
    m[{std::nullopt, named("app")}][kConsumerByteRate] = 1000;
    q.set_quotas(m);
    EXPECT_EQ(q.max_value_in_window(QuotaKind::fetch, "u", "app"), 10000);
    EXPECT_FALSE(q.max_value_in_window(QuotaKind::fetch, "u", "other"));
}

TEST(ClientQuotaManager, EachRateIsReportedUnderTheNamesItIsKeyedBy) {
    ClientQuotaManager q({.samples = 11, .window_ms = 1000});
    q.set_quotas(produce_quotas(
        {{{named("alice"), std::nullopt}, 1000}, {{std::nullopt, named("app")}, 2000}}));
    EXPECT_TRUE(q.sensors(QuotaKind::produce, 0).empty());  // nothing recorded yet
    q.record(QuotaKind::produce, "alice", "a", 6000, 0);
    q.record(QuotaKind::produce, "alice", "b", 9000, 0);  // alice's rate, shared: throttled
    q.record(QuotaKind::produce, "ANONYMOUS", "app", 10000, 0);
    q.record(QuotaKind::produce, "ANONYMOUS", "free", 1e6, 0);  // no quota: no rate
    auto sensors = q.sensors(QuotaKind::produce, 0);
    ASSERT_EQ(sensors.size(), 2u);
    std::sort(sensors.begin(), sensors.end(),
              [](const auto& a, const auto& b) { return a.user < b.user; });
    // A client-id quota's rate: no user; alice's: no client id (Kafka's sensor tags).
    EXPECT_EQ(sensors[0].user, "");
    EXPECT_EQ(sensors[0].client_id, "app");
    EXPECT_DOUBLE_EQ(sensors[0].byte_rate, 1000);  // 10,000 bytes over the 10 s span
    EXPECT_DOUBLE_EQ(sensors[0].quota, 2000);
    EXPECT_EQ(sensors[0].throttle_time_ms, 0u);
    EXPECT_EQ(sensors[1].user, "alice");
    EXPECT_EQ(sensors[1].client_id, "");
    EXPECT_DOUBLE_EQ(sensors[1].byte_rate, 1500);
    EXPECT_DOUBLE_EQ(sensors[1].quota, 1000);
    EXPECT_EQ(sensors[1].throttle_time_ms, 5000u);  // (1,500 - 1,000) / 1,000 x 10 s
    EXPECT_TRUE(q.sensors(QuotaKind::fetch, 0).empty());
}

}  // namespace
}  // namespace skiff::broker::quotas
