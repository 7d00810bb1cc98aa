// Kafka's default partitioner for a record with a key: murmur2 of the key's bytes, made positive
// by masking the sign bit, modulo the partition count (the Java client's
// BuiltInPartitioner.partitionForKey), so a test message produced from the console lands on the
// partition a Java producer would pick for the same key.
#pragma once

#include <cstdint>
#include <string_view>

namespace skiff::broker::console {

// MurmurHash2, 32-bit, with Kafka's seed 0x9747b28c, as org.apache.kafka.common.utils.Utils.
int32_t murmur2(std::string_view key);

// The partition of `key` among `partitions` (> 0).
int32_t partition_for_key(std::string_view key, int32_t partitions);

}  // namespace skiff::broker::console
