// The share-partition families of /metrics (broker/metrics/share_metrics.h) from the manager's
// stats(): in-flight records and lag by group, topic and partition.
#include "broker/metrics/share_metrics.h"

#include <gtest/gtest.h>

namespace skiff::broker::metrics {
namespace {

// A manager that has only stats: what /metrics reads.
class StatsOnly final : public share::SharePartitionManager {
  public:
    std::vector<PartitionStats> rows;
    std::optional<int64_t> next_fetch_offset(const share::SharePartitionKey&,
                                             const share::ShareGroupConfig&,
                                             const share::LogBounds&, int64_t) override {
        return std::nullopt;
    }
    std::vector<share::AcquiredRecords> acquire(const share::SharePartitionKey&, const std::string&,
                                                std::span<const share::FetchedBatch>, int32_t,
                                                const share::ShareGroupConfig&, int64_t,
                                                share::UnsyncedWrites&) override {
        return {};
    }
    protocol::ErrorCode acknowledge(const share::SharePartitionKey&, const std::string&,
                                    std::span<const share::AcknowledgementBatch>,
                                    const share::ShareGroupConfig&, int64_t,
                                    share::UnsyncedWrites&) override {
        return protocol::ErrorCode::none;
    }
    void release_member(const std::string&, const std::string&, int64_t) override {}
    void delete_group(const std::string&) override {}
    void tick(int64_t) override {}
    std::vector<PartitionStats> stats() const override { return rows; }
    std::map<storage::TopicPartition, PartitionOffset> describe_offsets(
        const std::string&, const std::vector<storage::TopicPartition>&) override {
        return {};
    }
    std::vector<storage::TopicPartition> partitions_with_state(const std::string&) override {
        return {};
    }
    std::map<storage::TopicPartition, protocol::ErrorCode> alter_offsets(
        const std::string&, const std::map<storage::TopicPartition, int64_t>&) override {
        return {};
    }
    std::map<storage::TopicPartition, protocol::ErrorCode> delete_offsets(
        const std::string&, const std::vector<storage::TopicPartition>&) override {
        return {};
    }
};

TEST(ShareMetrics, InFlightAndLagBySharePartition) {
    StatsOnly shares;
    share::SharePartitionManager::PartitionStats s;
    s.key = {"queue", {"orders", 2}, {}};
    s.start_offset = 10;
    s.in_flight = 7;
    s.lag = 90;
    shares.rows.push_back(s);
    Exposition out;
    write_share_partitions(out, shares);
    const std::string text = out.text();
    EXPECT_NE(text.find("# TYPE skiff_share_partition_in_flight gauge\n"), std::string::npos);
    EXPECT_NE(text.find("skiff_share_partition_in_flight{group=\"queue\",topic=\"orders\","
                        "partition=\"2\"} 7\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("skiff_share_partition_lag{group=\"queue\",topic=\"orders\","
                        "partition=\"2\"} 90\n"),
              std::string::npos)
        << text;
}

}  // namespace
}  // namespace skiff::broker::metrics
