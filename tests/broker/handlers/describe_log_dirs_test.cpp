// DescribeLogDirs: one result for skiff's log dir (absolute path), each partition with its size
// on disk; a null topic list means all partitions, unknown ones are left out; v4 adds the
// directory's total and usable bytes.
#include <gtest/gtest.h>

#include "handler_fixture.h"
#include "protocol/produce.h"

namespace skiff::broker::test {
namespace {

using protocol::DescribeLogDirsRequest;

class DescribeLogDirsTest : public HandlerTest {
  protected:
    void produce(const std::string& topic, int32_t partition, int records) {
        auto batch = make_batch(records);
        protocol::ProduceRequest req;
        req.acks = -1;
        req.topic_data.push_back({topic, {}, {{partition, std::span<const std::byte>(batch)}}});
        auto resp = run(handle_produce, req, 9);
        ASSERT_EQ(resp.responses[0].partition_responses[0].error_code, ErrorCode::none);
    }
};

TEST_F(DescribeLogDirsTest, AllPartitionsWithTheirSizes) {
    create_topic("a", 2);
    create_topic("b");
    produce("a", 1, 5);
    auto resp = run(handle_describe_log_dirs, DescribeLogDirsRequest{}, 4);
    EXPECT_EQ(resp.error_code, ErrorCode::none);
    ASSERT_EQ(resp.results.size(), 1u);
    const auto& dir = resp.results[0];
    EXPECT_EQ(dir.error_code, ErrorCode::none);
    EXPECT_EQ(dir.log_dir, fs::absolute(broker().logs().log_dir()).string());
    EXPECT_GT(dir.total_bytes, 0);
    EXPECT_GE(dir.usable_bytes, 0);
    EXPECT_LE(dir.usable_bytes, dir.total_bytes);
    std::map<std::string, std::map<int32_t, int64_t>> sizes;
    for (const auto& t : dir.topics)
        for (const auto& p : t.partitions)
            sizes[t.name][p.partition_index] = p.partition_size;
    ASSERT_EQ(sizes["a"].size(), 2u);
    EXPECT_EQ(sizes["a"][0], 0);
    EXPECT_EQ(sizes["a"][1], broker().logs().get({"a", 1})->size_bytes());
    EXPECT_GT(sizes["a"][1], 0);
    EXPECT_EQ(sizes["b"].size(), 1u);
}

TEST_F(DescribeLogDirsTest, OnlyWhatWasAskedForThatExistsInEveryVersion) {
    create_topic("a", 2);
    create_topic("b");
    DescribeLogDirsRequest req;
    req.topics = std::vector<protocol::DescribableLogDirTopic>{{"a", {1, 7}}, {"missing", {0}}};
    for (int16_t v = 0; v <= 4; ++v) {
        auto resp = run(handle_describe_log_dirs, req, v);
        ASSERT_EQ(resp.results.size(), 1u);
        ASSERT_EQ(resp.results[0].topics.size(), 1u) << "v" << v;
        EXPECT_EQ(resp.results[0].topics[0].name, "a");
        ASSERT_EQ(resp.results[0].topics[0].partitions.size(), 1u);
        EXPECT_EQ(resp.results[0].topics[0].partitions[0].partition_index, 1);
    }
}

}  // namespace
}  // namespace skiff::broker::test
