// A classic group's state in __consumer_offsets: Kafka's GroupMetadata record (key version 2),
// one record for the whole group, written when a generation becomes Stable (the leader's
// SyncGroup stored the assignments) or the group becomes Empty, as Kafka's coordinator writes
// it. A restart restores the group from it: members that keep heartbeating with their
// generation carry on without a rebalance; the others expire at their session timeout.
//   key   int16 2 | group
//   value int16 version | protocol_type | generation | protocol (nullable) | leader (nullable)
//         | current_state_timestamp (v2+) | members [member_id | group_instance_id (v3+)
//         | client_id | client_host | rebalance_timeout (v1+) | session_timeout | subscription
//         | assignment]                      (version 3 written, 0-4 read; flexible from 4)
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "broker/group/classic/classic_group.h"
#include "broker/group/record_codec.h"
#include "protocol/field_spec.h"

namespace skiff::broker::group {

struct GroupMetadataKey {
    static constexpr int16_t kVersion = 2;
    static constexpr bool flexible(int16_t) { return false; }
    std::string group;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("group", m.group, protocol::since(0));
    }
};

struct GroupMetadataMember {
    std::string member_id;
    std::optional<std::string> group_instance_id;
    std::string client_id;
    std::string client_host;
    int32_t rebalance_timeout = -1;
    int32_t session_timeout = 0;
    std::vector<std::byte> subscription;
    std::vector<std::byte> assignment;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        using protocol::nullable;
        using protocol::since;
        v.field("member_id", m.member_id, since(0));
        v.field("group_instance_id", m.group_instance_id, since(3), nullable(since(3)));
        v.field("client_id", m.client_id, since(0));
        v.field("client_host", m.client_host, since(0));
        v.field("rebalance_timeout", m.rebalance_timeout, since(1));
        v.field("session_timeout", m.session_timeout, since(0));
        v.field("subscription", m.subscription, since(0));
        v.field("assignment", m.assignment, since(0));
    }
};

struct GroupMetadataValue {
    static constexpr int16_t kVersion = 3;
    static constexpr bool flexible(int16_t version) { return version >= 4; }
    std::string protocol_type;
    int32_t generation = 0;
    std::optional<std::string> protocol;
    std::optional<std::string> leader;
    int64_t current_state_timestamp = -1;
    std::vector<GroupMetadataMember> members;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        using protocol::nullable;
        using protocol::since;
        v.field("protocol_type", m.protocol_type, since(0));
        v.field("generation", m.generation, since(0));
        v.field("protocol", m.protocol, since(0), nullable(since(0)));
        v.field("leader", m.leader, since(0), nullable(since(0)));
        v.field("current_state_timestamp", m.current_state_timestamp, since(2));
        v.field("members", m.members, since(0));
    }
};

// The group's record when its state is one Kafka persists (Stable or Empty) and differs from the
// one written last (`everything`: whatever was written), else nothing; a dead group's tombstone.
void take_classic_changes(ClassicGroup& g, GroupRecords& out, bool everything);

// The group its GroupMetadata value describes: Stable with its members (each with the protocol
// of its generation and its assignment, its session starting at `now_ms`) or Empty. An error
// names what could not be read.
Expected<std::unique_ptr<ClassicGroup>, std::string> restore_classic_group(
    const std::string& group_id, std::span<const std::byte> value, int64_t now_ms);

}  // namespace skiff::broker::group
