#include "broker/metrics/share_metrics.h"

#include <string>

namespace skiff::broker::metrics {

void write_share_partitions(Exposition& out, const share::SharePartitionManager& shares) {
    const auto stats = shares.stats();
    out.family("skiff_share_partition_in_flight", "gauge",
               "Records of each share group's share-partition acquired by a consumer now (under "
               "an acquisition lock).");
    for (const auto& s : stats)
        out.sample("skiff_share_partition_in_flight",
                   {{"group", s.key.group_id},
                    {"topic", s.key.tp.topic},
                    {"partition", std::to_string(s.key.tp.partition)}},
                   static_cast<double>(s.in_flight));
    out.family("skiff_share_partition_lag", "gauge",
               "Records of each share group's share-partition between its start offset and the "
               "high watermark that are not yet acknowledged or archived.");
    for (const auto& s : stats)
        out.sample("skiff_share_partition_lag",
                   {{"group", s.key.group_id},
                    {"topic", s.key.tp.topic},
                    {"partition", std::to_string(s.key.tp.partition)}},
                   static_cast<double>(s.lag));
}

}  // namespace skiff::broker::metrics
