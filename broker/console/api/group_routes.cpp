// The console API's consumer groups (docs/console-api.md, "Consumer groups"): groups of every
// type skiff has (classic, KIP-848 consumer, KIP-932 share), their members and assignments,
// committed offsets and lag, and resetting a group's offsets. Each answer is made of the Kafka
// requests an admin client would send (ListGroups, ConsumerGroupDescribe / ShareGroupDescribe /
// DescribeGroups, OffsetFetch, ListOffsets, DescribeShareGroupOffsets; OffsetCommit and
// AlterShareGroupOffsets for a reset), so ACLs and the coordinator's rules apply as they do to
// kafka-consumer-groups.sh.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "broker/broker.h"
#include "broker/console/console_route.h"
#include "broker/console/produce_call.h"
#include "broker/group/embedded_consumer_protocol.h"
#include "protocol/alter_share_group_offsets.h"
#include "protocol/consumer_group_describe.h"
#include "protocol/describe_groups.h"
#include "protocol/describe_share_group_offsets.h"
#include "protocol/list_groups.h"
#include "protocol/list_offsets.h"
#include "protocol/metadata.h"
#include "protocol/offset_commit.h"
#include "protocol/offset_fetch.h"
#include "protocol/share_group_describe.h"

namespace skiff::broker::console {
// A named namespace, not an anonymous one: unity builds compile the route files together.
namespace group_api {

using nlohmann::json;
using protocol::ErrorCode;

using TopicPartitions = std::map<std::string, std::set<int32_t>>;

json assignment_json(const TopicPartitions& assigned) {
    json out = json::array();
    for (const auto& [topic, partitions] : assigned)
        out.push_back({{"topic", topic}, {"partitions", partitions}});
    return out;
}

json assignment_json(const protocol::DescribedConsumerAssignment& assigned) {
    TopicPartitions sets;
    for (const auto& tp : assigned.topic_partitions)
        sets[tp.topic_name].insert(tp.partitions.begin(), tp.partitions.end());
    return assignment_json(sets);
}

// The group described (everything but its offsets, its "type" among it), or an error answer.
// Kafka's admin client asks ConsumerGroupDescribe first and falls back to DescribeGroups when
// the group is not a consumer group; share groups have their own describe.
using DescribeResult = Expected<json, http::HttpResponse>;

DescribeResult describe_group(ApiCall& call, const std::string& group_id) {
    {
        protocol::ConsumerGroupDescribeRequest req;
        req.group_ids = {group_id};
        auto reply = call.kafka.call<protocol::ConsumerGroupDescribeResponse>(req, 1);
        if (!reply)
            return unexpected(error_response(500, reply.error()));
        if (reply->message.groups.size() == 1) {
            const auto& g = reply->message.groups.front();
            if (g.error_code == ErrorCode::group_authorization_failed)
                return unexpected(kafka_error_response(static_cast<int16_t>(g.error_code),
                                                       "DESCRIBE on group " + group_id));
            if (g.error_code == ErrorCode::none) {
                json members = json::array();
                for (const auto& m : g.members) {
                    members.push_back(
                        {{"member_id", m.member_id},
                         {"group_instance_id", m.instance_id ? json(*m.instance_id) : json()},
                         {"client_id", m.client_id},
                         {"host", m.client_host},
                         {"member_epoch", m.member_epoch},
                         {"classic",
                          m.member_type ==
                              protocol::DescribedConsumerGroupMember::kMemberTypeClassic},
                         {"subscribed_topics", m.subscribed_topic_names},
                         {"subscribed_topic_regex",
                          m.subscribed_topic_regex ? json(*m.subscribed_topic_regex) : json()},
                         {"assignment", assignment_json(m.assignment)},
                         {"target_assignment", assignment_json(m.target_assignment)}});
                }
                json body = {{"group_id", g.group_id},       {"type", "consumer"},
                             {"state", g.group_state},       {"protocol_type", "consumer"},
                             {"protocol", g.assignor_name},  {"group_epoch", g.group_epoch},
                             {"members", std::move(members)}};
                return body;
            }
        }
    }
    {
        protocol::ShareGroupDescribeRequest req;
        req.group_ids = {group_id};
        auto reply = call.kafka.call<protocol::ShareGroupDescribeResponse>(req, 1);
        // A broker without share groups refuses the request: the group is not a share group.
        if (reply && reply->message.groups.size() == 1 &&
            reply->message.groups.front().error_code == ErrorCode::none) {
            const auto& g = reply->message.groups.front();
            json members = json::array();
            for (const auto& m : g.members) {
                members.push_back({{"member_id", m.member_id},
                                   {"client_id", m.client_id},
                                   {"host", m.client_host},
                                   {"member_epoch", m.member_epoch},
                                   {"subscribed_topics", m.subscribed_topic_names},
                                   {"assignment", assignment_json(m.assignment)}});
            }
            json body = {{"group_id", g.group_id},       {"type", "share"},
                         {"state", g.group_state},       {"protocol_type", "share"},
                         {"protocol", g.assignor_name},  {"group_epoch", g.group_epoch},
                         {"members", std::move(members)}};
            return body;
        }
    }
    // DescribeGroups v5: a classic group known only from its committed offsets (a simple
    // commit) is described as Empty; one the coordinator does not know at all as Dead.
    protocol::DescribeGroupsRequest req;
    req.groups = {group_id};
    auto reply = call.kafka.call<protocol::DescribeGroupsResponse>(req, 5);
    if (!reply)
        return unexpected(error_response(500, reply.error()));
    if (reply->message.groups.size() != 1)
        return unexpected(error_response(500, "DescribeGroups answered no group"));
    const auto& g = reply->message.groups.front();
    if (g.error_code != ErrorCode::none && g.error_code != ErrorCode::group_id_not_found)
        return unexpected(
            kafka_error_response(static_cast<int16_t>(g.error_code), "group " + group_id));
    if (g.error_code == ErrorCode::group_id_not_found || g.group_state == "Dead")
        return unexpected(kafka_error_response(static_cast<int16_t>(ErrorCode::group_id_not_found),
                                               "Group " + group_id + " not found."));
    json members = json::array();
    for (const auto& m : g.members) {
        json assignment = json::array();
        // A group of the "consumer" protocol type carries ConsumerProtocolAssignment bytes; any
        // other protocol type's assignment is its own business, shown as its size only.
        if (g.protocol_type == "consumer" && !m.member_assignment.empty()) {
            if (auto decoded = group::decode_assignment(m.member_assignment))
                assignment = assignment_json(*decoded);
        }
        members.push_back(
            {{"member_id", m.member_id},
             {"group_instance_id", m.group_instance_id ? json(*m.group_instance_id) : json()},
             {"client_id", m.client_id},
             {"host", m.client_host},
             {"assignment", std::move(assignment)},
             {"assignment_bytes", m.member_assignment.size()}});
    }
    json body = {{"group_id", g.group_id},      {"type", "classic"},
                 {"state", g.group_state},      {"protocol_type", g.protocol_type},
                 {"protocol", g.protocol_data}, {"members", std::move(members)}};
    return body;
}

// (topic, partition) -> offset, as answered; a partition missing from the map had an error.
using OffsetMap = std::map<std::pair<std::string, int32_t>, int64_t>;

// ListOffsets for every partition of `partitions` at `timestamp` (latest, earliest or a time),
// read_uncommitted: the high watermark for latest, as kafka-consumer-groups.sh computes lag.
Expected<OffsetMap, http::HttpResponse> list_offsets(ApiCall& call,
                                                     const TopicPartitions& partitions,
                                                     int64_t timestamp) {
    OffsetMap out;
    if (partitions.empty())
        return out;
    protocol::ListOffsetsRequest req;
    for (const auto& [topic, set] : partitions) {
        protocol::ListOffsetsTopic t;
        t.name = topic;
        for (int32_t p : set) {
            protocol::ListOffsetsPartition lp;
            lp.partition_index = p;
            lp.timestamp = timestamp;
            t.partitions.push_back(lp);
        }
        req.topics.push_back(std::move(t));
    }
    auto reply = call.kafka.call<protocol::ListOffsetsResponse>(req, 7);
    if (!reply)
        return unexpected(error_response(500, reply.error()));
    for (const auto& t : reply->message.topics)
        for (const auto& p : t.partitions)
            if (p.error_code == ErrorCode::none)
                out[{t.name, p.partition_index}] = p.offset;
    return out;
}

struct Committed {
    std::string topic;
    int32_t partition = 0;
    int64_t offset = -1;  // -1: none
    std::string metadata;
};

// The group's committed offsets (OffsetFetch, every partition it committed), or an error answer.
Expected<std::vector<Committed>, http::HttpResponse> fetch_committed(ApiCall& call,
                                                                     const std::string& group_id) {
    protocol::OffsetFetchRequest req;
    protocol::OffsetFetchRequestGroup g;
    g.group_id = group_id;
    g.topics = std::nullopt;  // every partition the group committed
    req.groups.push_back(std::move(g));
    auto reply = call.kafka.call<protocol::OffsetFetchResponse>(req, 8);
    if (!reply)
        return unexpected(error_response(500, reply.error()));
    std::vector<Committed> out;
    for (const auto& group : reply->message.groups) {
        if (group.error_code != ErrorCode::none)
            return unexpected(kafka_error_response(static_cast<int16_t>(group.error_code),
                                                   "OffsetFetch for group " + group_id));
        for (const auto& t : group.topics)
            for (const auto& p : t.partitions)
                if (p.error_code == ErrorCode::none)
                    out.push_back(
                        {t.name, p.partition_index, p.committed_offset, p.metadata.value_or("")});
    }
    return out;
}

// A share group's share-partitions: their start offsets and the lag Kafka reports for them.
struct ShareOffset {
    std::string topic;
    int32_t partition = 0;
    int64_t start_offset = -1;
    int64_t lag = -1;
};

Expected<std::vector<ShareOffset>, http::HttpResponse> fetch_share_offsets(
    ApiCall& call, const std::string& group_id) {
    protocol::DescribeShareGroupOffsetsRequest req;
    protocol::DescribeShareGroupOffsetsRequestGroup g;
    g.group_id = group_id;
    g.topics = std::nullopt;  // every partition the group has state for
    req.groups.push_back(std::move(g));
    auto reply = call.kafka.call<protocol::DescribeShareGroupOffsetsResponse>(req, 1);
    if (!reply)
        return unexpected(error_response(500, reply.error()));
    std::vector<ShareOffset> out;
    for (const auto& group : reply->message.groups) {
        if (group.error_code != ErrorCode::none)
            return unexpected(kafka_error_response(static_cast<int16_t>(group.error_code),
                                                   group.error_message.value_or("")));
        for (const auto& t : group.topics)
            for (const auto& p : t.partitions)
                if (p.error_code == ErrorCode::none)
                    out.push_back({t.topic_name, p.partition_index, p.start_offset, p.lag});
    }
    return out;
}

json offset_or_null(int64_t offset) {
    return offset < 0 ? json() : json(offset);
}

// Calls f(topic, partition) for each partition the described group's members are assigned.
template <class F>
void for_each_assigned_partition(const json& members, F&& f) {
    for (const auto& member : members)
        for (const auto& a : member["assignment"]) {
            const auto topic = a["topic"].get<std::string>();
            for (const auto& p : a["partitions"])
                f(topic, p.get<int32_t>());
        }
}

http::HttpResponse get_group(ApiCall& call) {
    const std::string& group_id = call.params.at("group");
    auto described = describe_group(call, group_id);
    if (!described)
        return std::move(described.error());
    json body = std::move(*described);
    body["coordinator"] = call.broker.node_id();

    TopicPartitions partitions;
    json offsets = json::array();
    int64_t total_lag = 0;
    if (body["type"] == "share") {
        auto shares = fetch_share_offsets(call, group_id);
        if (!shares)
            return std::move(shares.error());
        for (const auto& s : *shares)
            partitions[s.topic].insert(s.partition);
        // A partition a member is assigned that has no share state yet (nothing fetched from
        // it) is listed too, with no start offset and no lag, as kafka-share-groups.sh shows it.
        for_each_assigned_partition(body["members"], [&](const std::string& topic, int32_t p) {
            if (partitions[topic].insert(p).second)
                shares->push_back({topic, p, -1, -1});
        });
        std::sort(shares->begin(), shares->end(), [](const auto& a, const auto& b) {
            return std::tie(a.topic, a.partition) < std::tie(b.topic, b.partition);
        });
        auto ends = list_offsets(call, partitions, protocol::kListOffsetsLatest);
        if (!ends)
            return std::move(ends.error());
        for (const auto& s : *shares) {
            auto end = ends->find({s.topic, s.partition});
            const json lag = s.lag < 0 ? json() : json(s.lag);
            if (s.lag > 0)
                total_lag += s.lag;
            offsets.push_back({{"topic", s.topic},
                               {"partition", s.partition},
                               {"start_offset", offset_or_null(s.start_offset)},
                               {"committed_offset", offset_or_null(s.start_offset)},
                               {"log_end_offset", end == ends->end() ? json() : json(end->second)},
                               {"lag", lag}});
        }
    } else {
        auto committed = fetch_committed(call, group_id);
        if (!committed)
            return std::move(committed.error());
        for (const auto& c : *committed)
            partitions[c.topic].insert(c.partition);
        // A partition a member is assigned but the group never committed is listed too, with
        // no committed offset and no lag, as kafka-consumer-groups.sh shows it ("-").
        for_each_assigned_partition(body["members"], [&](const std::string& topic, int32_t p) {
            if (partitions[topic].insert(p).second)
                committed->push_back({topic, p, -1, ""});
        });
        std::sort(committed->begin(), committed->end(), [](const auto& a, const auto& b) {
            return std::tie(a.topic, a.partition) < std::tie(b.topic, b.partition);
        });
        auto ends = list_offsets(call, partitions, protocol::kListOffsetsLatest);
        if (!ends)
            return std::move(ends.error());
        for (const auto& c : *committed) {
            auto end = ends->find({c.topic, c.partition});
            // kafka-consumer-groups.sh: lag = log end offset (the high watermark) - committed;
            // unknown ("-") without a committed offset or a readable end.
            json lag;
            if (c.offset >= 0 && end != ends->end()) {
                const int64_t l = end->second - c.offset;
                lag = l;
                total_lag += l;
            }
            offsets.push_back({{"topic", c.topic},
                               {"partition", c.partition},
                               {"committed_offset", offset_or_null(c.offset)},
                               {"log_end_offset", end == ends->end() ? json() : json(end->second)},
                               {"lag", lag},
                               {"metadata", c.metadata}});
        }
    }
    body["offsets"] = std::move(offsets);
    body["lag"] = total_lag;
    return json_response(200, body);
}

http::HttpResponse list_groups(ApiCall& call) {
    protocol::ListGroupsRequest req;  // v5: every type, with each group's type and state
    auto reply = call.kafka.call<protocol::ListGroupsResponse>(req, 5);
    if (!reply)
        return error_response(500, reply.error());
    if (reply->message.error_code != ErrorCode::none)
        return kafka_error_response(static_cast<int16_t>(reply->message.error_code));
    auto listed = reply->message.groups;
    std::sort(listed.begin(), listed.end(),
              [](const auto& a, const auto& b) { return a.group_id < b.group_id; });
    json groups = json::array();
    for (const auto& g : listed) {
        // Members are counted from the coordinator, as ListGroups carries no count; a group the
        // caller may list it may describe (ListGroups filters by DESCRIBE on each group).
        groups.push_back({{"group_id", g.group_id},
                          {"type", g.group_type},
                          {"state", g.group_state},
                          {"protocol_type", g.protocol_type},
                          {"members", call.broker.groups().member_count(g.group_id)}});
    }
    return json_response(200, json{{"groups", std::move(groups)}});
}

struct ResetRequest {
    std::string to;
    int64_t value = 0;                // the timestamp or the offset
    std::vector<std::string> topics;  // empty: every topic the group has offsets for
};

Expected<ResetRequest, std::string> parse_reset(const std::string& text) {
    auto parsed = parse_json_object(text);
    if (!parsed)
        return unexpected(std::move(parsed.error()));
    const json& body = *parsed;
    ResetRequest r;
    auto to = body.find("to");
    if (to == body.end() || !to->is_string())
        return unexpected(std::string(
            "\"to\" must be one of \"earliest\", \"latest\", \"timestamp\", \"offset\""));
    r.to = to->get<std::string>();
    if (r.to == "timestamp" || r.to == "offset") {
        auto v = body.find(r.to);
        std::optional<int64_t> n = v == body.end() ? std::nullopt : json_int64(*v);
        if (!n || *n < 0)
            return unexpected("\"" + r.to + "\" must be a non-negative integer with \"to\": \"" +
                              r.to + "\"");
        r.value = *n;
    } else if (r.to != "earliest" && r.to != "latest") {
        return unexpected(std::string(
            "\"to\" must be one of \"earliest\", \"latest\", \"timestamp\", \"offset\""));
    }
    if (auto topics = body.find("topics"); topics != body.end() && !topics->is_null()) {
        if (!topics->is_array())
            return unexpected(std::string("\"topics\" must be an array of topic names"));
        for (const auto& t : *topics) {
            if (!t.is_string() || t.get<std::string>().empty())
                return unexpected(std::string("\"topics\" must be an array of topic names"));
            r.topics.push_back(t.get<std::string>());
        }
    }
    return r;
}

// Every partition of the named topics (Metadata, never creating one), or an error answer.
Expected<TopicPartitions, http::HttpResponse> partitions_of(
    ApiCall& call, const std::vector<std::string>& topics) {
    protocol::MetadataRequest req;
    req.topics.emplace();
    for (const auto& name : topics) {
        protocol::MetadataRequestTopic t;
        t.name = name;
        req.topics->push_back(std::move(t));
    }
    req.allow_auto_topic_creation = false;
    auto reply = call.kafka.call<protocol::MetadataResponse>(req, 12);
    if (!reply)
        return unexpected(error_response(500, reply.error()));
    TopicPartitions out;
    for (const auto& t : reply->message.topics) {
        const std::string name = t.name.value_or("");
        if (t.error_code != ErrorCode::none)
            return unexpected(
                kafka_error_response(static_cast<int16_t>(t.error_code), "topic " + name));
        for (const auto& p : t.partitions)
            out[name].insert(p.partition_index);
    }
    return out;
}

// The message of a commit the coordinator refused because the group has members: Kafka alters
// a group's offsets only while it is empty (its consumers would overwrite them).
std::string refusal_message(ErrorCode code) {
    switch (code) {
        case ErrorCode::unknown_member_id:
        case ErrorCode::illegal_generation:
        case ErrorCode::non_empty_group:
        case ErrorCode::rebalance_in_progress:
            return "the group has active members: its offsets can only be reset while it is "
                   "empty (stop its consumers first)";
        default:
            return {};
    }
}

http::HttpResponse reset_offsets(ApiCall& call) {
    const std::string& group_id = call.params.at("group");
    auto request = parse_reset(call.http.body);
    if (!request)
        return error_response(400, request.error());
    auto described = describe_group(call, group_id);
    if (!described)
        return std::move(described.error());
    const bool share = (*described)["type"] == "share";

    TopicPartitions partitions;
    if (!request->topics.empty()) {
        auto named = partitions_of(call, request->topics);
        if (!named)
            return std::move(named.error());
        partitions = std::move(*named);
    } else if (share) {
        auto shares = fetch_share_offsets(call, group_id);
        if (!shares)
            return std::move(shares.error());
        for (const auto& s : *shares)
            partitions[s.topic].insert(s.partition);
    } else {
        auto committed = fetch_committed(call, group_id);
        if (!committed)
            return std::move(committed.error());
        for (const auto& c : *committed)
            partitions[c.topic].insert(c.partition);
    }
    if (partitions.empty())
        return error_response(400, "the group has no offsets: name the topics to reset");

    // The targets, found as kafka-consumer-groups.sh --reset-offsets finds them: ListOffsets for
    // earliest, latest and a timestamp (no record at or after it: the log end); an explicit
    // offset is kept within [log start, log end].
    auto earliest = list_offsets(call, partitions, protocol::kListOffsetsEarliest);
    if (!earliest)
        return std::move(earliest.error());
    auto latest = list_offsets(call, partitions, protocol::kListOffsetsLatest);
    if (!latest)
        return std::move(latest.error());
    OffsetMap by_time;
    if (request->to == "timestamp") {
        auto found = list_offsets(call, partitions, request->value);
        if (!found)
            return std::move(found.error());
        by_time = std::move(*found);
    }
    OffsetMap targets;
    for (const auto& [topic, set] : partitions) {
        for (int32_t p : set) {
            const std::pair<std::string, int32_t> key{topic, p};
            auto lo = earliest->find(key);
            auto hi = latest->find(key);
            if (lo == earliest->end() || hi == latest->end())
                return error_response(400, "cannot read the offsets of " + topic + "-" +
                                               std::to_string(p) + " (not allowed, or gone)");
            int64_t target = 0;
            if (request->to == "earliest") {
                target = lo->second;
            } else if (request->to == "latest") {
                target = hi->second;
            } else if (request->to == "timestamp") {
                auto t = by_time.find(key);
                target = t == by_time.end() || t->second < 0 ? hi->second : t->second;
            } else {
                target = std::clamp(request->value, lo->second, hi->second);
            }
            targets[key] = target;
        }
    }

    ErrorCode failed = ErrorCode::none;
    std::string failed_message;
    if (share) {
        protocol::AlterShareGroupOffsetsRequest req;
        req.group_id = group_id;
        for (const auto& [topic, set] : partitions) {
            protocol::AlterShareGroupOffsetsRequestTopic t;
            t.topic_name = topic;
            for (int32_t p : set)
                t.partitions.push_back({p, targets[{topic, p}]});
            req.topics.push_back(std::move(t));
        }
        auto reply = call.kafka.call<protocol::AlterShareGroupOffsetsResponse>(req, 0);
        if (!reply)
            return error_response(500, reply.error());
        failed = reply->message.error_code;
        failed_message = reply->message.error_message.value_or("");
        for (const auto& t : reply->message.responses)
            for (const auto& p : t.partitions)
                if (failed == ErrorCode::none && p.error_code != ErrorCode::none) {
                    failed = p.error_code;
                    failed_message = p.error_message.value_or("");
                }
    } else {
        // As the AdminClient's alterConsumerGroupOffsets: generation -1 and no member id, which
        // the coordinator accepts only while the group has no members.
        protocol::OffsetCommitRequest req;
        req.group_id = group_id;
        req.generation_id = -1;
        req.member_id = "";
        for (const auto& [topic, set] : partitions) {
            protocol::OffsetCommitRequestTopic t;
            t.name = topic;
            for (int32_t p : set) {
                protocol::OffsetCommitRequestPartition op;
                op.partition_index = p;
                op.committed_offset = targets[{topic, p}];
                op.committed_metadata = "";
                t.partitions.push_back(std::move(op));
            }
            req.topics.push_back(std::move(t));
        }
        auto reply = call.kafka.call<protocol::OffsetCommitResponse>(req, 9);
        if (!reply)
            return error_response(500, reply.error());
        for (const auto& t : reply->message.topics)
            for (const auto& p : t.partitions)
                if (failed == ErrorCode::none && p.error_code != ErrorCode::none)
                    failed = p.error_code;
    }
    if (failed != ErrorCode::none) {
        auto why = refusal_message(failed);
        return kafka_error_response(static_cast<int16_t>(failed),
                                    why.empty() ? failed_message : why);
    }
    json offsets = json::array();
    for (const auto& [key, offset] : targets)
        offsets.push_back({{"topic", key.first}, {"partition", key.second}, {"offset", offset}});
    return json_response(200, json{{"group_id", group_id}, {"offsets", std::move(offsets)}});
}

}  // namespace group_api

void add_group_routes(RouteTable& routes) {
    routes.push_back({"GET", "/api/groups", false, group_api::list_groups});
    routes.push_back({"GET", "/api/groups/{group}", false, group_api::get_group});
    routes.push_back({"POST", "/api/groups/{group}/offsets/reset", true, group_api::reset_offsets});
}

}  // namespace skiff::broker::console
