// A share group's state in __consumer_offsets, in Kafka's records (values flexible from version
// 0; keys start with the group id):
//  10  ShareGroupMemberMetadata            group member -> rack, client id and host,
//                                                          subscribed topic names
//  11  ShareGroupMetadata                  group        -> group epoch
//  12  ShareGroupTargetAssignmentMetadata  group        -> assignment epoch
//  13  ShareGroupTargetAssignmentMember    group member -> target partitions (by topic id)
//  14  ShareGroupCurrentMemberAssignment   group member -> member epoch, previous epoch, state,
//                                                          assigned partitions
// (9, the partition metadata Kafka 4.0 stopped writing, and 15, ShareGroupStatePartitionMetadata,
// the share coordinator's bookkeeping of initialized share-partitions, are not written: skiff's
// share-partition manager keeps that in __share_group_state itself.)
//
// Written as consumer groups' are (consumer_records.h): only what changed since the last call,
// tombstones for a member that left. A restart restores the group: members keep their ids,
// epochs and assignments, and their sessions start again.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "broker/group/consumer/consumer_records.h"
#include "broker/group/record_codec.h"
#include "broker/group/share/share_group.h"
#include "broker/group/topic_view.h"

namespace skiff::broker::group::share {

inline constexpr int16_t kShareGroupMemberMetadataType = 10;
inline constexpr int16_t kShareGroupMetadataType = 11;
inline constexpr int16_t kShareGroupTargetMetadataType = 12;
inline constexpr int16_t kShareGroupTargetMemberType = 13;
inline constexpr int16_t kShareGroupCurrentAssignmentType = 14;
// Kafka's share group record types (9 to 15), the ones skiff does not write included.
bool is_share_group_record(int16_t key_version);

struct ShareGroupMemberMetadataValue {
    static constexpr bool flexible(int16_t) { return true; }
    std::optional<std::string> rack_id;
    std::string client_id;
    std::string client_host;
    std::vector<std::string> subscribed_topic_names;
    template <class V, class Self>
    static void describe(V& v, Self& m) {
        using protocol::nullable;
        using protocol::since;
        v.field("rack_id", m.rack_id, since(0), nullable(since(0)));
        v.field("client_id", m.client_id, since(0));
        v.field("client_host", m.client_host, since(0));
        v.field("subscribed_topic_names", m.subscribed_topic_names, since(0));
    }
};

struct ShareGroupCurrentAssignmentValue {
    static constexpr bool flexible(int16_t) { return true; }
    int32_t member_epoch = 0;
    int32_t previous_member_epoch = 0;
    int8_t state = 0;  // Kafka's MemberState: always 0 (stable) for a share member
    std::vector<consumer::RecordTopicPartitions> assigned_partitions;
    template <class V, class Self>
    static void describe(V& v, Self& m) {
        using protocol::since;
        v.field("member_epoch", m.member_epoch, since(0));
        v.field("previous_member_epoch", m.previous_member_epoch, since(0));
        v.field("state", m.state, since(0));
        v.field("assigned_partitions", m.assigned_partitions, since(0));
    }
};

// The records of what changed since the last call (`everything`: the whole group).
void take_share_changes(ShareGroup& g, GroupRecords& out, const TopicView& topics, bool everything);

// The group its records describe; sessions start at `now_ms`. An error names the record that
// could not be read.
Expected<std::unique_ptr<ShareGroup>, std::string> restore_share_group(
    const std::string& group_id, const std::map<std::string, std::string>& records,
    const TopicView& topics, int32_t session_timeout_ms, int64_t now_ms);

}  // namespace skiff::broker::group::share
