#include "config/settings.h"
#include "config/value_syntax.h"

#include <gtest/gtest.h>

#include <limits>
#include <set>
#include <vector>

namespace skiff::config {
namespace {

// The table's documented defaults and BrokerConfig's member initializers must agree.
TEST(SettingsTable, DefaultsMatchBrokerConfig) {
    const BrokerConfig defaults;
    for (const auto& setting : settings()) {
        if (setting.default_value.empty()) {
            continue;  // derived (advertised.listeners)
        }
        BrokerConfig parsed;
        auto ok = apply_setting(setting, Spelling{setting.key}, setting.default_value, parsed);
        ASSERT_TRUE(ok.has_value()) << setting.key << ": " << ok.error();
        EXPECT_EQ(render_setting(setting, parsed), render_setting(setting, defaults))
            << setting.key;
        EXPECT_EQ(render_setting(setting, defaults), setting.default_value) << setting.key;
    }
}

TEST(SettingsTable, EveryMemberHasExactlyOneRow) {
    // Two rows storing into one member would make one of them dead; a member without a row could
    // not be configured. BrokerConfig has 115 settings: update this count together with it.
    std::vector<SettingMember> members;
    for (const auto& setting : settings()) {
        if (std::holds_alternative<std::monostate>(setting.member)) {
            continue;
        }
        for (const auto& other : members) {
            EXPECT_FALSE(other == setting.member) << setting.key << " shares a member";
        }
        members.push_back(setting.member);
    }
    EXPECT_EQ(members.size(), 115u);
}

// Kafka's names, defaults and ranges (TransactionStateManagerConfig, TransactionLogConfig).
TEST(SettingsTable, TransactionSettings) {
    const BrokerConfig defaults;
    EXPECT_EQ(defaults.transaction_max_timeout_ms, 900000);
    EXPECT_EQ(defaults.transactional_id_expiration_ms, 604800000);
    EXPECT_EQ(defaults.transaction_abort_timed_out_transaction_cleanup_interval_ms, 10000);
    EXPECT_EQ(defaults.transaction_remove_expired_transaction_cleanup_interval_ms, 3600000);
    EXPECT_EQ(defaults.transaction_state_log_segment_bytes, 104857600);
    EXPECT_EQ(defaults.share_coordinator_state_topic_num_partitions, 50);
    EXPECT_EQ(defaults.share_coordinator_snapshot_update_records_per_snapshot, 500);
    const auto lookup = *find_setting("transaction.max.timeout.ms");
    BrokerConfig config;
    ASSERT_TRUE(apply_setting(*lookup.setting, lookup.spelling, "60000", config).has_value());
    EXPECT_EQ(config.transaction_max_timeout_ms, 60000);
    EXPECT_FALSE(apply_setting(*lookup.setting, lookup.spelling, "0", config).has_value());
    EXPECT_FALSE(apply_setting(*lookup.setting, lookup.spelling, "2147483648", config).has_value());
    const auto expiry = *find_setting("transactional.id.expiration.ms");
    EXPECT_FALSE(apply_setting(*expiry.setting, expiry.spelling, "0", config).has_value());
}

TEST(SettingsTable, KeysAndSpellingsAreUniqueAndDocumented) {
    std::set<std::string_view> keys;
    for (const auto& setting : settings()) {
        EXPECT_TRUE(keys.insert(setting.key).second) << setting.key;
        for (const auto& spelling : setting.other_spellings) {
            EXPECT_TRUE(keys.insert(spelling.key).second) << spelling.key;
        }
        EXPECT_FALSE(setting.doc.empty()) << setting.key;
        EXPECT_FALSE(setting.shown_default().empty()) << setting.key;
        // The environment mapping turns '_' into '.', so no key may contain '_'.
        EXPECT_EQ(setting.key.find('_'), std::string_view::npos) << setting.key;
    }
}

TEST(SettingsTable, FindsBySpelling) {
    auto lookup = find_setting("log.retention.minutes");
    ASSERT_TRUE(lookup.has_value());
    EXPECT_EQ(lookup->setting->key, "log.retention.ms");
    EXPECT_EQ(lookup->spelling.scale, 60000);
    EXPECT_EQ(lookup->rank, 1);
    EXPECT_FALSE(find_setting("no.such.key").has_value());
}

TEST(SettingsTable, IntegerParsingFollowsJava) {
    const auto& setting = *find_setting("num.partitions")->setting;
    BrokerConfig config;
    EXPECT_TRUE(apply_setting(setting, Spelling{setting.key}, " +7 ", config).has_value());
    EXPECT_EQ(config.num_partitions, 7);
    for (const char* bad : {"", "7.0", "1e3", "0x10", "1_000", "++1", "7 7"}) {
        EXPECT_FALSE(apply_setting(setting, Spelling{setting.key}, bad, config).has_value()) << bad;
    }
}

TEST(SettingsTable, Int32SettingsRejectValuesBeyond32Bits) {
    const auto& setting = *find_setting("message.max.bytes")->setting;
    BrokerConfig config;
    auto result = apply_setting(setting, Spelling{setting.key}, "2147483648", config);
    ASSERT_FALSE(result.has_value());
    EXPECT_EQ(result.error(), "expected an integer >= 0 (at most 2147483647)");
}

TEST(SettingsTable, ScaledSpellingsCheckTheirOwnUnit) {
    const auto lookup = *find_setting("log.retention.hours");
    BrokerConfig config;
    auto result = apply_setting(*lookup.setting, lookup.spelling, "9223372036854775807", config);
    ASSERT_FALSE(result.has_value());
    EXPECT_EQ(result.error(), "expected -1 (unlimited) or an integer between 0 and 2562047788015");
    ASSERT_TRUE(apply_setting(*lookup.setting, lookup.spelling, "-1", config).has_value());
    EXPECT_EQ(config.log_retention_ms, -1);
}

TEST(SettingsTable, CompressionTypeTakesKafkasValues) {
    const auto lookup = *find_setting("compression.type");
    BrokerConfig config;
    for (const char* v : {"producer", "uncompressed", "gzip", "snappy", "lz4", "zstd"}) {
        ASSERT_TRUE(apply_setting(*lookup.setting, lookup.spelling, v, config).has_value()) << v;
        EXPECT_EQ(config.compression_type, v);
    }
    for (const char* v : {"none", "LZ4", "brotli", ""})
        EXPECT_FALSE(apply_setting(*lookup.setting, lookup.spelling, v, config).has_value()) << v;
}

TEST(SettingsTable, MessageFormatVersionIsAnyKafkaVersion) {
    for (const char* v : {"0.8.0", "0.10.0", "0.10.2-IV0", "0.11.0", "1.0", "2.8", "2.8-IV1",
                          "3.0-IV1", "3.7", "2.1.0", "0.10.0.0"})
        EXPECT_TRUE(is_kafka_version(v)) << v;
    for (const char* v : {"", "banana", "0.10", "0.7.0", "4.0", "7.1", "2.", ".2", "2.8-IV",
                          "2.8-iv1", "1.2.3.4.5", "3.0-IVx", "-IV1"})
        EXPECT_FALSE(is_kafka_version(v)) << v;
    const auto lookup = *find_setting("log.message.format.version");
    BrokerConfig config;
    ASSERT_TRUE(apply_setting(*lookup.setting, lookup.spelling, "2.8", config).has_value());
    EXPECT_EQ(config.log_message_format_version, "2.8");
    EXPECT_FALSE(apply_setting(*lookup.setting, lookup.spelling, "x", config).has_value());
}

TEST(SettingsTable, LongsAreWholeDecimalNumbers) {
    EXPECT_EQ(parse_long("60000"), 60000);
    EXPECT_EQ(parse_long("-1"), -1);
    EXPECT_EQ(parse_long("9223372036854775807"), std::numeric_limits<int64_t>::max());
    for (const char* bad : {"", "x", "1x", " 1", "1 ", "1.0", "0x10", "9223372036854775808"})
        EXPECT_EQ(parse_long(bad), std::nullopt) << bad;
}

TEST(SettingsTable, DoublesFollowJava) {
    EXPECT_EQ(parse_double("0.5"), 0.5);
    EXPECT_EQ(parse_double("1"), 1.0);
    EXPECT_EQ(parse_double("+2.5e3"), 2500.0);
    EXPECT_EQ(parse_double("1.7976931348623157E308"), std::numeric_limits<double>::max());
    EXPECT_EQ(parse_double("0.25d"), 0.25);
    for (const char* bad : {"", "x", "0.5x", "NaN", "Infinity", "1e999", "++1", " 1", "0x10"})
        EXPECT_EQ(parse_double(bad), std::nullopt) << bad;
    EXPECT_EQ(render_double(0.5), "0.5");
    EXPECT_EQ(render_double(0.9), "0.9");
    EXPECT_EQ(render_double(1.0), "1.0");
    EXPECT_EQ(render_double(0.0), "0.0");
    EXPECT_EQ(render_double(1048576.5), "1048576.5");
    EXPECT_EQ(render_double(1e7), "1.0E7");
    EXPECT_EQ(render_double(0.0001), "1.0E-4");
    EXPECT_EQ(render_double(std::numeric_limits<double>::max()), "1.7976931348623157E308");
}

TEST(SettingsTable, CleanupPolicyIsKafkasList) {
    auto p = parse_cleanup_policy("delete");
    ASSERT_TRUE(p);
    EXPECT_TRUE(p->delete_);
    EXPECT_FALSE(p->compact);
    p = parse_cleanup_policy("compact");
    ASSERT_TRUE(p);
    EXPECT_FALSE(p->delete_);
    EXPECT_TRUE(p->compact);
    for (const char* both : {"compact,delete", "delete,compact", " compact , delete "}) {
        p = parse_cleanup_policy(both);
        ASSERT_TRUE(p) << both;
        EXPECT_TRUE(p->delete_ && p->compact) << both;
    }
    for (const char* bad : {"", ",", "compact,", "compacted", "DELETE", "compact delete"})
        EXPECT_FALSE(parse_cleanup_policy(bad)) << bad;
}

}  // namespace
}  // namespace skiff::config
