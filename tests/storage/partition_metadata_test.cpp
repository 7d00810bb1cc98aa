// partition.metadata: topic id text form, the file round trip, parse errors, and the LogManager's
// use of it (ids kept across restarts, given to old dirs, mismatches refused, new id after a
// topic is removed and created again).
#include "storage/partition_metadata.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "storage/log_manager.h"
#include "tests/storage/test_batches.h"

namespace skiff::storage {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

void put(const fs::path& p, const std::string& text) {
    std::ofstream(p, std::ios::trunc) << text;
}

TEST(TopicIdTest, TextIsKafkasBase64UrlWithoutPadding) {
    TopicId id;
    for (size_t i = 0; i < 16; ++i)
        id.bytes[i] = static_cast<uint8_t>(i * 17);
    // base64.urlsafe_b64encode(bytes(i * 17 for i in range(16))).rstrip(b"=")
    EXPECT_EQ(to_string(id), "ABEiM0RVZneImaq7zN3u_w");
    EXPECT_EQ(parse_topic_id("ABEiM0RVZneImaq7zN3u_w"), id);
    TopicId zero;
    EXPECT_EQ(to_string(zero), "AAAAAAAAAAAAAAAAAAAAAA");
}

TEST(TopicIdTest, ParseRejectsWhatIsNotSixteenBytes) {
    EXPECT_FALSE(parse_topic_id(""));
    EXPECT_FALSE(parse_topic_id("ABEiM0RVZneImaq7zN3u_"));    // 21 characters
    EXPECT_FALSE(parse_topic_id("ABEiM0RVZneImaq7zN3u_w="));  // padding
    EXPECT_FALSE(parse_topic_id("ABEiM0RVZneImaq7zN3u+w"));   // base64, not base64url
    EXPECT_FALSE(parse_topic_id("ABEiM0RVZneImaq7zN3u_x"));   // trailing bits set
}

TEST(TopicIdTest, RandomIdsAreVersion4AndNeverReserved) {
    std::set<std::string> seen;
    for (int i = 0; i < 2000; ++i) {
        TopicId id = random_topic_id();
        EXPECT_FALSE(id.is_zero());
        EXPECT_EQ(id.bytes[6] >> 4, 4);
        EXPECT_EQ(id.bytes[8] >> 6, 2);
        const std::string text = to_string(id);
        EXPECT_NE(text.front(), '-');
        EXPECT_EQ(parse_topic_id(text), id);
        seen.insert(text);
    }
    EXPECT_EQ(seen.size(), 2000u);
}

TEST(PartitionMetadataTest, RoundTripAndExactText) {
    TempDir dir;
    auto missing = read_partition_metadata(dir.path());
    ASSERT_TRUE(missing);
    EXPECT_FALSE(missing->has_value());
    TopicId id = random_topic_id();
    ASSERT_TRUE(write_partition_metadata(dir.path(), id));
    EXPECT_EQ(test::read_text(dir.path() / kPartitionMetadataFile),
              "version: 0\ntopic_id: " + to_string(id) + "\n");
    auto back = read_partition_metadata(dir.path());
    ASSERT_TRUE(back);
    EXPECT_EQ(**back, id);
}

TEST(PartitionMetadataTest, WriteReplacesAtomicallyAndLeavesNoTemporaryFile) {
    TempDir dir;
    put(dir.path() / kPartitionMetadataFile, "garbage that is longer than the new file's text\n");
    TopicId id = random_topic_id();
    ASSERT_TRUE(write_partition_metadata(dir.path(), id));
    EXPECT_EQ(test::read_text(dir.path() / kPartitionMetadataFile),
              "version: 0\ntopic_id: " + to_string(id) + "\n");
    size_t files = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path()))
        ++files;
    EXPECT_EQ(files, 1u);  // the .tmp was renamed over the file
}

TEST(PartitionMetadataTest, ParseErrorsNameTheFile) {
    TempDir dir;
    const fs::path file = dir.path() / kPartitionMetadataFile;
    for (const std::string& bad : {
             std::string(""),
             std::string("version: 1\ntopic_id: ABEiM0RVZneImaq7zN3u_w\n"),
             std::string("version: 0\n"),
             std::string("version: 0\ntopic_id: nonsense\n"),
             std::string("version: 0\ntopic-id: ABEiM0RVZneImaq7zN3u_w\n"),
             std::string("version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAA\n"),
         }) {
        put(file, bad);
        auto r = read_partition_metadata(dir.path());
        ASSERT_FALSE(r) << bad;
        EXPECT_EQ(r.error().code, StorageErrc::corrupt) << bad;
        EXPECT_NE(r.error().message.find(file.string()), std::string::npos) << r.error().message;
    }
}

class LogManagerTopicIdTest : public ::testing::Test {
  protected:
    TempDir dir;
    std::unique_ptr<LogManager> open() {
        auto m = LogManager::open(dir.path(), test::small_config(1 << 20, 4096));
        EXPECT_TRUE(m) << (m ? "" : m.error().message);
        return m ? std::move(*m) : nullptr;
    }
    Expected<std::unique_ptr<LogManager>, StorageError> try_open() {
        return LogManager::open(dir.path(), test::small_config(1 << 20, 4096));
    }
};

TEST_F(LogManagerTopicIdTest, EveryPartitionHoldsTheTopicsIdAcrossRestarts) {
    TopicId id;
    {
        auto m = open();
        ASSERT_TRUE(m->create_partitions("t", 0, 3));
        ASSERT_TRUE(m->topic_id("t"));
        id = *m->topic_id("t");
        ASSERT_TRUE(m->create_partitions("t", 3, 4));  // grown: same id
        for (int p = 0; p < 4; ++p)
            EXPECT_EQ(**read_partition_metadata(dir.path() / ("t-" + std::to_string(p))), id);
        ASSERT_TRUE(m->close());
    }
    auto m = open();
    EXPECT_EQ(m->topic_id("t"), id);
}

TEST_F(LogManagerTopicIdTest, RemovedAndCreatedAgainGetsANewId) {
    auto m = open();
    ASSERT_TRUE(m->create_partitions("t", 0, 1));
    TopicId old = *m->topic_id("t");
    m->remove("t");
    EXPECT_FALSE(m->topic_id("t"));
    ASSERT_TRUE(m->create_partitions("t", 0, 1));
    EXPECT_NE(*m->topic_id("t"), old);
}

TEST_F(LogManagerTopicIdTest, DirsWithoutTheFileGetTheirTopicsId) {
    {
        auto m = open();
        ASSERT_TRUE(m->create_partitions("old", 0, 2));
        ASSERT_TRUE(m->create_partitions("half", 0, 2));
        ASSERT_TRUE(m->close());
    }
    fs::remove(dir.path() / "old-0" / kPartitionMetadataFile);
    fs::remove(dir.path() / "old-1" / kPartitionMetadataFile);
    const TopicId half = **read_partition_metadata(dir.path() / "half-0");
    fs::remove(dir.path() / "half-1" / kPartitionMetadataFile);
    auto m = open();
    ASSERT_TRUE(m->topic_id("old"));
    EXPECT_EQ(**read_partition_metadata(dir.path() / "old-0"), *m->topic_id("old"));
    EXPECT_EQ(**read_partition_metadata(dir.path() / "old-1"), *m->topic_id("old"));
    EXPECT_EQ(m->topic_id("half"), half);  // the other partition's id, not a new one
    EXPECT_EQ(**read_partition_metadata(dir.path() / "half-1"), half);
}

TEST_F(LogManagerTopicIdTest, AMismatchFailsTheOpenNamingTheDirectory) {
    {
        auto m = open();
        ASSERT_TRUE(m->create_partitions("t", 0, 2));
        ASSERT_TRUE(m->close());
    }
    TopicId other = random_topic_id();
    ASSERT_TRUE(write_partition_metadata(dir.path() / "t-1", other));
    auto m = try_open();
    ASSERT_FALSE(m);
    EXPECT_EQ(m.error().code, StorageErrc::corrupt);
    EXPECT_NE(m.error().message.find("inconsistent topic id"), std::string::npos);
    EXPECT_NE(m.error().message.find((dir.path() / "t-0").string()), std::string::npos);
    EXPECT_NE(m.error().message.find((dir.path() / "t-1").string()), std::string::npos);
}

TEST_F(LogManagerTopicIdTest, AnUnparsableFileFailsTheOpenNamingIt) {
    {
        auto m = open();
        ASSERT_TRUE(m->create_partitions("t", 0, 1));
        ASSERT_TRUE(m->close());
    }
    put(dir.path() / "t-0" / kPartitionMetadataFile, "version: 0\ntopic_id: ???\n");
    auto m = try_open();
    ASSERT_FALSE(m);
    EXPECT_NE(m.error().message.find((dir.path() / "t-0" / kPartitionMetadataFile).string()),
              std::string::npos)
        << m.error().message;
}

}  // namespace
}  // namespace skiff::storage
