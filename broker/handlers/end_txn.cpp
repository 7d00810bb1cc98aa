#include "broker/broker.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/txn_settle.h"
#include "broker/security/authorize.h"

namespace skiff::broker {

using protocol::ErrorCode;

// Commits or aborts: answered once the markers are in every partition of the transaction (in
// durable mode: on disk, as the Prepare and Complete records are; txn_settle.h).
// v5 with transaction.version finalized at 2 is transactions V2 (KIP-890): the epoch is bumped
// and the answer carries the producer id and epoch to continue with.
asio::awaitable<protocol::EndTxnResponse> handle_end_txn(RequestContext& ctx,
                                                         const protocol::EndTxnRequest& req) {
    protocol::EndTxnResponse resp;
    // WRITE on the transactional id (docs/acls.md).
    if (!authorized(ctx, AclOperation::write, ResourceType::transactional_id,
                    req.transactional_id)) {
        resp.error_code = ErrorCode::transactional_id_authorization_failed;
        co_return resp;
    }
    const int16_t client_version = txn::client_transaction_version(
        ctx.broker.features().transaction_version(), ctx.header.api_version >= 5);
    txn::Deferred deferred;
    auto r = ctx.broker.transactions().end_transaction(req.transactional_id, req.producer_id,
                                                       req.producer_epoch, req.committed,
                                                       client_version, &deferred);
    if (auto settled = co_await settle(ctx, deferred); r.error == ErrorCode::none)
        r.error = settled;
    resp.error_code = r.error;
    resp.producer_id = r.producer_id;
    resp.producer_epoch = r.producer_epoch;
    if (resp.error_code == ErrorCode::producer_fenced && ctx.header.api_version < 2)
        resp.error_code = ErrorCode::invalid_producer_epoch;
    co_return resp;
}

}  // namespace skiff::broker
