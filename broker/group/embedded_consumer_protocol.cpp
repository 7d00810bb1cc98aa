#include "broker/group/embedded_consumer_protocol.h"

#include <algorithm>

#include "protocol/out_buffer.h"
#include "protocol/reader.h"
#include "protocol/writer.h"

namespace skiff::broker::group {
namespace {

constexpr int16_t kNewestSubscription = 3;
constexpr int16_t kNewestAssignment = 1;

struct WireTopicPartitions {
    std::string topic;
    std::vector<int32_t> partitions;
    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("topic", m.topic, protocol::since(0));
        v.field("partitions", m.partitions, protocol::since(0));
    }
};

struct WireSubscription {
    std::vector<std::string> topics;
    std::optional<std::span<const std::byte>> user_data;
    std::vector<WireTopicPartitions> owned_partitions;
    int32_t generation_id = -1;
    std::optional<std::string> rack_id;
    template <class V, class Self>
    static void describe(V& v, Self& m) {
        using protocol::nullable;
        using protocol::since;
        v.field("topics", m.topics, since(0));
        v.field("user_data", m.user_data, since(0), nullable(since(0)));
        v.field("owned_partitions", m.owned_partitions, since(1));
        v.field("generation_id", m.generation_id, since(2));
        v.field("rack_id", m.rack_id, since(3), nullable(since(3)));
    }
};

// The first field of every version: what OffsetDelete needs, read even from metadata whose later
// fields are cut short.
struct WireTopicsOnly {
    std::vector<std::string> topics;
    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("topics", m.topics, protocol::since(0));
    }
};

struct WireAssignment {
    std::vector<WireTopicPartitions> assigned_partitions;
    std::optional<std::span<const std::byte>> user_data;
    template <class V, class Self>
    static void describe(V& v, Self& m) {
        using protocol::nullable;
        using protocol::since;
        v.field("assigned_partitions", m.assigned_partitions, since(0));
        v.field("user_data", m.user_data, since(0), nullable(since(0)));
    }
};

Expected<int16_t, protocol::DecodeError> version_of(std::span<const std::byte> bytes) {
    protocol::Reader r(bytes, 0, false);
    auto version = r.read_int<int16_t>("version");
    if (!r.ok())
        return unexpected(*r.error());
    if (version < 0)
        return unexpected(protocol::DecodeError{"version", 0, "negative version"});
    return version;
}

TopicPartitionSets to_sets(const std::vector<WireTopicPartitions>& tps) {
    TopicPartitionSets out;
    for (const auto& tp : tps)
        out[tp.topic].insert(tp.partitions.begin(), tp.partitions.end());
    return out;
}

}  // namespace

Expected<EmbeddedSubscription, protocol::DecodeError> decode_subscription(
    std::span<const std::byte> metadata) {
    auto version = version_of(metadata);
    if (!version)
        return unexpected(version.error());
    protocol::Reader r(metadata.subspan(2), std::min(*version, kNewestSubscription), false);
    WireSubscription w;
    r.read_struct(nullptr, w);
    if (!r.ok())
        return unexpected(*r.error());
    EmbeddedSubscription s;
    s.version = *version;
    s.topics = std::move(w.topics);
    s.owned_partitions = to_sets(w.owned_partitions);
    s.generation_id = w.generation_id;
    s.rack_id = std::move(w.rack_id);
    return s;
}

Expected<std::vector<std::string>, protocol::DecodeError> decode_subscription_topics(
    std::span<const std::byte> metadata) {
    auto version = version_of(metadata);
    if (!version)
        return unexpected(version.error());
    protocol::Reader r(metadata.subspan(2), 0, false);
    WireTopicsOnly w;
    r.read_struct(nullptr, w);
    if (!r.ok())
        return unexpected(*r.error());
    return std::move(w.topics);
}

int16_t subscription_version(std::span<const std::byte> metadata) {
    auto version = version_of(metadata);
    return version ? *version : 0;
}

std::vector<std::byte> encode_assignment(const TopicPartitionSets& assigned, int16_t version) {
    version = std::clamp<int16_t>(version, 0, kNewestAssignment);
    WireAssignment w;
    for (const auto& [topic, partitions] : assigned)
        if (!partitions.empty())
            w.assigned_partitions.push_back(
                {topic, std::vector<int32_t>(partitions.begin(), partitions.end())});
    protocol::OutBuffer out;
    out.put_int<int16_t>(version);
    protocol::Writer writer(out, version, false);
    writer.write_struct(w);
    auto bytes = out.bytes();
    return {bytes.begin(), bytes.end()};
}

Expected<TopicPartitionSets, protocol::DecodeError> decode_assignment(
    std::span<const std::byte> assignment) {
    if (assignment.empty())
        return TopicPartitionSets{};  // a member the leader gave nothing
    auto version = version_of(assignment);
    if (!version)
        return unexpected(version.error());
    protocol::Reader r(assignment.subspan(2), std::min(*version, kNewestAssignment), false);
    WireAssignment w;
    r.read_struct(nullptr, w);
    if (!r.ok())
        return unexpected(*r.error());
    return to_sets(w.assigned_partitions);
}

}  // namespace skiff::broker::group
