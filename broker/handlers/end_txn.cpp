#include "broker/broker.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorize.h"

namespace skiff::broker {

using protocol::ErrorCode;

// Commits or aborts: answered once the markers are in every partition of the transaction.
asio::awaitable<protocol::EndTxnResponse> handle_end_txn(RequestContext& ctx,
                                                         const protocol::EndTxnRequest& req) {
    protocol::EndTxnResponse resp;
    // WRITE on the transactional id (docs/acls.md).
    if (!authorized(ctx, AclOperation::write, ResourceType::transactional_id,
                    req.transactional_id)) {
        resp.error_code = ErrorCode::transactional_id_authorization_failed;
        co_return resp;
    }
    resp.error_code = ctx.broker.transactions().end_transaction(
        req.transactional_id, req.producer_id, req.producer_epoch, req.committed);
    if (resp.error_code == ErrorCode::producer_fenced && ctx.header.api_version < 2)
        resp.error_code = ErrorCode::invalid_producer_epoch;
    co_return resp;
}

}  // namespace skiff::broker
