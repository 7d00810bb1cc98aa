// What clients wrote to and read from one partition, kept with its log so that the request path
// counts it without a lookup or a lock (relaxed atomics; one writer thread per request). The
// broker's metrics endpoint sums the partitions by topic. Not persisted: counters start at zero
// with the process, as Prometheus expects of counters.
#pragma once

#include <atomic>
#include <cstdint>

namespace skiff::storage {

struct PartitionTraffic {
    std::atomic<uint64_t> records_produced{0};
    std::atomic<uint64_t> bytes_produced{0};   // record batch bytes as stored
    std::atomic<uint64_t> records_fetched{0};  // offsets spanned by the batches returned
    std::atomic<uint64_t> bytes_fetched{0};    // record bytes returned to consumers

    static void add(std::atomic<uint64_t>& counter, uint64_t n) {
        counter.fetch_add(n, std::memory_order_relaxed);
    }
};

}  // namespace skiff::storage
