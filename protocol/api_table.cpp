#include "protocol/api_table.h"

#include <array>

namespace skiff::protocol {
namespace {

// {key, min, max, first flexible}. Keep sorted by key; see the header for why minimums are low.
constexpr std::array kSupportedApis{
    ApiSupport{ApiKey::produce, 0, 9, 9},
    ApiSupport{ApiKey::fetch, 4, 12, 12},
    ApiSupport{ApiKey::list_offsets, 1, 7, 6},
    ApiSupport{ApiKey::metadata, 0, 12, 9},
    // Consumer groups: FindCoordinator must contain 0 for librdkafka; OffsetFetch 7 is what
    // librdkafka sends (flexible from 6).
    ApiSupport{ApiKey::offset_commit, 0, 8, 8},
    ApiSupport{ApiKey::offset_fetch, 0, 7, 6},
    ApiSupport{ApiKey::find_coordinator, 0, 4, 3},
    ApiSupport{ApiKey::join_group, 0, 7, 6},
    ApiSupport{ApiKey::heartbeat, 0, 4, 4},
    ApiSupport{ApiKey::leave_group, 0, 4, 4},
    ApiSupport{ApiKey::sync_group, 0, 5, 4},
    ApiSupport{ApiKey::describe_groups, 0, 5, 5},
    ApiSupport{ApiKey::list_groups, 0, 4, 3},
    ApiSupport{ApiKey::api_versions, 0, 3, 3},
    // Topic administration (clients send CreateTopics 0-4, DeleteTopics 0-3, DescribeConfigs 0-2)
    // and the idempotent producer (InitProducerId must contain 0 for librdkafka).
    ApiSupport{ApiKey::create_topics, 0, 4, 5},
    ApiSupport{ApiKey::delete_topics, 0, 3, 4},
    ApiSupport{ApiKey::init_producer_id, 0, 4, 2},
    ApiSupport{ApiKey::describe_configs, 0, 2, 4},
    ApiSupport{ApiKey::alter_configs, 0, 1, 2},
    ApiSupport{ApiKey::create_partitions, 0, 1, 2},
    ApiSupport{ApiKey::delete_groups, 0, 2, 2},
    ApiSupport{ApiKey::incremental_alter_configs, 0, 1, 1},
};

constexpr bool sorted_by_key() {
    for (size_t i = 1; i < kSupportedApis.size(); ++i)
        if (kSupportedApis[i - 1].key >= kSupportedApis[i].key)
            return false;
    return true;
}
static_assert(sorted_by_key(), "kSupportedApis must be sorted by API key");

}  // namespace

const char* api_name(ApiKey key) {
    switch (key) {
        case ApiKey::produce:
            return "Produce";
        case ApiKey::fetch:
            return "Fetch";
        case ApiKey::list_offsets:
            return "ListOffsets";
        case ApiKey::metadata:
            return "Metadata";
        case ApiKey::offset_commit:
            return "OffsetCommit";
        case ApiKey::offset_fetch:
            return "OffsetFetch";
        case ApiKey::find_coordinator:
            return "FindCoordinator";
        case ApiKey::join_group:
            return "JoinGroup";
        case ApiKey::heartbeat:
            return "Heartbeat";
        case ApiKey::leave_group:
            return "LeaveGroup";
        case ApiKey::sync_group:
            return "SyncGroup";
        case ApiKey::describe_groups:
            return "DescribeGroups";
        case ApiKey::list_groups:
            return "ListGroups";
        case ApiKey::api_versions:
            return "ApiVersions";
        case ApiKey::create_topics:
            return "CreateTopics";
        case ApiKey::delete_topics:
            return "DeleteTopics";
        case ApiKey::delete_records:
            return "DeleteRecords";
        case ApiKey::init_producer_id:
            return "InitProducerId";
        case ApiKey::describe_configs:
            return "DescribeConfigs";
        case ApiKey::alter_configs:
            return "AlterConfigs";
        case ApiKey::create_partitions:
            return "CreatePartitions";
        case ApiKey::delete_groups:
            return "DeleteGroups";
        case ApiKey::incremental_alter_configs:
            return "IncrementalAlterConfigs";
    }
    return "Unknown";
}

std::span<const ApiSupport> supported_apis() {
    return kSupportedApis;
}

const ApiSupport* find_api(int16_t api_key) {
    for (const ApiSupport& api : kSupportedApis)
        if (static_cast<int16_t>(api.key) == api_key)
            return &api;
    return nullptr;
}

bool is_flexible(ApiKey key, int16_t version) {
    const ApiSupport* api = find_api(key);
    return api != nullptr && version >= api->first_flexible_version;
}

int16_t response_header_version(ApiKey key, int16_t version) {
    if (key == ApiKey::api_versions)
        return 0;
    return is_flexible(key, version) ? 1 : 0;
}

}  // namespace skiff::protocol
