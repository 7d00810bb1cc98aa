// Kafka's default partitioner for records with a key, which REST Proxy's producer uses when a
// record names no partition: murmur2 of the key's bytes (Kafka's Utils.murmur2, seed
// 0x9747b28c), made positive, modulo the topic's partition count. So a key lands where a Java
// producer (or librdkafka's murmur2_random) would put it.
#pragma once

#include <cstdint>
#include <string_view>

namespace skiff::broker::console::rest_v3 {

int32_t murmur2(std::string_view bytes);
int32_t partition_for_key(std::string_view key, int32_t partitions);

}  // namespace skiff::broker::console::rest_v3
