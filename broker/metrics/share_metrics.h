// Share groups' share-partitions on /metrics (docs/metrics.md): the records each share-partition
// has in flight (acquired, under a lock) and its lag (records from its start offset to the high
// watermark not yet acknowledged or archived, KIP-1226's lag), by group, topic and partition.
#pragma once

#include "broker/metrics/exposition.h"
#include "broker/share/share_partition_manager.h"

namespace skiff::broker::metrics {

void write_share_partitions(Exposition& out, const share::SharePartitionManager& shares);

}  // namespace skiff::broker::metrics
