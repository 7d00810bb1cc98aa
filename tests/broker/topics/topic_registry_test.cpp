#include "broker/topics/topic_registry.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

namespace skiff::broker {
namespace {

namespace fs = std::filesystem;

class TempDir {
  public:
    TempDir() {
        std::string t = (fs::temp_directory_path() / "skiff-broker-XXXXXX").string();
        path = mkdtemp(t.data());
    }
    ~TempDir() { fs::remove_all(path); }
    fs::path path;
};

TEST(TopicNames, KafkaRulesAndNothingThatEscapesTheLogDir) {
    for (const char* ok : {"orders", "a", "A.b_c-9", "..a", "a.."})
        EXPECT_FALSE(TopicRegistry::invalid_topic_reason(ok)) << ok;
    for (const char* bad : {"", ".", "..", "../etc", "a/b", "a b", "tab\t", "ü", "a\\b"})
        EXPECT_TRUE(TopicRegistry::invalid_topic_reason(bad)) << bad;
    EXPECT_FALSE(TopicRegistry::invalid_topic_reason(std::string(249, 'x')));
    EXPECT_TRUE(TopicRegistry::invalid_topic_reason(std::string(250, 'x')));
}

TEST(TopicRegistry, CreatesPartitionsAndRebuildsFromDisk) {
    TempDir dir;
    {
        auto logs = storage::LogManager::open(dir.path, {});
        ASSERT_TRUE(logs);
        TopicRegistry topics(**logs);
        auto created = topics.get_or_create("events", 3);
        EXPECT_EQ(created.error, protocol::ErrorCode::none);
        EXPECT_EQ(created.partition_count, 3);
        // A second create keeps the existing count.
        EXPECT_EQ(topics.get_or_create("events", 5).partition_count, 3);
        EXPECT_EQ(topics.get_or_create("../x", 1).error,
                  protocol::ErrorCode::invalid_topic_exception);
        EXPECT_FALSE(fs::exists(dir.path / "../x-0"));
        ASSERT_TRUE((*logs)->close());
    }
    for (int p = 0; p < 3; ++p)
        EXPECT_TRUE(fs::is_directory(dir.path / ("events-" + std::to_string(p))));
    auto logs = storage::LogManager::open(dir.path, {});
    ASSERT_TRUE(logs);
    TopicRegistry reopened(**logs);
    EXPECT_EQ(reopened.partition_count("events"), 3);
    EXPECT_FALSE(reopened.partition_count("missing"));
    ASSERT_EQ(reopened.list().size(), 1u);
}

TEST(TopicRegistry, InternalTopicsCannotBeGrownOrReconfigured) {
    TempDir dir;
    auto logs = storage::LogManager::open(dir.path, {});
    ASSERT_TRUE(logs);
    TopicRegistry topics(**logs);
    ASSERT_EQ(topics.get_or_create("__consumer_offsets", 1).error, protocol::ErrorCode::none);
    EXPECT_EQ(topics.add_partitions("__consumer_offsets", 4, false).error,
              protocol::ErrorCode::invalid_request);
    EXPECT_EQ(topics.set_overrides("__consumer_offsets", {{"retention.ms", "1"}}, false).error,
              protocol::ErrorCode::invalid_request);
    EXPECT_EQ(topics.partition_count("__consumer_offsets"), 1);
    ASSERT_TRUE((*logs)->close());
}

bool any_entry_starts_with(const fs::path& dir, const std::string& prefix) {
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.path().filename().string().starts_with(prefix))
            return true;
    return false;
}

// A regular file where partition `p` of `topic` would get its directory: creating it fails.
void block_partition(const fs::path& dir, const std::string& topic, int p) {
    std::ofstream(dir / (topic + "-" + std::to_string(p))) << "in the way";
}

TEST(TopicRegistry, FailedCreationLeavesNothingOfTheTopic) {
    TempDir dir;
    auto logs = storage::LogManager::open(dir.path, {});
    ASSERT_TRUE(logs);
    TopicRegistry topics(**logs);
    block_partition(dir.path, "half", 3);
    auto created = topics.create("half", 6, {{"retention.ms", "1000"}}, false);
    EXPECT_EQ(created.error, protocol::ErrorCode::kafka_storage_error);
    EXPECT_NE(created.message.find("partition 3 of topic half"), std::string::npos)
        << created.message;
    EXPECT_FALSE(topics.partition_count("half"));
    EXPECT_TRUE(topics.list().empty());
    EXPECT_FALSE(topics.overrides("half"));
    fs::remove(dir.path / "half-3");
    EXPECT_FALSE(any_entry_starts_with(dir.path, "half"));  // partitions and overrides file
    EXPECT_TRUE((*logs)->partitions().empty());

    // Nothing remembered: the same name is created in full, without the old overrides.
    ASSERT_EQ(topics.create("half", 2, {}, false).error, protocol::ErrorCode::none);
    EXPECT_EQ(topics.partition_count("half"), 2);
    ASSERT_TRUE(topics.overrides("half"));
    EXPECT_TRUE(topics.overrides("half")->empty());

    // Growing fails the same way: the topic keeps its partitions, the new ones are gone.
    block_partition(dir.path, "half", 4);
    EXPECT_EQ(topics.add_partitions("half", 6, false).error,
              protocol::ErrorCode::kafka_storage_error);
    EXPECT_EQ(topics.partition_count("half"), 2);
    EXPECT_FALSE(fs::exists(dir.path / "half-2"));
    EXPECT_FALSE(fs::exists(dir.path / "half-3"));
    EXPECT_EQ((*logs)->partitions().size(), 2u);
    ASSERT_TRUE((*logs)->close());
}

TEST(TopicRegistry, FailedAutoCreationBacksOff) {
    TempDir dir;
    auto logs = storage::LogManager::open(dir.path, {});
    ASSERT_TRUE(logs);
    TopicRegistry topics(**logs);
    const auto t0 = TopicRegistry::Clock::now();
    block_partition(dir.path, "auto", 2);
    auto first = topics.auto_create("auto", 4, t0);
    EXPECT_EQ(first.error, protocol::ErrorCode::kafka_storage_error);
    EXPECT_FALSE(first.backing_off);
    // Within the back-off the failure is answered without trying: even with the obstacle gone
    // nothing is created.
    fs::remove(dir.path / "auto-2");
    auto again = topics.auto_create("auto", 4, t0 + std::chrono::seconds(4));
    EXPECT_EQ(again.error, protocol::ErrorCode::kafka_storage_error);
    EXPECT_TRUE(again.backing_off);
    EXPECT_FALSE(any_entry_starts_with(dir.path, "auto"));
    // A second failure doubles the back-off (5 s, then 10 s).
    block_partition(dir.path, "auto", 2);
    EXPECT_FALSE(topics.auto_create("auto", 4, t0 + std::chrono::seconds(5)).backing_off);
    EXPECT_TRUE(topics.auto_create("auto", 4, t0 + std::chrono::seconds(14)).backing_off);
    fs::remove(dir.path / "auto-2");
    auto created = topics.auto_create("auto", 4, t0 + std::chrono::seconds(15));
    EXPECT_EQ(created.error, protocol::ErrorCode::none);
    EXPECT_EQ(created.partition_count, 4);
    EXPECT_EQ(topics.partition_count("auto"), 4);
    // Other topics are not held back by one that failed; CreateTopics never backs off.
    block_partition(dir.path, "other", 0);
    EXPECT_FALSE(topics.auto_create("other", 1, t0 + std::chrono::seconds(15)).backing_off);
    fs::remove(dir.path / "other-0");
    EXPECT_EQ(topics.create("other", 1, {}, false).error, protocol::ErrorCode::none);
    EXPECT_EQ(topics.auto_create("other", 1, t0 + std::chrono::seconds(16)).partition_count, 1);
    ASSERT_TRUE((*logs)->close());
}

}  // namespace
}  // namespace skiff::broker
