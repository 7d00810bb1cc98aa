// A consumer group's state in __consumer_offsets, in Kafka's records (all values flexible from
// version 0; keys start with the group id):
//   3  ConsumerGroupMetadata              group        -> epoch
//   5  ConsumerGroupMemberMetadata        group member -> instance id, rack, client id and
//                                                         host, subscription (names, regex),
//                                                         rebalance timeout, server assignor
//   6  ConsumerGroupTargetAssignmentMetadata  group    -> assignment epoch
//   7  ConsumerGroupTargetAssignmentMember    group member -> target partitions (by topic id)
//   8  ConsumerGroupCurrentMemberAssignment   group member -> member epoch, previous epoch,
//                                                         state, assigned and pending revocation
//  16  ConsumerGroupRegularExpression     group regex  -> the topics it matched, when
// (type 4, partition metadata, is not written: Kafka 4.x no longer writes it, and a single
// broker's topics cannot change while it is down.)
//
// take_consumer_changes writes the records of what changed since the last call: the members
// put or removed (types 5, 7, 8; tombstones for a removed one), the group epoch, and all target
// records when the assignment epoch moved. Records equal to the stored ones are dropped by the
// store, so an idle member's heartbeat writes nothing. A restart restores the group
// (restore_consumer_group): members keep their ids, epochs and assignments, and their sessions
// start again; members that do not come back are expired at their session timeout.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "broker/group/consumer/consumer_group.h"
#include "broker/group/record_codec.h"
#include "broker/group/topic_view.h"
#include "protocol/field_spec.h"

namespace skiff::broker::group::consumer {

// Record types (the key version).
inline constexpr int16_t kConsumerGroupMetadataType = 3;
inline constexpr int16_t kConsumerGroupMemberMetadataType = 5;
inline constexpr int16_t kConsumerGroupTargetMetadataType = 6;
inline constexpr int16_t kConsumerGroupTargetMemberType = 7;
inline constexpr int16_t kConsumerGroupCurrentAssignmentType = 8;
inline constexpr int16_t kConsumerGroupRegexType = 16;
bool is_consumer_group_record(int16_t key_version);

// The key of types 3 and 6: the group id.
struct ConsumerGroupKey {
    static constexpr bool flexible(int16_t) { return false; }
    std::string group_id;
    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("group_id", m.group_id, protocol::since(0));
    }
};
// The key of types 5, 7 and 8: group and member.
struct ConsumerGroupMemberKey {
    static constexpr bool flexible(int16_t) { return false; }
    std::string group_id;
    std::string member_id;
    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("group_id", m.group_id, protocol::since(0));
        v.field("member_id", m.member_id, protocol::since(0));
    }
};
// The key of type 16.
struct ConsumerGroupRegexKey {
    static constexpr bool flexible(int16_t) { return false; }
    std::string group_id;
    std::string regular_expression;
    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("group_id", m.group_id, protocol::since(0));
        v.field("regular_expression", m.regular_expression, protocol::since(0));
    }
};

// Type 3 and type 6 values: one epoch.
struct ConsumerGroupEpochValue {
    static constexpr bool flexible(int16_t) { return true; }
    int32_t epoch = 0;
    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("epoch", m.epoch, protocol::since(0));
    }
};

struct RecordClassicProtocol {
    std::string name;
    std::vector<std::byte> metadata;
    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, protocol::since(0));
        v.field("metadata", m.metadata, protocol::since(0));
    }
};
// Tagged field 0 of a member's metadata: set for a member that uses the classic protocol.
struct RecordClassicMemberMetadata {
    int32_t session_timeout_ms = 0;
    std::vector<RecordClassicProtocol> supported_protocols;
    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("session_timeout_ms", m.session_timeout_ms, protocol::since(0));
        v.field("supported_protocols", m.supported_protocols, protocol::since(0));
    }
};

struct ConsumerGroupMemberMetadataValue {
    static constexpr bool flexible(int16_t) { return true; }
    std::optional<std::string> instance_id;
    std::optional<std::string> rack_id;
    std::string client_id;
    std::string client_host;
    std::vector<std::string> subscribed_topic_names;
    std::optional<std::string> subscribed_topic_regex;
    int32_t rebalance_timeout_ms = -1;
    std::optional<std::string> server_assignor;
    std::optional<RecordClassicMemberMetadata> classic_member_metadata;
    template <class V, class Self>
    static void describe(V& v, Self& m) {
        using protocol::nullable;
        using protocol::since;
        using protocol::tagged;
        v.field("instance_id", m.instance_id, since(0), nullable(since(0)));
        v.field("rack_id", m.rack_id, since(0), nullable(since(0)));
        v.field("client_id", m.client_id, since(0));
        v.field("client_host", m.client_host, since(0));
        v.field("subscribed_topic_names", m.subscribed_topic_names, since(0));
        v.field("subscribed_topic_regex", m.subscribed_topic_regex, since(0), nullable(since(0)));
        v.field("rebalance_timeout_ms", m.rebalance_timeout_ms, since(0));
        v.field("server_assignor", m.server_assignor, since(0), nullable(since(0)));
        v.field("classic_member_metadata", m.classic_member_metadata, since(0), nullable(since(0)),
                tagged(0, since(0)));
    }
};

struct RecordTopicPartitions {
    protocol::Uuid topic_id;
    std::vector<int32_t> partitions;
    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("topic_id", m.topic_id, protocol::since(0));
        v.field("partitions", m.partitions, protocol::since(0));
    }
};

struct ConsumerGroupTargetMemberValue {
    static constexpr bool flexible(int16_t) { return true; }
    std::vector<RecordTopicPartitions> topic_partitions;
    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("topic_partitions", m.topic_partitions, protocol::since(0));
    }
};

struct ConsumerGroupCurrentAssignmentValue {
    static constexpr bool flexible(int16_t) { return true; }
    int32_t member_epoch = 0;
    int32_t previous_member_epoch = 0;
    int8_t state = 0;  // Kafka's MemberState: 0 stable, 1 unrevoked, 2 unreleased partitions
    std::vector<RecordTopicPartitions> assigned_partitions;
    std::vector<RecordTopicPartitions> partitions_pending_revocation;
    template <class V, class Self>
    static void describe(V& v, Self& m) {
        using protocol::since;
        v.field("member_epoch", m.member_epoch, since(0));
        v.field("previous_member_epoch", m.previous_member_epoch, since(0));
        v.field("state", m.state, since(0));
        v.field("assigned_partitions", m.assigned_partitions, since(0));
        v.field("partitions_pending_revocation", m.partitions_pending_revocation, since(0));
    }
};

struct ConsumerGroupRegexValue {
    static constexpr bool flexible(int16_t) { return true; }
    std::vector<std::string> topics;
    int64_t version = 0;
    int64_t timestamp = 0;
    template <class V, class Self>
    static void describe(V& v, Self& m) {
        using protocol::since;
        v.field("topics", m.topics, since(0));
        v.field("version", m.version, since(0));
        v.field("timestamp", m.timestamp, since(0));
    }
};

// The keys and partition lists these records share with the share group's (types 9-15, the same
// shapes: broker/group/share/share_records.cpp).
std::string group_record_key(const std::string& group_id, int16_t type);
std::string member_record_key(const std::string& group_id, const std::string& member_id,
                              int16_t type);
// An assignment by topic id, as the records hold it; topics the view no longer knows, and empty
// ones, are left out (the next group epoch drops them anyway).
std::vector<RecordTopicPartitions> assignment_by_id(const Assignment& a, const TopicView& topics);
// The other way, when a group is restored: partitions of topics that no longer exist dropped.
Assignment assignment_by_name(const std::vector<RecordTopicPartitions>& tps,
                              const TopicView& topics);

// The records of what changed since the last call (`everything`: the whole group).
void take_consumer_changes(ConsumerGroup& g, GroupRecords& out, const TopicView& topics,
                           bool everything);

// The group its records (key -> value, as the store holds them) describe. Partitions of topics
// that no longer exist are dropped; the subscribed topics' sizes are taken as they are now (the
// group epoch moved with the last change the broker made to them); sessions and revocation
// deadlines start at `now_ms`. An error names the record that could not be read.
Expected<std::unique_ptr<ConsumerGroup>, std::string> restore_consumer_group(
    const std::string& group_id, const std::map<std::string, std::string>& records,
    const TopicView& topics, int32_t session_timeout_ms, int64_t now_ms);

}  // namespace skiff::broker::group::consumer
