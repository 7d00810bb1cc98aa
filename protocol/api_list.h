// The one list of the APIs skiff serves. Everything else that names APIs is generated from it:
// the ApiKey enum and api_name (api_key.h), the supported versions that ApiVersions advertises
// and the broker checks (api_table.cpp), visit_api (api_visit.h) for code that needs the message
// types of a key at run time (the fuzz target, the fixture tests), and the broker's handler
// declarations and dispatch (broker/handlers/handlers.h, broker/request_router.cpp).
//
// Adding an API: its messages in protocol/<api>.h (see protocol.h), one row here, and one
// handler, broker/handlers/<api>.cpp, defining handle_<key>.
//
// X(key, number, KafkaName, Request, Response, min version, max version, first flexible version)
// Rows sorted by number. Why some minimums stay low (docs/clients.md): librdkafka turns features
// off unless a range *contains* a version: Produce 0 (compression), 3 and 7; Fetch 4 and 10;
// FindCoordinator 0 (group consumers); InitProducerId 0 (idempotence); ApiVersions 0.
#pragma once

// clang-format off
#define SKIFF_FOR_EACH_API(X)                                                                                     \
    X(produce,                   0, Produce,                 ProduceRequest,                 ProduceResponse,                 0, 13,  9) \
    X(fetch,                     1, Fetch,                   FetchRequest,                   FetchResponse,                   0, 18, 12) \
    X(list_offsets,              2, ListOffsets,             ListOffsetsRequest,             ListOffsetsResponse,             0, 11,  6) \
    X(metadata,                  3, Metadata,                MetadataRequest,                MetadataResponse,                0, 13,  9) \
    X(offset_commit,             8, OffsetCommit,            OffsetCommitRequest,            OffsetCommitResponse,            0, 10,  8) \
    X(offset_fetch,              9, OffsetFetch,             OffsetFetchRequest,             OffsetFetchResponse,             0, 10,  6) \
    X(find_coordinator,         10, FindCoordinator,         FindCoordinatorRequest,         FindCoordinatorResponse,         0,  6,  3) \
    X(join_group,               11, JoinGroup,               JoinGroupRequest,               JoinGroupResponse,               0,  9,  6) \
    X(heartbeat,                12, Heartbeat,               HeartbeatRequest,               HeartbeatResponse,               0,  4,  4) \
    X(leave_group,              13, LeaveGroup,              LeaveGroupRequest,              LeaveGroupResponse,              0,  5,  4) \
    X(sync_group,               14, SyncGroup,               SyncGroupRequest,               SyncGroupResponse,               0,  5,  4) \
    X(describe_groups,          15, DescribeGroups,          DescribeGroupsRequest,          DescribeGroupsResponse,          0,  6,  5) \
    X(list_groups,              16, ListGroups,              ListGroupsRequest,              ListGroupsResponse,              0,  5,  3) \
    X(sasl_handshake,           17, SaslHandshake,           SaslHandshakeRequest,           SaslHandshakeResponse,           0,  1,  2) \
    X(api_versions,             18, ApiVersions,             ApiVersionsRequest,             ApiVersionsResponse,             0,  4,  3) \
    X(create_topics,            19, CreateTopics,            CreateTopicsRequest,            CreateTopicsResponse,            0,  7,  5) \
    X(delete_topics,            20, DeleteTopics,            DeleteTopicsRequest,            DeleteTopicsResponse,            0,  6,  4) \
    X(delete_records,           21, DeleteRecords,           DeleteRecordsRequest,           DeleteRecordsResponse,           0,  2,  2) \
    X(init_producer_id,         22, InitProducerId,          InitProducerIdRequest,          InitProducerIdResponse,          0,  6,  2) \
    X(add_partitions_to_txn,    24, AddPartitionsToTxn,      AddPartitionsToTxnRequest,      AddPartitionsToTxnResponse,      0,  5,  3) \
    X(add_offsets_to_txn,       25, AddOffsetsToTxn,         AddOffsetsToTxnRequest,         AddOffsetsToTxnResponse,         0,  4,  3) \
    X(end_txn,                  26, EndTxn,                  EndTxnRequest,                  EndTxnResponse,                  0,  5,  3) \
    X(txn_offset_commit,        28, TxnOffsetCommit,         TxnOffsetCommitRequest,         TxnOffsetCommitResponse,         0,  5,  3) \
    X(describe_acls,            29, DescribeAcls,            DescribeAclsRequest,            DescribeAclsResponse,            0,  3,  2) \
    X(create_acls,              30, CreateAcls,              CreateAclsRequest,              CreateAclsResponse,              0,  3,  2) \
    X(delete_acls,              31, DeleteAcls,              DeleteAclsRequest,              DeleteAclsResponse,              0,  3,  2) \
    X(describe_configs,         32, DescribeConfigs,         DescribeConfigsRequest,         DescribeConfigsResponse,         0,  4,  4) \
    X(alter_configs,            33, AlterConfigs,            AlterConfigsRequest,            AlterConfigsResponse,            0,  2,  2) \
    X(describe_log_dirs,        35, DescribeLogDirs,         DescribeLogDirsRequest,         DescribeLogDirsResponse,         0,  4,  2) \
    X(sasl_authenticate,        36, SaslAuthenticate,        SaslAuthenticateRequest,        SaslAuthenticateResponse,        0,  2,  2) \
    X(create_partitions,        37, CreatePartitions,        CreatePartitionsRequest,        CreatePartitionsResponse,        0,  3,  2) \
    X(delete_groups,            42, DeleteGroups,            DeleteGroupsRequest,            DeleteGroupsResponse,            0,  2,  2) \
    X(incremental_alter_configs,44, IncrementalAlterConfigs, IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse, 0,  1,  1) \
    X(list_partition_reassignments, 46, ListPartitionReassignments,ListPartitionReassignmentsRequest,ListPartitionReassignmentsResponse, 0,  0,  0) \
    X(offset_delete,            47, OffsetDelete,            OffsetDeleteRequest,            OffsetDeleteResponse,            0,  0,  1) \
    X(describe_client_quotas,   48, DescribeClientQuotas,    DescribeClientQuotasRequest,    DescribeClientQuotasResponse,    0,  1,  1) \
    X(alter_client_quotas,      49, AlterClientQuotas,       AlterClientQuotasRequest,       AlterClientQuotasResponse,       0,  1,  1) \
    X(describe_user_scram_credentials, 50, DescribeUserScramCredentials, DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse, 0, 0, 0) \
    X(alter_user_scram_credentials,    51, AlterUserScramCredentials,    AlterUserScramCredentialsRequest,    AlterUserScramCredentialsResponse,    0, 0, 0) \
    X(update_features,          57, UpdateFeatures,          UpdateFeaturesRequest,          UpdateFeaturesResponse,          0,  2,  0) \
    X(describe_cluster,         60, DescribeCluster,         DescribeClusterRequest,         DescribeClusterResponse,         0,  2,  0) \
    X(describe_producers,       61, DescribeProducers,       DescribeProducersRequest,       DescribeProducersResponse,       0,  0,  0) \
    X(describe_transactions,    65, DescribeTransactions,    DescribeTransactionsRequest,    DescribeTransactionsResponse,    0,  0,  0) \
    X(list_transactions,        66, ListTransactions,        ListTransactionsRequest,        ListTransactionsResponse,        0,  2,  0) \
    X(consumer_group_heartbeat, 68, ConsumerGroupHeartbeat,  ConsumerGroupHeartbeatRequest,  ConsumerGroupHeartbeatResponse,  0,  1,  0) \
    X(consumer_group_describe,  69, ConsumerGroupDescribe,   ConsumerGroupDescribeRequest,   ConsumerGroupDescribeResponse,   0,  1,  0) \
    X(get_telemetry_subscriptions, 71, GetTelemetrySubscriptions, GetTelemetrySubscriptionsRequest, GetTelemetrySubscriptionsResponse, 0, 0, 0) \
    X(push_telemetry,           72, PushTelemetry,           PushTelemetryRequest,           PushTelemetryResponse,           0,  0,  0) \
    X(describe_topic_partitions,75, DescribeTopicPartitions, DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse, 0,  0,  0) \
    X(share_group_heartbeat,    76, ShareGroupHeartbeat,     ShareGroupHeartbeatRequest,     ShareGroupHeartbeatResponse,     1,  1,  0) \
    X(share_group_describe,     77, ShareGroupDescribe,      ShareGroupDescribeRequest,      ShareGroupDescribeResponse,      1,  1,  0) \
    X(share_fetch,              78, ShareFetch,              ShareFetchRequest,              ShareFetchResponse,              1,  2,  0) \
    X(share_acknowledge,        79, ShareAcknowledge,        ShareAcknowledgeRequest,        ShareAcknowledgeResponse,        1,  2,  0) \
    X(describe_share_group_offsets, 90, DescribeShareGroupOffsets, DescribeShareGroupOffsetsRequest, DescribeShareGroupOffsetsResponse, 0, 1, 0) \
    X(alter_share_group_offsets,    91, AlterShareGroupOffsets,    AlterShareGroupOffsetsRequest,    AlterShareGroupOffsetsResponse,    0, 0, 0) \
    X(delete_share_group_offsets,   92, DeleteShareGroupOffsets,   DeleteShareGroupOffsetsRequest,   DeleteShareGroupOffsetsResponse,   0, 0, 0)
// clang-format on
