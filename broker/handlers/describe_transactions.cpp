#include "broker/broker.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorize.h"

namespace skiff::broker {

using protocol::ErrorCode;

// One entry per requested id, in request order: TRANSACTIONAL_ID_NOT_FOUND for ids the
// coordinator does not know (never used, or expired), INVALID_REQUEST for an empty one.
asio::awaitable<protocol::DescribeTransactionsResponse> handle_describe_transactions(
    RequestContext& ctx, const protocol::DescribeTransactionsRequest& req) {
    protocol::DescribeTransactionsResponse resp;
    for (const auto& id : req.transactional_ids) {
        protocol::DescribeTransactionsState s;
        s.transactional_id = id;
        if (id.empty()) {
            s.error_code = ErrorCode::invalid_request;
            resp.transaction_states.push_back(std::move(s));
            continue;
        }
        // DESCRIBE on the transactional id (docs/acls.md), else
        // TRANSACTIONAL_ID_AUTHORIZATION_FAILED for it.
        if (!authorized(ctx, AclOperation::describe, ResourceType::transactional_id, id)) {
            s.error_code = ErrorCode::transactional_id_authorization_failed;
            resp.transaction_states.push_back(std::move(s));
            continue;
        }
        auto view = ctx.broker.transactions().describe(id);
        if (!view) {
            s.error_code = ErrorCode::transactional_id_not_found;
            resp.transaction_states.push_back(std::move(s));
            continue;
        }
        const auto& m = view->metadata;
        s.transaction_state = std::string(txn::state_name(m.state));
        s.transaction_timeout_ms = m.timeout_ms;
        s.transaction_start_time_ms = m.start_timestamp_ms;
        s.producer_id = m.producer_id;
        s.producer_epoch = m.producer_epoch;
        for (const auto& tp : m.partitions) {  // sorted by topic, then partition
            if (s.topics.empty() || s.topics.back().topic != tp.topic)
                s.topics.push_back({tp.topic, {}});
            s.topics.back().partitions.push_back(tp.partition);
        }
        resp.transaction_states.push_back(std::move(s));
    }
    co_return resp;
}

}  // namespace skiff::broker
