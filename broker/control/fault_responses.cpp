#include "broker/control/fault_responses.h"

#include <algorithm>

namespace skiff::broker::control {

using protocol::ApiKey;
using protocol::ErrorCode;

ErrorAnswer error_answer_kind(int16_t api_key) {
    switch (static_cast<ApiKey>(api_key)) {
        case ApiKey::produce:
            return ErrorAnswer::split;
        case ApiKey::fetch:
        case ApiKey::list_offsets:
        case ApiKey::metadata:
        case ApiKey::offset_fetch:
        case ApiKey::find_coordinator:
        case ApiKey::describe_groups:
        case ApiKey::list_groups:
        case ApiKey::describe_configs:
        case ApiKey::describe_acls:
        case ApiKey::describe_log_dirs:
        case ApiKey::describe_cluster:
        case ApiKey::describe_producers:
        case ApiKey::describe_transactions:
        case ApiKey::list_transactions:
        case ApiKey::consumer_group_describe:
        case ApiKey::describe_topic_partitions:
        case ApiKey::list_partition_reassignments:
            return ErrorAnswer::read_only;
        case ApiKey::join_group:
        case ApiKey::sync_group:
        case ApiKey::heartbeat:
        case ApiKey::leave_group:
        case ApiKey::init_producer_id:
        case ApiKey::add_offsets_to_txn:
        case ApiKey::end_txn:
        case ApiKey::consumer_group_heartbeat:
            return ErrorAnswer::top_level;
        case ApiKey::offset_commit:
        case ApiKey::txn_offset_commit:
        case ApiKey::add_partitions_to_txn:
        case ApiKey::create_topics:
        case ApiKey::delete_topics:
        case ApiKey::create_partitions:
        case ApiKey::delete_records:
            return ErrorAnswer::mirror;
        default:
            return ErrorAnswer::unsupported;
    }
}

ProduceSplit split_produce(const protocol::ProduceRequest& request, const Fired& fired) {
    ProduceSplit split;
    split.rest.transactional_id = request.transactional_id;
    split.rest.acks = request.acks;
    split.rest.timeout_ms = request.timeout_ms;
    for (const auto& topic : request.topic_data) {
        protocol::TopicProduceData kept{topic.name, topic.topic_id, {}};
        protocol::TopicProduceResponse refused{topic.name, topic.topic_id, {}};
        for (const auto& p : topic.partition_data) {
            if (fired.targets(topic.name, topic.topic_id, p.index)) {
                protocol::PartitionProduceResponse r;
                r.index = p.index;
                r.error_code = fired.error;
                r.base_offset = -1;
                refused.partition_responses.push_back(std::move(r));
            } else {
                kept.partition_data.push_back(p);
            }
        }
        if (!kept.partition_data.empty())
            split.rest.topic_data.push_back(std::move(kept));
        if (!refused.partition_responses.empty())
            split.refused.responses.push_back(std::move(refused));
    }
    return split;
}

void merge_produce(protocol::ProduceResponse& response, protocol::ProduceResponse&& refused) {
    for (auto& topic : refused.responses) {
        auto it = std::find_if(
            response.responses.begin(), response.responses.end(),
            [&](const auto& t) { return t.name == topic.name && t.topic_id == topic.topic_id; });
        if (it == response.responses.end()) {
            response.responses.push_back(std::move(topic));
            continue;
        }
        for (auto& p : topic.partition_responses)
            it->partition_responses.push_back(std::move(p));
    }
}

bool rebootstrap_unsayable(const Fired& fired, int16_t metadata_version) {
    return fired.error == ErrorCode::rebootstrap_required && metadata_version < 13 &&
           (fired.action == FaultAction::error || fired.action == FaultAction::fail_response);
}

bool targets_every_partition(const protocol::FetchRequest& request, const Fired& fired) {
    for (const auto& topic : request.topics)
        for (const auto& p : topic.partitions)
            if (!fired.targets(topic.topic, topic.topic_id, p.partition))
                return false;
    return true;
}

void drop_records_of_errors(protocol::FetchResponse& response) {
    for (auto& topic : response.responses)
        for (auto& p : topic.partitions)
            if (p.error_code != ErrorCode::none) {
                p.records = {};
                p.aborted_transactions.reset();
            }
}

protocol::OffsetCommitResponse mirror(const protocol::OffsetCommitRequest& r, ErrorCode c) {
    protocol::OffsetCommitResponse out;
    for (const auto& t : r.topics) {
        protocol::OffsetCommitResponseTopic topic{t.name, t.topic_id, {}};
        for (const auto& p : t.partitions)
            topic.partitions.push_back({p.partition_index, c});
        out.topics.push_back(std::move(topic));
    }
    return out;
}

protocol::TxnOffsetCommitResponse mirror(const protocol::TxnOffsetCommitRequest& r, ErrorCode c) {
    protocol::TxnOffsetCommitResponse out;
    for (const auto& t : r.topics) {
        protocol::TxnOffsetCommitResponseTopic topic{t.name, {}};
        for (const auto& p : t.partitions)
            topic.partitions.push_back({p.partition_index, c});
        out.topics.push_back(std::move(topic));
    }
    return out;
}

namespace {
std::vector<protocol::AddPartitionsToTxnTopicResult> txn_topics(
    const std::vector<protocol::AddPartitionsToTxnTopic>& topics, ErrorCode c) {
    std::vector<protocol::AddPartitionsToTxnTopicResult> out;
    for (const auto& t : topics) {
        protocol::AddPartitionsToTxnTopicResult topic{t.name, {}};
        for (int32_t p : t.partitions)
            topic.results_by_partition.push_back({p, c});
        out.push_back(std::move(topic));
    }
    return out;
}
}  // namespace

protocol::AddPartitionsToTxnResponse mirror(const protocol::AddPartitionsToTxnRequest& r,
                                            ErrorCode c) {
    protocol::AddPartitionsToTxnResponse out;
    out.results_by_topic_v3_and_below = txn_topics(r.v3_and_below_topics, c);
    for (const auto& txn : r.transactions)
        out.results_by_transaction.push_back({txn.transactional_id, txn_topics(txn.topics, c)});
    return out;
}

protocol::CreateTopicsResponse mirror(const protocol::CreateTopicsRequest& r, ErrorCode c) {
    protocol::CreateTopicsResponse out;
    for (const auto& t : r.topics) {
        protocol::CreatableTopicResult topic;
        topic.name = t.name;
        topic.error_code = c;
        out.topics.push_back(std::move(topic));
    }
    return out;
}

protocol::DeleteTopicsResponse mirror(const protocol::DeleteTopicsRequest& r, ErrorCode c) {
    protocol::DeleteTopicsResponse out;
    for (const auto& name : r.topic_names) {
        protocol::DeletableTopicResult topic;
        topic.name = name;
        topic.error_code = c;
        out.responses.push_back(std::move(topic));
    }
    for (const auto& t : r.topics) {
        protocol::DeletableTopicResult topic;
        topic.name = t.name;
        topic.topic_id = t.topic_id;
        topic.error_code = c;
        out.responses.push_back(std::move(topic));
    }
    return out;
}

protocol::CreatePartitionsResponse mirror(const protocol::CreatePartitionsRequest& r, ErrorCode c) {
    protocol::CreatePartitionsResponse out;
    for (const auto& t : r.topics) {
        protocol::CreatePartitionsTopicResult topic;
        topic.name = t.name;
        topic.error_code = c;
        out.results.push_back(std::move(topic));
    }
    return out;
}

protocol::DeleteRecordsResponse mirror(const protocol::DeleteRecordsRequest& r, ErrorCode c) {
    protocol::DeleteRecordsResponse out;
    for (const auto& t : r.topics) {
        protocol::DeleteRecordsTopicResult topic{t.name, {}};
        for (const auto& p : t.partitions)
            topic.partitions.push_back({p.partition_index, -1, c});
        out.topics.push_back(std::move(topic));
    }
    return out;
}

}  // namespace skiff::broker::control
