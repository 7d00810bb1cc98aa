#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <limits>

#include <unistd.h>

#include "config/broker_config.h"

namespace skiff::config {
namespace {

// A properties file in the temp directory, removed when the test ends.
class TempFile {
  public:
    explicit TempFile(std::string_view text) {
        static std::atomic<int> counter{0};
        path_ = std::filesystem::temp_directory_path() /
                ("skiff_config_test_" + std::to_string(::getpid()) + "_" +
                 std::to_string(counter++) + ".properties");
        std::ofstream(path_, std::ios::binary) << text;
    }
    ~TempFile() { std::filesystem::remove(path_); }
    const std::filesystem::path& path() const { return path_; }

  private:
    std::filesystem::path path_;
};

LoadedConfig load_ok(const ConfigSources& sources) {
    auto loaded = load_config(sources);
    EXPECT_TRUE(loaded.has_value()) << loaded.error().message;
    return loaded ? *loaded : LoadedConfig{};
}

ConfigError load_error(const ConfigSources& sources) {
    auto loaded = load_config(sources);
    EXPECT_FALSE(loaded.has_value());
    return loaded ? ConfigError{} : loaded.error();
}

ConfigSources overrides(std::vector<std::string> list) {
    ConfigSources sources;
    sources.overrides = std::move(list);
    return sources;
}

TEST(LoadConfig, NoSourcesGivesDefaults) {
    const auto loaded = load_ok({});
    EXPECT_EQ(loaded.config, BrokerConfig{});
    EXPECT_TRUE(loaded.warnings.empty());
    EXPECT_TRUE(loaded.non_defaults.empty());
    EXPECT_EQ(listeners_to_string(loaded.config.listeners), "PLAINTEXT://127.0.0.1:9092");
    EXPECT_EQ(listeners_to_string(loaded.config.advertised_listeners),
              "PLAINTEXT://127.0.0.1:9092");
}

TEST(LoadConfig, ReadsEveryTypeFromAFile) {
    TempFile file(
        "node.id=7\n"
        "log.dirs=/var/lib/skiff\n"
        "auto.create.topics.enable=FALSE\n"
        "log.segment.bytes = 1048576\n"
        "listeners=PLAINTEXT://:0\n");
    ConfigSources sources;
    sources.file = file.path();
    const auto config = load_ok(sources).config;
    EXPECT_EQ(config.node_id, 7);
    EXPECT_EQ(config.log_dir, "/var/lib/skiff");
    EXPECT_FALSE(config.auto_create_topics_enable);
    EXPECT_EQ(config.log_segment_bytes, 1048576);
    ASSERT_EQ(config.listeners.size(), 1u);
    EXPECT_EQ(config.listeners[0].host, "0.0.0.0");
    EXPECT_EQ(config.listeners[0].port, 0);
}

TEST(LoadConfig, PrecedenceFileThenEnvironmentThenOverride) {
    TempFile file("num.partitions=2\nnode.id=2\nlog.dirs=/from/file\n");
    ConfigSources sources;
    sources.file = file.path();
    sources.environment = {{"SKIFF_NUM_PARTITIONS", "3"}, {"SKIFF_NODE_ID", "3"}, {"PATH", "/bin"}};
    sources.overrides = {"num.partitions=4", "num.partitions=5"};
    const auto loaded = load_ok(sources);
    EXPECT_EQ(loaded.config.num_partitions, 5);  // the last --override wins
    EXPECT_EQ(loaded.config.node_id, 3);
    EXPECT_EQ(loaded.config.log_dir, "/from/file");
    EXPECT_TRUE(loaded.warnings.empty());
}

TEST(LoadConfig, PerListenerSaslMechanisms) {
    ConfigSources sources;
    sources.overrides = {"listeners=PLAINTEXT://:9092,SASL_PLAINTEXT://:9093,INTERNAL://:9094",
                         "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,"
                         "SASL_PLAINTEXT:SASL_PLAINTEXT,INTERNAL:SASL_PLAINTEXT",
                         "sasl.enabled.mechanisms=PLAIN",
                         "listener.name.internal.sasl.enabled.mechanisms=SCRAM-SHA-512"};
    const auto loaded = load_ok(sources);
    EXPECT_EQ(loaded.config.sasl_enabled_mechanisms, "PLAIN");
    EXPECT_EQ(loaded.config.listener_sasl_enabled_mechanisms,
              (std::map<std::string, std::string>{{"INTERNAL", "SCRAM-SHA-512"}}));
    EXPECT_TRUE(loaded.warnings.empty());
}

TEST(LoadConfig, LaterLineInTheFileWins) {
    TempFile file("num.partitions=2\nnum.partitions=6\n");
    ConfigSources sources;
    sources.file = file.path();
    EXPECT_EQ(load_ok(sources).config.num_partitions, 6);
}

TEST(LoadConfig, EnvironmentNamesMapToKeys) {
    ConfigSources sources;
    sources.environment = {{"SKIFF_LOG_RETENTION_CHECK_INTERVAL_MS", "1000"},
                           {"SKIFF_AUTO_CREATE_TOPICS_ENABLE", "false"},
                           {"SKIFF_", "ignored"},
                           {"NOT_SKIFF_NUM_PARTITIONS", "9"}};
    const auto loaded = load_ok(sources);
    EXPECT_EQ(loaded.config.log_retention_check_interval_ms, 1000);
    EXPECT_FALSE(loaded.config.auto_create_topics_enable);
    EXPECT_EQ(loaded.config.num_partitions, 1);
    EXPECT_TRUE(loaded.warnings.empty());
}

TEST(LoadConfig, EnvironmentFromEnvp) {
    char a[] = "SKIFF_NODE_ID=4";
    char b[] = "EMPTY=";
    char c[] = "WITH_EQUALS=a=b";
    char* envp[] = {a, b, c, nullptr};
    const auto env = environment_from(envp);
    ASSERT_EQ(env.size(), 3u);
    EXPECT_EQ(env[0], (std::pair<std::string, std::string>{"SKIFF_NODE_ID", "4"}));
    EXPECT_EQ(env[1].second, "");
    EXPECT_EQ(env[2].second, "a=b");
    EXPECT_TRUE(environment_from(nullptr).empty());
}

TEST(LoadConfig, Aliases) {
    EXPECT_EQ(load_ok(overrides({"broker.id=9"})).config.node_id, 9);
    EXPECT_EQ(load_ok(overrides({"log.dir=/x"})).config.log_dir, "/x");
}

TEST(LoadConfig, CanonicalNameBeatsAliasInOneSourceWithAWarning) {
    TempFile file("node.id=5\nbroker.id=6\n");
    ConfigSources sources;
    sources.file = file.path();
    const auto loaded = load_ok(sources);
    EXPECT_EQ(loaded.config.node_id, 5);
    ASSERT_EQ(loaded.warnings.size(), 1u);
    EXPECT_NE(loaded.warnings[0].find("ignoring broker.id=6"), std::string::npos);
    EXPECT_NE(loaded.warnings[0].find("node.id"), std::string::npos);
}

TEST(LoadConfig, HigherSourceBeatsCanonicalNameInALowerOne) {
    TempFile file("log.dirs=/file\nlog.retention.ms=1000\n");
    ConfigSources sources;
    sources.file = file.path();
    sources.overrides = {"log.dir=/override", "log.retention.hours=2"};
    const auto loaded = load_ok(sources);
    EXPECT_EQ(loaded.config.log_dir, "/override");
    EXPECT_EQ(loaded.config.log_retention_ms, 2 * 3600000);
    EXPECT_TRUE(loaded.warnings.empty());
}

TEST(LoadConfig, RetentionUnitsMsBeatMinutesBeatHours) {
    EXPECT_EQ(load_ok(overrides({"log.retention.hours=2"})).config.log_retention_ms, 7200000);
    EXPECT_EQ(load_ok(overrides({"log.retention.minutes=3"})).config.log_retention_ms, 180000);
    EXPECT_EQ(load_ok(overrides({"log.retention.hours=2", "log.retention.minutes=3"}))
                  .config.log_retention_ms,
              180000);
    EXPECT_EQ(load_ok(overrides({"log.retention.ms=5", "log.retention.minutes=3",
                                 "log.retention.hours=2"}))
                  .config.log_retention_ms,
              5);
    EXPECT_EQ(load_ok(overrides({"log.retention.hours=-1"})).config.log_retention_ms, -1);
    EXPECT_EQ(load_ok(overrides({"log.retention.minutes=-1"})).config.log_retention_ms, -1);
}

TEST(LoadConfig, RollUnitsMsBeatHours) {
    EXPECT_EQ(load_ok(overrides({"log.roll.hours=1"})).config.log_roll_ms, 3600000);
    EXPECT_EQ(load_ok(overrides({"log.roll.hours=1", "log.roll.ms=10"})).config.log_roll_ms, 10);
}

TEST(LoadConfig, UnknownKeysAreWarnings) {
    TempFile file("zookeeper.connect=localhost:2181\n");
    ConfigSources sources;
    sources.file = file.path();
    sources.environment = {{"SKIFF_NO_SUCH", "1"}};
    sources.overrides = {"num.io.threads=8"};
    const auto loaded = load_ok(sources);
    ASSERT_EQ(loaded.warnings.size(), 3u);
    EXPECT_EQ(loaded.warnings[0], "ignoring unknown setting \"zookeeper.connect\" (from " +
                                      file.path().string() + ":1)");
    EXPECT_EQ(loaded.warnings[1],
              "ignoring unknown setting \"no.such\" (from environment variable SKIFF_NO_SUCH)");
    EXPECT_EQ(loaded.warnings[2], "ignoring unknown setting \"num.io.threads\" (from --override)");
}

TEST(LoadConfig, ErrorMessageExampleFromTheIssue) {
    const auto error = load_error(overrides({"log.segment.bytes=abc"}));
    EXPECT_EQ(error.key, "log.segment.bytes");
    EXPECT_EQ(error.value, "abc");
    EXPECT_EQ(error.source, "--override");
    EXPECT_EQ(error.message,
              "invalid value \"abc\" for log.segment.bytes (from --override): expected an integer "
              "between 14 and 2147483647");
}

TEST(LoadConfig, ErrorNamesFileAndLine) {
    TempFile file("# header\nnum.partitions=1\nnum.partitions = 0\n");
    ConfigSources sources;
    sources.file = file.path();
    const auto error = load_error(sources);
    EXPECT_EQ(error.key, "num.partitions");
    EXPECT_EQ(error.value, "0");
    EXPECT_EQ(error.source, file.path().string() + ":3");
    EXPECT_EQ(error.message, "invalid value \"0\" for num.partitions (from " +
                                 file.path().string() + ":3): expected an integer >= 1");
}

TEST(LoadConfig, ErrorNamesEnvironmentVariable) {
    ConfigSources sources;
    sources.environment = {{"SKIFF_AUTO_CREATE_TOPICS_ENABLE", "yes"}};
    const auto error = load_error(sources);
    EXPECT_EQ(error.key, "auto.create.topics.enable");
    EXPECT_EQ(error.source, "environment variable SKIFF_AUTO_CREATE_TOPICS_ENABLE");
    EXPECT_EQ(error.message,
              "invalid value \"yes\" for auto.create.topics.enable (from environment variable "
              "SKIFF_AUTO_CREATE_TOPICS_ENABLE): expected true or false");
}

// Each kind of invalid value: the message names key, value, source and what is allowed.
struct InvalidCase {
    std::string override_text;
    std::string key;
    std::string value;
    std::string allowed;
    friend void PrintTo(const InvalidCase& c, std::ostream* os) { *os << c.override_text; }
};

class InvalidValue : public testing::TestWithParam<InvalidCase> {};

TEST_P(InvalidValue, NamesKeyValueSourceAndAllowed) {
    const auto& c = GetParam();
    const auto error = load_error(overrides({c.override_text}));
    EXPECT_EQ(error.key, c.key);
    EXPECT_EQ(error.value, c.value);
    EXPECT_EQ(error.source, "--override");
    const std::string prefix =
        "invalid value \"" + c.value + "\" for " + c.key + " (from --override): ";
    EXPECT_EQ(error.message.rfind(prefix, 0), 0u) << error.message;
    EXPECT_NE(error.message.find(c.allowed, prefix.size()), std::string::npos) << error.message;
}

INSTANTIATE_TEST_SUITE_P(
    AllKinds, InvalidValue,
    testing::Values(
        InvalidCase{"num.partitions=x", "num.partitions", "x", "expected an integer >= 1"},
        InvalidCase{"num.partitions=", "num.partitions", "", "expected an integer >= 1"},
        InvalidCase{"num.partitions=1.5", "num.partitions", "1.5", "expected an integer >= 1"},
        InvalidCase{"log.segment.bytes=13", "log.segment.bytes", "13",
                    "expected an integer between 14 and 2147483647"},
        InvalidCase{"log.index.size.max.bytes=3", "log.index.size.max.bytes", "3",
                    "expected an integer >= 4"},
        InvalidCase{"message.max.bytes=99999999999", "message.max.bytes", "99999999999",
                    "expected an integer >= 0 (at most 2147483647)"},
        InvalidCase{"log.flush.interval.messages=0", "log.flush.interval.messages", "0",
                    "expected an integer >= 1"},
        InvalidCase{"log.flush.interval.ms=9223372036854775808", "log.flush.interval.ms",
                    "9223372036854775808", "expected an integer >= 0"},
        InvalidCase{"log.retention.ms=-2", "log.retention.ms", "-2",
                    "expected -1 (unlimited) or an integer >= 0"},
        InvalidCase{"log.retention.bytes=-5", "log.retention.bytes", "-5",
                    "expected -1 (unlimited) or an integer >= 0"},
        InvalidCase{"log.retention.minutes=x", "log.retention.minutes", "x",
                    "expected -1 (unlimited) or an integer between 0 and 153722867280912"},
        InvalidCase{"log.roll.hours=0", "log.roll.hours", "0",
                    "expected an integer between 1 and 2562047788015"},
        InvalidCase{"broker.id=-1", "broker.id", "-1", "expected an integer >= 0"},
        InvalidCase{"num.network.threads=0", "num.network.threads", "0",
                    "expected an integer >= 1"},
        InvalidCase{"auto.create.topics.enable=1", "auto.create.topics.enable", "1",
                    "expected true or false"},
        InvalidCase{"listeners=localhost:9092", "listeners", "localhost:9092",
                    "expected NAME://host:port entries separated by commas (\"localhost:9092\" "
                    "has no \"://\")"},
        InvalidCase{"listeners=PLAINTEXT://h:70000", "listeners", "PLAINTEXT://h:70000",
                    "port between 0 and 65535"},
        InvalidCase{"advertised.listeners=PLAINTEXT://0.0.0.0:9092", "advertised.listeners",
                    "PLAINTEXT://0.0.0.0:9092", "expected addresses clients can connect to"},
        InvalidCase{"advertised.listeners=OTHER://h:9092", "advertised.listeners", "OTHER://h:9092",
                    "expected only listener names that appear in listeners (OTHER is not in "
                    "PLAINTEXT://127.0.0.1:9092)"},
        InvalidCase{"listeners=INTERNAL://h:9092", "listeners", "INTERNAL://h:9092",
                    "every listener name must be mapped to a security protocol in "
                    "listener.security.protocol.map (INTERNAL is not; add INTERNAL:PLAINTEXT"},
        InvalidCase{"listeners=SSL://h:9093", "listeners", "SSL://h:9093",
                    "listener SSL uses security protocol SSL, which needs the broker's key and "
                    "certificate"},
        InvalidCase{"ssl.client.auth=always", "ssl.client.auth", "always",
                    "expected none, requested or required"},
        InvalidCase{"ssl.enabled.protocols=TLSv1.1", "ssl.enabled.protocols", "TLSv1.1",
                    "expected TLSv1.2 and/or TLSv1.3"},
        InvalidCase{"ssl.keystore.type=JKS", "ssl.keystore.type", "JKS", "expected PEM"},
        InvalidCase{"sasl.enabled.mechanisms=GSSAPI", "sasl.enabled.mechanisms", "GSSAPI",
                    "(GSSAPI is not served by skiff: no Kerberos or OAuth)"},
        InvalidCase{"listener.name.nope.sasl.enabled.mechanisms=PLAIN",
                    "listener.name.nope.sasl.enabled.mechanisms", "PLAIN",
                    "expected the name of a listener in listeners (NOPE is none)"},
        InvalidCase{"listener.security.protocol.map=PLAINTEXT:SASL_SSL",
                    "listener.security.protocol.map", "PLAINTEXT:SASL_SSL",
                    "listener PLAINTEXT uses security protocol SASL_SSL, which needs the broker's "
                    "key and certificate"},
        InvalidCase{"listener.security.protocol.map=SSL:SSL", "listener.security.protocol.map",
                    "SSL:SSL", "(PLAINTEXT is not; add PLAINTEXT:PLAINTEXT"},
        InvalidCase{"listener.security.protocol.map=PLAINTEXT:TLS",
                    "listener.security.protocol.map", "PLAINTEXT:TLS",
                    "expected NAME:PROTOCOL entries separated by commas"},
        InvalidCase{"log.dirs=/a,/b", "log.dirs", "/a,/b",
                    "expected a single directory (skiff supports one log directory, not a list)"},
        InvalidCase{"log.dir=", "log.dir", "", "expected a directory path"},
        InvalidCase{"super.users=User:admin;ops", "super.users", "User:admin;ops",
                    "expected principals such as User:admin separated by semicolons"},
        InvalidCase{"super.users=User:a; :ops", "super.users", "User:a; :ops",
                    "expected principals such as User:admin separated by semicolons"},
        InvalidCase{"log.cleanup.policy=compacted", "log.cleanup.policy", "compacted",
                    "expected delete, compact or a comma-separated list of both"},
        InvalidCase{"log.cleanup.policy=delete,", "log.cleanup.policy", "delete,",
                    "expected delete, compact"},
        InvalidCase{"log.cleaner.threads=-1", "log.cleaner.threads", "-1",
                    "expected an integer >= 0"},
        InvalidCase{"log.cleaner.min.cleanable.ratio=1.5", "log.cleaner.min.cleanable.ratio", "1.5",
                    "expected a number between 0 and 1"},
        InvalidCase{"log.cleaner.io.buffer.load.factor=0", "log.cleaner.io.buffer.load.factor", "0",
                    "expected a number > 0 and <= 1"},
        InvalidCase{"log.cleaner.io.max.bytes.per.second=fast",
                    "log.cleaner.io.max.bytes.per.second", "fast", "expected a number > 0"},
        InvalidCase{"log.cleaner.max.compaction.lag.ms=0", "log.cleaner.max.compaction.lag.ms", "0",
                    "expected an integer >= 1"},
        InvalidCase{"log.cleaner.enable=yes", "log.cleaner.enable", "yes",
                    "expected true or false"}));

TEST(LoadConfig, CleanerSettingsWithKafkasNamesAndDefaults) {
    const BrokerConfig defaults;
    EXPECT_EQ(defaults.log_cleanup_policy, "delete");
    EXPECT_TRUE(defaults.log_cleaner_enable);
    EXPECT_EQ(defaults.log_cleaner_threads, 1);
    EXPECT_EQ(defaults.log_cleaner_dedupe_buffer_size, 134217728);
    EXPECT_EQ(defaults.log_cleaner_io_buffer_size, 524288);
    EXPECT_DOUBLE_EQ(defaults.log_cleaner_io_buffer_load_factor, 0.9);
    EXPECT_EQ(defaults.log_cleaner_io_max_bytes_per_second, std::numeric_limits<double>::max());
    EXPECT_EQ(defaults.log_cleaner_backoff_ms, 15000);
    EXPECT_EQ(defaults.log_cleaner_delete_retention_ms, 86400000);
    EXPECT_DOUBLE_EQ(defaults.log_cleaner_min_cleanable_ratio, 0.5);
    EXPECT_EQ(defaults.log_cleaner_min_compaction_lag_ms, 0);
    EXPECT_EQ(defaults.log_cleaner_max_compaction_lag_ms, INT64_MAX);

    const auto loaded = load_ok(overrides(
        {"log.cleanup.policy=compact, delete", "log.cleaner.enable=false", "log.cleaner.threads=4",
         "log.cleaner.dedupe.buffer.size=4194304", "log.cleaner.io.buffer.size=65536",
         "log.cleaner.io.buffer.load.factor=0.75", "log.cleaner.io.max.bytes.per.second=1048576.5",
         "log.cleaner.backoff.ms=100", "log.cleaner.delete.retention.ms=1000",
         "log.cleaner.min.cleanable.ratio=0.1", "log.cleaner.min.compaction.lag.ms=5",
         "log.cleaner.max.compaction.lag.ms=60000"}));
    const BrokerConfig& c = loaded.config;
    EXPECT_EQ(c.log_cleanup_policy, "compact, delete");
    EXPECT_FALSE(c.log_cleaner_enable);
    EXPECT_EQ(c.log_cleaner_threads, 4);
    EXPECT_EQ(c.log_cleaner_dedupe_buffer_size, 4194304);
    EXPECT_EQ(c.log_cleaner_io_buffer_size, 65536);
    EXPECT_DOUBLE_EQ(c.log_cleaner_io_buffer_load_factor, 0.75);
    EXPECT_DOUBLE_EQ(c.log_cleaner_io_max_bytes_per_second, 1048576.5);
    EXPECT_EQ(c.log_cleaner_backoff_ms, 100);
    EXPECT_EQ(c.log_cleaner_delete_retention_ms, 1000);
    EXPECT_DOUBLE_EQ(c.log_cleaner_min_cleanable_ratio, 0.1);
    EXPECT_EQ(c.log_cleaner_min_compaction_lag_ms, 5);
    EXPECT_EQ(c.log_cleaner_max_compaction_lag_ms, 60000);
    EXPECT_EQ(loaded.non_defaults.size(), 12u);
}

// Kafka: the dedupe buffer is split between the cleaner threads, each needing 1 MiB at least.
TEST(LoadConfig, DedupeBufferMustGiveEachCleanerThreadOneMiB) {
    auto error =
        load_error(overrides({"log.cleaner.threads=4", "log.cleaner.dedupe.buffer.size=4194303"}));
    EXPECT_EQ(error.key, "log.cleaner.dedupe.buffer.size");
    EXPECT_NE(error.message.find("at least 1 MiB (1048576) per cleaner thread"), std::string::npos)
        << error.message;
    // Only the thread count set: named as the culprit.
    error = load_error(overrides({"log.cleaner.threads=200"}));
    EXPECT_EQ(error.key, "log.cleaner.threads");
    load_ok(overrides({"log.cleaner.threads=4", "log.cleaner.dedupe.buffer.size=4194304"}));
    load_ok(overrides({"log.cleaner.threads=0", "log.cleaner.dedupe.buffer.size=0"}));
}

TEST(LoadConfig, MinCompactionLagMustNotExceedTheMax) {
    const auto error = load_error(overrides(
        {"log.cleaner.min.compaction.lag.ms=1000", "log.cleaner.max.compaction.lag.ms=999"}));
    EXPECT_EQ(error.key, "log.cleaner.min.compaction.lag.ms");
    EXPECT_NE(error.message.find("must not exceed log.cleaner.max.compaction.lag.ms (999)"),
              std::string::npos)
        << error.message;
}

TEST(LoadConfig, ConsumerGroupTimeoutsStayWithinTheirBounds) {
    // Kafka's bounds: a 500 ms heartbeat needs a lower minimum, as a test cluster sets it.
    auto error = load_error(overrides({"group.consumer.heartbeat.interval.ms=500"}));
    EXPECT_EQ(error.key, "group.consumer.heartbeat.interval.ms");
    EXPECT_NE(error.message.find("must be between group.consumer.min.heartbeat.interval.ms (5000)"),
              std::string::npos)
        << error.message;
    load_ok(overrides({"group.consumer.heartbeat.interval.ms=500",
                       "group.consumer.min.heartbeat.interval.ms=100"}));
    error = load_error(overrides({"group.consumer.session.timeout.ms=90000"}));
    EXPECT_EQ(error.key, "group.consumer.session.timeout.ms");
    error = load_error(overrides({"group.consumer.min.session.timeout.ms=1000",
                                  "group.consumer.session.timeout.ms=1000",
                                  "group.consumer.min.heartbeat.interval.ms=1000",
                                  "group.consumer.heartbeat.interval.ms=1000"}));
    EXPECT_NE(error.message.find("must be less than group.consumer.session.timeout.ms"),
              std::string::npos)
        << error.message;
}

TEST(LoadConfig, ShadowedInvalidValueStillStopsStartup) {
    const auto error = load_error(overrides({"log.retention.hours=abc", "log.retention.ms=5"}));
    EXPECT_EQ(error.key, "log.retention.hours");
}

TEST(LoadConfig, SuperUsersMayHaveBlankEntriesAndSpaces) {
    EXPECT_EQ(load_ok(overrides({"super.users=User:a ;; \tUser:b\t;"})).config.super_users,
              "User:a ;; \tUser:b\t;");
    EXPECT_EQ(load_ok(overrides({"super.users="})).config.super_users, "");
}

TEST(LoadConfig, MissingFileIsAnError) {
    ConfigSources sources;
    sources.file = "/nonexistent/skiff.properties";
    const auto error = load_error(sources);
    EXPECT_EQ(error.source, "--config");
    EXPECT_NE(error.message.find("cannot read config file \"/nonexistent/skiff.properties\""),
              std::string::npos);
}

TEST(LoadConfig, MalformedEscapeInFileIsAnError) {
    TempFile file("a=1\nlog.dirs=\\uZZZZ\n");
    ConfigSources sources;
    sources.file = file.path();
    const auto error = load_error(sources);
    EXPECT_EQ(error.source, file.path().string() + ":2");
    EXPECT_NE(error.message.find("\\uXXXX"), std::string::npos);
}

TEST(LoadConfig, MalformedOverrideIsAnError) {
    for (const char* text : {"num.partitions", "=5", " =5"}) {
        const auto error = load_error(overrides({text}));
        EXPECT_EQ(error.source, "--override");
        EXPECT_NE(error.message.find("expected key=value"), std::string::npos) << text;
    }
}

TEST(LoadConfig, OverrideValueMayContainEquals) {
    EXPECT_EQ(load_ok(overrides({"log.dirs=/a=b"})).config.log_dir, "/a=b");
}

TEST(LoadConfig, AdvertisedDefaultsToListenersWithLoopbackForWildcards) {
    const auto config = load_ok(overrides({"listeners=A://:9092,B://[::]:9093,C://10.0.0.5:0",
                                           "listener.security.protocol.map=A:PLAINTEXT,"
                                           "b:plaintext,C:PLAINTEXT"}))
                            .config;
    EXPECT_EQ(listeners_to_string(config.listeners),
              "A://0.0.0.0:9092,B://[::]:9093,C://10.0.0.5:0");
    EXPECT_EQ(listeners_to_string(config.advertised_listeners),
              "A://127.0.0.1:9092,B://[::1]:9093,C://10.0.0.5:0");
}

TEST(LoadConfig, CustomListenerNamesNeedTheMapAsInKafka) {
    // Kafka refuses a listener name without a security protocol; the default map covers only
    // the protocols' own names.
    const auto error = load_error(overrides({"listeners=PLAINTEXT://:9092,INTERNAL://:9093"}));
    EXPECT_EQ(error.key, "listeners");
    EXPECT_NE(error.message.find("INTERNAL is not"), std::string::npos) << error.message;
    const auto config = load_ok(overrides({"listeners=PLAINTEXT://:9092,INTERNAL://:9093",
                                           "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,"
                                           "INTERNAL:PLAINTEXT"}))
                            .config;
    EXPECT_EQ(listeners_to_string(config.listeners),
              "PLAINTEXT://0.0.0.0:9092,INTERNAL://0.0.0.0:9093");
}

TEST(LoadConfig, MappedSslListenerWithoutAKeystoreIsRefusedNotServedInClearText) {
    // Whatever the name, what counts is the protocol it maps to.
    const auto error = load_error(
        overrides({"listeners=EXTERNAL://:9093", "listener.security.protocol.map=EXTERNAL:SSL"}));
    EXPECT_EQ(error.key, "listener.security.protocol.map");
    EXPECT_NE(error.message.find("listener EXTERNAL uses security protocol SSL, which needs the "
                                 "broker's key and certificate"),
              std::string::npos)
        << error.message;
    // With a keystore (read when the broker starts, not here) the listener is accepted.
    EXPECT_TRUE(load_config(
        overrides({"listeners=EXTERNAL://:9093", "listener.security.protocol.map=EXTERNAL:SSL",
                   "ssl.keystore.location=/etc/skiff/broker.pem"})));
}

TEST(LoadConfig, AdvertisedListenersMayNameASubset) {
    // As in Kafka, advertised names must be listener names but need not be all of them; the
    // config keeps what was written (the broker fills in the rest, config::effective_advertised).
    const auto config = load_ok(overrides({"listeners=A://:9092,B://127.0.0.1:9093",
                                           "listener.security.protocol.map=A:PLAINTEXT,B:PLAINTEXT",
                                           "advertised.listeners=B://b.example:19093"}))
                            .config;
    EXPECT_EQ(listeners_to_string(config.advertised_listeners), "B://b.example:19093");
    EXPECT_EQ(
        listeners_to_string(effective_advertised(config.listeners, config.advertised_listeners)),
        "A://127.0.0.1:9092,B://b.example:19093");
}

TEST(LoadConfig, ExplicitAdvertisedListeners) {
    const auto config = load_ok(overrides({"listeners=PLAINTEXT://:9092",
                                           "advertised.listeners=PLAINTEXT://kafka.example:19092"}))
                            .config;
    EXPECT_EQ(listeners_to_string(config.advertised_listeners), "PLAINTEXT://kafka.example:19092");
}

TEST(LoadConfig, ReportsSettingsThatDifferFromDefaults) {
    TempFile file("num.partitions=1\nnum.partitions=3\nlog.retention.hours=1\nnode.id=1\n");
    ConfigSources sources;
    sources.file = file.path();
    sources.environment = {{"SKIFF_LOG_DIRS", "/data"}};
    sources.overrides = {"listeners=PLAINTEXT://127.0.0.1:0"};
    const auto loaded = load_ok(sources);
    const std::string f = file.path().string();
    ASSERT_EQ(loaded.non_defaults.size(), 4u);
    // In table order; node.id=1 equals the default and is left out.
    EXPECT_EQ(loaded.non_defaults[0].key, "listeners");
    EXPECT_EQ(loaded.non_defaults[0].value, "PLAINTEXT://127.0.0.1:0");
    EXPECT_EQ(loaded.non_defaults[0].source, "--override");
    EXPECT_EQ(loaded.non_defaults[1].key, "log.dirs");
    EXPECT_EQ(loaded.non_defaults[1].value, "/data");
    EXPECT_EQ(loaded.non_defaults[1].source, "environment variable SKIFF_LOG_DIRS");
    EXPECT_EQ(loaded.non_defaults[2].key, "num.partitions");
    EXPECT_EQ(loaded.non_defaults[2].value, "3");
    EXPECT_EQ(loaded.non_defaults[2].source, f + ":2");
    EXPECT_EQ(loaded.non_defaults[2].set_as, "");
    EXPECT_EQ(loaded.non_defaults[3].key, "log.retention.ms");
    EXPECT_EQ(loaded.non_defaults[3].value, "3600000");
    EXPECT_EQ(loaded.non_defaults[3].source, f + ":3");
    EXPECT_EQ(loaded.non_defaults[3].set_as, "log.retention.hours=1");
}

TEST(LoadConfig, ExampleServerPropertiesLoadsCleanAndGivesDefaults) {
    ConfigSources sources;
    sources.file = std::filesystem::path(SKIFF_SOURCE_DIR) / "config" / "server.properties";
    const auto loaded = load_ok(sources);
    EXPECT_TRUE(loaded.warnings.empty()) << loaded.warnings.front();
    EXPECT_TRUE(loaded.non_defaults.empty()) << loaded.non_defaults.front().key;
    EXPECT_EQ(loaded.config, BrokerConfig{});
}

TEST(LoadConfig, ExampleServerPropertiesMentionsEveryKey) {
    std::ifstream in(std::filesystem::path(SKIFF_SOURCE_DIR) / "config" / "server.properties");
    const std::string text{std::istreambuf_iterator<char>(in), {}};
    for (const std::string key : {"listeners",
                                  "advertised.listeners",
                                  "listener.security.protocol.map",
                                  "node.id",
                                  "log.dirs",
                                  "num.partitions",
                                  "auto.create.topics.enable",
                                  "log.segment.bytes",
                                  "log.index.interval.bytes",
                                  "log.index.size.max.bytes",
                                  "log.roll.ms",
                                  "log.roll.hours",
                                  "log.retention.ms",
                                  "log.retention.hours",
                                  "log.retention.bytes",
                                  "log.retention.check.interval.ms",
                                  "log.flush.interval.messages",
                                  "log.flush.interval.ms",
                                  "message.max.bytes",
                                  "socket.request.max.bytes",
                                  "queued.max.request.bytes",
                                  "num.network.threads",
                                  "max.connections",
                                  "connections.max.idle.ms",
                                  "group.initial.rebalance.delay.ms",
                                  "offsets.retention.minutes",
                                  "log.cleanup.policy",
                                  "log.cleaner.enable",
                                  "log.cleaner.threads",
                                  "log.cleaner.dedupe.buffer.size",
                                  "log.cleaner.io.buffer.size",
                                  "log.cleaner.io.buffer.load.factor",
                                  "log.cleaner.io.max.bytes.per.second",
                                  "log.cleaner.backoff.ms",
                                  "log.cleaner.delete.retention.ms",
                                  "log.cleaner.min.cleanable.ratio",
                                  "log.cleaner.min.compaction.lag.ms",
                                  "log.cleaner.max.compaction.lag.ms"}) {
        EXPECT_NE(text.find(key + "="), std::string::npos) << key;
    }
}

}  // namespace
}  // namespace skiff::config
