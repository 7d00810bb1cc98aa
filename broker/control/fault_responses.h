// How the fault action "error" answers a request without applying it, per API, at the
// granularity Kafka's responses have (docs/control-api.md):
//   split      Produce: the partitions the rule targets get the error and nothing of theirs is
//              appended; the request's other partitions are produced as usual.
//   read_only  APIs without side effects (Fetch, ListOffsets, Metadata, the Describe and List
//              calls): handled as usual (Fetch without waiting when every partition is
//              targeted, Metadata without auto-creating), then the error goes into the targeted
//              topics and partitions, or everywhere when the rule names no topic; a Fetch
//              partition given the error carries no records.
//   top_level  group and transaction calls with one error for the whole request (JoinGroup,
//              Heartbeat, InitProducerId, EndTxn, ...): the handler does not run.
//   mirror     calls with an entry per topic or partition and side effects (OffsetCommit,
//              TxnOffsetCommit, AddPartitionsToTxn, CreateTopics, DeleteTopics,
//              CreatePartitions, DeleteRecords): the handler does not run, and every entry the
//              request names gets the error (Kafka refuses these per group, per transaction or
//              per call, and a test wants none of it applied).
// Other APIs (SASL, ACL and config changes) refuse rules with the error action: fail_response,
// close and drop work for every API.
#pragma once

#include <cstdint>
#include <optional>
#include <type_traits>

#include "broker/control/fault_table.h"
#include "protocol/protocol.h"

namespace skiff::broker::control {

enum class ErrorAnswer { unsupported, split, read_only, top_level, mirror };

ErrorAnswer error_answer_kind(int16_t api_key);

// Produce without the partitions `fired` targets, and the answer those partitions get.
struct ProduceSplit {
    protocol::ProduceRequest rest;
    protocol::ProduceResponse refused;  // the targeted partitions, each with the error
};
ProduceSplit split_produce(const protocol::ProduceRequest& request, const Fired& fired);
// Adds the refused partitions into the response of the rest.
void merge_produce(protocol::ProduceResponse& response, protocol::ProduceResponse&& refused);

// A Metadata rule answering REBOOTSTRAP_REQUIRED (error or fail_response) to a version before
// 13, which has no field for it (KIP-1102): the connection is closed instead. From v13 the
// error goes into the top-level error code only.
bool rebootstrap_unsayable(const Fired& fired, int16_t metadata_version);

// Whether `fired` targets every partition the Fetch asks for (then it need not wait).
bool targets_every_partition(const protocol::FetchRequest& request, const Fired& fired);
// A Fetch partition answered with an error carries no records.
void drop_records_of_errors(protocol::FetchResponse& response);

// The `mirror` answers: every topic and partition of the request with `code`.
protocol::OffsetCommitResponse mirror(const protocol::OffsetCommitRequest& r,
                                      protocol::ErrorCode c);
protocol::TxnOffsetCommitResponse mirror(const protocol::TxnOffsetCommitRequest& r,
                                         protocol::ErrorCode c);
protocol::AddPartitionsToTxnResponse mirror(const protocol::AddPartitionsToTxnRequest& r,
                                            protocol::ErrorCode c);
protocol::CreateTopicsResponse mirror(const protocol::CreateTopicsRequest& r,
                                      protocol::ErrorCode c);
protocol::DeleteTopicsResponse mirror(const protocol::DeleteTopicsRequest& r,
                                      protocol::ErrorCode c);
protocol::CreatePartitionsResponse mirror(const protocol::CreatePartitionsRequest& r,
                                          protocol::ErrorCode c);
protocol::DeleteRecordsResponse mirror(const protocol::DeleteRecordsRequest& r,
                                       protocol::ErrorCode c);

template <class Request>
constexpr bool has_mirror = requires(const Request& r) {
    mirror(r, protocol::ErrorCode::none);
};

}  // namespace skiff::broker::control
