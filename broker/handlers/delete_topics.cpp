#include <spdlog/spdlog.h>

#include <algorithm>

#include "broker/broker.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorize.h"
#include "broker/topics/topic_ids.h"

namespace skiff::broker {
namespace {

using protocol::ErrorCode;

protocol::DeletableTopicResult delete_by_name(RequestContext& ctx, const std::string& name) {
    protocol::DeletableTopicResult r;
    r.name = name;
    // DELETE on the topic (docs/acls.md), else TOPIC_AUTHORIZATION_FAILED, whether or not it
    // exists.
    if (!authorized(ctx, AclOperation::remove, ResourceType::topic, name)) {
        r.error_code = ErrorCode::topic_authorization_failed;
        r.error_message = "Topic authorization failed.";
        return r;
    }
    if (TopicRegistry::is_internal(name)) {
        // Internal topics (committed offsets) belong to the broker.
        r.error_code = ErrorCode::invalid_request;
        r.error_message = "internal topic " + name + " is managed by the broker";
        return r;
    }
    if (auto id = ctx.broker.topics().topic_id(name))
        r.topic_id = to_uuid(*id);
    r.error_code = ctx.broker.topics().remove(name);
    if (r.error_code == ErrorCode::none)
        spdlog::info("deleted topic '{}' for {}", name, ctx.peer);
    else
        r.topic_id = {};
    return r;
}

// v6: each topic by name or by id, as Kafka's controller checks them: not both, not neither,
// none listed twice; an id no topic holds is UNKNOWN_TOPIC_ID.
std::vector<protocol::DeletableTopicResult> delete_v6(RequestContext& ctx,
                                                      const protocol::DeleteTopicsRequest& req) {
    std::vector<protocol::DeletableTopicResult> out;
    out.reserve(req.topics.size());
    const protocol::Uuid zero{};
    for (const auto& t : req.topics) {
        protocol::DeletableTopicResult r;
        r.name = t.name;
        r.topic_id = t.topic_id;
        auto fail = [&](ErrorCode e, std::string message) {
            r.error_code = e;
            r.error_message = std::move(message);
            out.push_back(std::move(r));
        };
        const bool by_id = t.topic_id != zero;
        if (by_id && t.name) {
            fail(ErrorCode::invalid_request, "You may not specify both topic name and topic id.");
            continue;
        }
        if (!by_id && !t.name) {
            fail(ErrorCode::invalid_request, "Neither topic name nor id were specified.");
            continue;
        }
        const auto same = [&](const protocol::DeleteTopicState& o) {
            return by_id ? o.topic_id == t.topic_id : (o.topic_id == zero && o.name == t.name);
        };
        if (std::count_if(req.topics.begin(), req.topics.end(), same) > 1) {
            fail(ErrorCode::invalid_request,
                 by_id ? "Duplicate topic id." : "Duplicate topic name.");
            continue;
        }
        if (!by_id) {
            out.push_back(delete_by_name(ctx, *t.name));
            continue;
        }
        auto found = ctx.broker.topics().find_by_id(to_topic_id(t.topic_id));
        if (!found) {
            fail(ErrorCode::unknown_topic_id, "no topic has this id");
            continue;
        }
        auto deleted = delete_by_name(ctx, found->name);
        if (deleted.error_code == ErrorCode::unknown_topic_or_partition) {  // deleted meanwhile
            deleted.error_code = ErrorCode::unknown_topic_id;
            deleted.name = std::nullopt;
        }
        deleted.topic_id = t.topic_id;
        out.push_back(std::move(deleted));
    }
    return out;
}

}  // namespace

// Deleting closes the topic's logs and renames their directories; the files are removed by the
// maintenance thread, so a large topic does not hold up this connection's I/O thread.
asio::awaitable<protocol::DeleteTopicsResponse> handle_delete_topics(
    RequestContext& ctx, const protocol::DeleteTopicsRequest& req) {
    protocol::DeleteTopicsResponse resp;
    if (ctx.header.api_version >= 6) {
        resp.responses = delete_v6(ctx, req);
        co_return resp;
    }
    resp.responses.reserve(req.topic_names.size());
    for (const auto& name : req.topic_names)
        resp.responses.push_back(delete_by_name(ctx, name));
    co_return resp;
}

}  // namespace skiff::broker
