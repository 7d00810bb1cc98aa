// Kafka error codes: one enum with the numbers Apache Kafka puts on the wire (Errors.java), named
// in snake_case. Broker and protocol code use ErrorCode everywhere; mapping internal errors to
// these codes happens in one place in the broker. Message fields that carry an error code are typed
// ErrorCode, so unknown numbers from a peer survive a decode/encode round trip unchanged.
#pragma once

#include <cstdint>

namespace skiff::protocol {

// X(snake_name, number, KAFKA_NAME), in Kafka's order.
// clang-format off
#define SKIFF_KAFKA_ERROR_CODES(X) \
    X(unknown_server_error, -1, "UNKNOWN_SERVER_ERROR") \
    X(none, 0, "NONE") \
    X(offset_out_of_range, 1, "OFFSET_OUT_OF_RANGE") \
    X(corrupt_message, 2, "CORRUPT_MESSAGE") \
    X(unknown_topic_or_partition, 3, "UNKNOWN_TOPIC_OR_PARTITION") \
    X(invalid_fetch_size, 4, "INVALID_FETCH_SIZE") \
    X(leader_not_available, 5, "LEADER_NOT_AVAILABLE") \
    X(not_leader_or_follower, 6, "NOT_LEADER_OR_FOLLOWER") \
    X(request_timed_out, 7, "REQUEST_TIMED_OUT") \
    X(broker_not_available, 8, "BROKER_NOT_AVAILABLE") \
    X(replica_not_available, 9, "REPLICA_NOT_AVAILABLE") \
    X(message_too_large, 10, "MESSAGE_TOO_LARGE") \
    X(stale_controller_epoch, 11, "STALE_CONTROLLER_EPOCH") \
    X(offset_metadata_too_large, 12, "OFFSET_METADATA_TOO_LARGE") \
    X(network_exception, 13, "NETWORK_EXCEPTION") \
    X(coordinator_load_in_progress, 14, "COORDINATOR_LOAD_IN_PROGRESS") \
    X(coordinator_not_available, 15, "COORDINATOR_NOT_AVAILABLE") \
    X(not_coordinator, 16, "NOT_COORDINATOR") \
    X(invalid_topic_exception, 17, "INVALID_TOPIC_EXCEPTION") \
    X(record_list_too_large, 18, "RECORD_LIST_TOO_LARGE") \
    X(not_enough_replicas, 19, "NOT_ENOUGH_REPLICAS") \
    X(not_enough_replicas_after_append, 20, "NOT_ENOUGH_REPLICAS_AFTER_APPEND") \
    X(invalid_required_acks, 21, "INVALID_REQUIRED_ACKS") \
    X(illegal_generation, 22, "ILLEGAL_GENERATION") \
    X(inconsistent_group_protocol, 23, "INCONSISTENT_GROUP_PROTOCOL") \
    X(invalid_group_id, 24, "INVALID_GROUP_ID") \
    X(unknown_member_id, 25, "UNKNOWN_MEMBER_ID") \
    X(invalid_session_timeout, 26, "INVALID_SESSION_TIMEOUT") \
    X(rebalance_in_progress, 27, "REBALANCE_IN_PROGRESS") \
    X(invalid_commit_offset_size, 28, "INVALID_COMMIT_OFFSET_SIZE") \
    X(topic_authorization_failed, 29, "TOPIC_AUTHORIZATION_FAILED") \
    X(group_authorization_failed, 30, "GROUP_AUTHORIZATION_FAILED") \
    X(cluster_authorization_failed, 31, "CLUSTER_AUTHORIZATION_FAILED") \
    X(invalid_timestamp, 32, "INVALID_TIMESTAMP") \
    X(unsupported_sasl_mechanism, 33, "UNSUPPORTED_SASL_MECHANISM") \
    X(illegal_sasl_state, 34, "ILLEGAL_SASL_STATE") \
    X(unsupported_version, 35, "UNSUPPORTED_VERSION") \
    X(topic_already_exists, 36, "TOPIC_ALREADY_EXISTS") \
    X(invalid_partitions, 37, "INVALID_PARTITIONS") \
    X(invalid_replication_factor, 38, "INVALID_REPLICATION_FACTOR") \
    X(invalid_replica_assignment, 39, "INVALID_REPLICA_ASSIGNMENT") \
    X(invalid_config, 40, "INVALID_CONFIG") \
    X(not_controller, 41, "NOT_CONTROLLER") \
    X(invalid_request, 42, "INVALID_REQUEST") \
    X(unsupported_for_message_format, 43, "UNSUPPORTED_FOR_MESSAGE_FORMAT") \
    X(policy_violation, 44, "POLICY_VIOLATION") \
    X(out_of_order_sequence_number, 45, "OUT_OF_ORDER_SEQUENCE_NUMBER") \
    X(duplicate_sequence_number, 46, "DUPLICATE_SEQUENCE_NUMBER") \
    X(invalid_producer_epoch, 47, "INVALID_PRODUCER_EPOCH") \
    X(invalid_txn_state, 48, "INVALID_TXN_STATE") \
    X(invalid_producer_id_mapping, 49, "INVALID_PRODUCER_ID_MAPPING") \
    X(invalid_transaction_timeout, 50, "INVALID_TRANSACTION_TIMEOUT") \
    X(concurrent_transactions, 51, "CONCURRENT_TRANSACTIONS") \
    X(transaction_coordinator_fenced, 52, "TRANSACTION_COORDINATOR_FENCED") \
    X(transactional_id_authorization_failed, 53, "TRANSACTIONAL_ID_AUTHORIZATION_FAILED") \
    X(security_disabled, 54, "SECURITY_DISABLED") \
    X(operation_not_attempted, 55, "OPERATION_NOT_ATTEMPTED") \
    X(kafka_storage_error, 56, "KAFKA_STORAGE_ERROR") \
    X(log_dir_not_found, 57, "LOG_DIR_NOT_FOUND") \
    X(sasl_authentication_failed, 58, "SASL_AUTHENTICATION_FAILED") \
    X(unknown_producer_id, 59, "UNKNOWN_PRODUCER_ID") \
    X(reassignment_in_progress, 60, "REASSIGNMENT_IN_PROGRESS") \
    X(delegation_token_auth_disabled, 61, "DELEGATION_TOKEN_AUTH_DISABLED") \
    X(delegation_token_not_found, 62, "DELEGATION_TOKEN_NOT_FOUND") \
    X(delegation_token_owner_mismatch, 63, "DELEGATION_TOKEN_OWNER_MISMATCH") \
    X(delegation_token_request_not_allowed, 64, "DELEGATION_TOKEN_REQUEST_NOT_ALLOWED") \
    X(delegation_token_authorization_failed, 65, "DELEGATION_TOKEN_AUTHORIZATION_FAILED") \
    X(delegation_token_expired, 66, "DELEGATION_TOKEN_EXPIRED") \
    X(invalid_principal_type, 67, "INVALID_PRINCIPAL_TYPE") \
    X(non_empty_group, 68, "NON_EMPTY_GROUP") \
    X(group_id_not_found, 69, "GROUP_ID_NOT_FOUND") \
    X(fetch_session_id_not_found, 70, "FETCH_SESSION_ID_NOT_FOUND") \
    X(invalid_fetch_session_epoch, 71, "INVALID_FETCH_SESSION_EPOCH") \
    X(listener_not_found, 72, "LISTENER_NOT_FOUND") \
    X(topic_deletion_disabled, 73, "TOPIC_DELETION_DISABLED") \
    X(fenced_leader_epoch, 74, "FENCED_LEADER_EPOCH") \
    X(unknown_leader_epoch, 75, "UNKNOWN_LEADER_EPOCH") \
    X(unsupported_compression_type, 76, "UNSUPPORTED_COMPRESSION_TYPE") \
    X(stale_broker_epoch, 77, "STALE_BROKER_EPOCH") \
    X(offset_not_available, 78, "OFFSET_NOT_AVAILABLE") \
    X(member_id_required, 79, "MEMBER_ID_REQUIRED") \
    X(preferred_leader_not_available, 80, "PREFERRED_LEADER_NOT_AVAILABLE") \
    X(group_max_size_reached, 81, "GROUP_MAX_SIZE_REACHED") \
    X(fenced_instance_id, 82, "FENCED_INSTANCE_ID") \
    X(eligible_leaders_not_available, 83, "ELIGIBLE_LEADERS_NOT_AVAILABLE") \
    X(election_not_needed, 84, "ELECTION_NOT_NEEDED") \
    X(no_reassignment_in_progress, 85, "NO_REASSIGNMENT_IN_PROGRESS") \
    X(group_subscribed_to_topic, 86, "GROUP_SUBSCRIBED_TO_TOPIC") \
    X(invalid_record, 87, "INVALID_RECORD") \
    X(unstable_offset_commit, 88, "UNSTABLE_OFFSET_COMMIT") \
    X(throttling_quota_exceeded, 89, "THROTTLING_QUOTA_EXCEEDED") \
    X(producer_fenced, 90, "PRODUCER_FENCED") \
    X(resource_not_found, 91, "RESOURCE_NOT_FOUND") \
    X(duplicate_resource, 92, "DUPLICATE_RESOURCE") \
    X(unacceptable_credential, 93, "UNACCEPTABLE_CREDENTIAL") \
    X(inconsistent_voter_set, 94, "INCONSISTENT_VOTER_SET") \
    X(invalid_update_version, 95, "INVALID_UPDATE_VERSION") \
    X(feature_update_failed, 96, "FEATURE_UPDATE_FAILED") \
    X(principal_deserialization_failure, 97, "PRINCIPAL_DESERIALIZATION_FAILURE") \
    X(snapshot_not_found, 98, "SNAPSHOT_NOT_FOUND") \
    X(unknown_topic_id, 100, "UNKNOWN_TOPIC_ID") \
    X(duplicate_broker_registration, 101, "DUPLICATE_BROKER_REGISTRATION") \
    X(broker_id_not_registered, 102, "BROKER_ID_NOT_REGISTERED") \
    X(inconsistent_topic_id, 103, "INCONSISTENT_TOPIC_ID") \
    X(inconsistent_cluster_id, 104, "INCONSISTENT_CLUSTER_ID") \
    X(transactional_id_not_found, 105, "TRANSACTIONAL_ID_NOT_FOUND") \
    X(fetch_session_topic_id_error, 106, "FETCH_SESSION_TOPIC_ID_ERROR") \
    X(ineligible_replica, 107, "INELIGIBLE_REPLICA") \
    X(new_leader_elected, 108, "NEW_LEADER_ELECTED") \
    X(offset_moved_to_tiered_storage, 109, "OFFSET_MOVED_TO_TIERED_STORAGE") \
    X(fenced_member_epoch, 110, "FENCED_MEMBER_EPOCH") \
    X(unreleased_instance_id, 111, "UNRELEASED_INSTANCE_ID") \
    X(unsupported_assignor, 112, "UNSUPPORTED_ASSIGNOR") \
    X(stale_member_epoch, 113, "STALE_MEMBER_EPOCH") \
    X(mismatched_endpoint_type, 114, "MISMATCHED_ENDPOINT_TYPE") \
    X(unsupported_endpoint_type, 115, "UNSUPPORTED_ENDPOINT_TYPE") \
    X(unknown_controller_id, 116, "UNKNOWN_CONTROLLER_ID") \
    X(unknown_subscription_id, 117, "UNKNOWN_SUBSCRIPTION_ID") \
    X(telemetry_too_large, 118, "TELEMETRY_TOO_LARGE") \
    X(invalid_registration, 119, "INVALID_REGISTRATION") \
    X(transaction_abortable, 120, "TRANSACTION_ABORTABLE") \
    X(invalid_record_state, 121, "INVALID_RECORD_STATE") \
    X(share_session_not_found, 122, "SHARE_SESSION_NOT_FOUND") \
    X(invalid_share_session_epoch, 123, "INVALID_SHARE_SESSION_EPOCH") \
    X(fenced_state_epoch, 124, "FENCED_STATE_EPOCH") \
    X(invalid_voter_key, 125, "INVALID_VOTER_KEY") \
    X(duplicate_voter, 126, "DUPLICATE_VOTER") \
    X(voter_not_found, 127, "VOTER_NOT_FOUND") \
    X(invalid_regular_expression, 128, "INVALID_REGULAR_EXPRESSION") \
    X(rebootstrap_required, 129, "REBOOTSTRAP_REQUIRED") \
    X(share_session_limit_reached, 133, "SHARE_SESSION_LIMIT_REACHED")
// clang-format on

enum class ErrorCode : int16_t {
#define SKIFF_ERROR_ENUMERATOR(name, number, kafka_name) name = (number),
    SKIFF_KAFKA_ERROR_CODES(SKIFF_ERROR_ENUMERATOR)
#undef SKIFF_ERROR_ENUMERATOR
};

// Kafka's UPPER_CASE name ("UNSUPPORTED_VERSION"), or "UNKNOWN_ERROR_CODE" for a number Kafka
// does not define.
const char* error_name(ErrorCode code);

}  // namespace skiff::protocol
