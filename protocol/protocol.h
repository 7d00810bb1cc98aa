// Everything the broker needs from protocol/: framing, headers, the API table and every message.
//
// Adding an API (FindCoordinator, JoinGroup, ...):
//   1. protocol/<api>.h: the request/response structs named as in Kafka's schema, each with
//      `static constexpr ApiKey api_key` and one describe() listing fields with their versions
//      (field_spec.h), then SKIFF_DECLARE_CODEC for both; protocol/<api>.cpp:
//      SKIFF_INSTANTIATE_CODEC for both. Include the header here and add a round trip to
//      tests/protocol/messages_test.cpp.
//   2. One row in api_list.h {key, number, name, types, versions}; docs/clients.md says which
//      versions clients send.
//   3. broker/handlers/<api>.cpp defining handle_<key>.
#pragma once

#include "protocol/acls.h"
#include "protocol/add_offsets_to_txn.h"
#include "protocol/add_partitions_to_txn.h"
#include "protocol/alter_configs.h"
#include "protocol/api_key.h"
#include "protocol/api_table.h"
#include "protocol/api_versions.h"
#include "protocol/codec.h"
#include "protocol/consumer_group_describe.h"
#include "protocol/consumer_group_heartbeat.h"
#include "protocol/create_partitions.h"
#include "protocol/create_topics.h"
#include "protocol/decode_error.h"
#include "protocol/delete_groups.h"
#include "protocol/delete_records.h"
#include "protocol/delete_topics.h"
#include "protocol/describe_cluster.h"
#include "protocol/describe_configs.h"
#include "protocol/describe_groups.h"
#include "protocol/describe_log_dirs.h"
#include "protocol/describe_producers.h"
#include "protocol/describe_topic_partitions.h"
#include "protocol/describe_transactions.h"
#include "protocol/end_txn.h"
#include "protocol/error_code.h"
#include "protocol/fetch.h"
#include "protocol/find_coordinator.h"
#include "protocol/frame.h"
#include "protocol/get_telemetry_subscriptions.h"
#include "protocol/heartbeat.h"
#include "protocol/init_producer_id.h"
#include "protocol/join_group.h"
#include "protocol/leave_group.h"
#include "protocol/list_groups.h"
#include "protocol/list_offsets.h"
#include "protocol/list_partition_reassignments.h"
#include "protocol/list_transactions.h"
#include "protocol/metadata.h"
#include "protocol/offset_commit.h"
#include "protocol/offset_delete.h"
#include "protocol/offset_fetch.h"
#include "protocol/out_buffer.h"
#include "protocol/produce.h"
#include "protocol/push_telemetry.h"
#include "protocol/record_set.h"
#include "protocol/request_header.h"
#include "protocol/sasl.h"
#include "protocol/share_group_describe.h"
#include "protocol/share_group_heartbeat.h"
#include "protocol/sync_group.h"
#include "protocol/txn_offset_commit.h"
#include "protocol/update_features.h"
#include "protocol/user_scram_credentials.h"
