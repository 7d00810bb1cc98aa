// Kafka API keys (the first int16 of every request header). Only the APIs skiff serves or plans to
// serve are named; any other int16 is still representable and answered as unsupported.
#pragma once

#include <cstdint>

namespace skiff::protocol {

enum class ApiKey : int16_t {
    produce = 0,
    fetch = 1,
    list_offsets = 2,
    metadata = 3,
    offset_commit = 8,
    offset_fetch = 9,
    find_coordinator = 10,
    join_group = 11,
    heartbeat = 12,
    leave_group = 13,
    sync_group = 14,
    describe_groups = 15,
    list_groups = 16,
    api_versions = 18,
    create_topics = 19,
    delete_topics = 20,
    delete_records = 21,
    init_producer_id = 22,
    describe_configs = 32,
    alter_configs = 33,
    create_partitions = 37,
    delete_groups = 42,
    incremental_alter_configs = 44,
};

// Kafka's name for the API ("Produce", "ApiVersions"), or "Unknown".
const char* api_name(ApiKey key);

}  // namespace skiff::protocol
