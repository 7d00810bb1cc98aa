#include "broker/topic_registry.h"

#include <gtest/gtest.h>

#include <filesystem>

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

}  // namespace
}  // namespace skiff::broker
