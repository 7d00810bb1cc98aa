#include <algorithm>
#include <regex>
#include <set>

#include "broker/broker.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorize.h"

namespace skiff::broker {

using protocol::ErrorCode;

namespace {

// libstdc++ reports a match too complex for it (deep backtracking) by throwing: no match then.
bool matches(const std::string& id, const std::regex& pattern) {
    try {
        return std::regex_match(id, pattern);
    } catch (const std::regex_error&) {
        return false;
    }
}

}  // namespace

// The filters AND together, as Kafka's TransactionStateManager.listTransactionStates: producer
// ids, state names (unknown names are echoed in unknown_state_filters and match nothing),
// duration (v1: running for longer than it), and the id pattern (v2: the whole id must match;
// ECMAScript syntax here, which agrees with Java's for the usual patterns).
asio::awaitable<protocol::ListTransactionsResponse> handle_list_transactions(
    RequestContext& ctx, const protocol::ListTransactionsRequest& req) {
    protocol::ListTransactionsResponse resp;
    std::set<txn::TxnState> states;
    for (const auto& name : req.state_filters) {
        if (auto s = txn::state_from_name(name))
            states.insert(*s);
        else
            resp.unknown_state_filters.push_back(name);
    }
    std::optional<std::regex> pattern;
    if (req.transactional_id_pattern && !req.transactional_id_pattern->empty()) {
        try {
            pattern.emplace(*req.transactional_id_pattern, std::regex::ECMAScript);
        } catch (const std::regex_error&) {
            resp.error_code = ErrorCode::invalid_regular_expression;
            co_return resp;
        }
    }
    auto& coordinator = ctx.broker.transactions();
    const int64_t now = coordinator.now_ms();
    for (const auto& view : coordinator.list()) {
        const auto& m = view.metadata;
        if (m.state == txn::TxnState::dead)
            continue;
        if (!req.producer_id_filters.empty() &&
            std::find(req.producer_id_filters.begin(), req.producer_id_filters.end(),
                      m.producer_id) == req.producer_id_filters.end())
            continue;
        if (!req.state_filters.empty() && states.count(m.state) == 0)
            continue;
        if (req.duration_filter >= 0 && now - m.start_timestamp_ms <= req.duration_filter)
            continue;
        if (pattern && !matches(view.transactional_id, *pattern))
            continue;
        // Only the ids the client may DESCRIBE (docs/acls.md), as Kafka lists them.
        if (!authorized(ctx, AclOperation::describe, ResourceType::transactional_id,
                        view.transactional_id))
            continue;
        resp.transaction_states.push_back(
            {view.transactional_id, m.producer_id, std::string(txn::state_name(m.state))});
    }
    co_return resp;
}

}  // namespace skiff::broker
