#include "broker/broker.h"
#include "broker/group/offset_store.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/txn_settle.h"
#include "broker/security/authorize.h"

namespace skiff::broker {

using protocol::ErrorCode;

// Adds the group's offsets partition to the transaction: __consumer_offsets has one partition
// here, so every group maps to partition 0.
asio::awaitable<protocol::AddOffsetsToTxnResponse> handle_add_offsets_to_txn(
    RequestContext& ctx, const protocol::AddOffsetsToTxnRequest& req) {
    protocol::AddOffsetsToTxnResponse resp;
    // WRITE on the transactional id and READ on the group (docs/acls.md).
    if (!authorized(ctx, AclOperation::write, ResourceType::transactional_id,
                    req.transactional_id)) {
        resp.error_code = ErrorCode::transactional_id_authorization_failed;
        co_return resp;
    }
    if (!authorized(ctx, AclOperation::read, ResourceType::group, req.group_id)) {
        resp.error_code = ErrorCode::group_authorization_failed;
        co_return resp;
    }
    txn::Deferred deferred;
    resp.error_code = ctx.broker.transactions().add_partitions(
        req.transactional_id, req.producer_id, req.producer_epoch, {{group::kOffsetsTopic, 0}}, 0,
        &deferred);
    if (auto settled = co_await settle(ctx, deferred); resp.error_code == ErrorCode::none)
        resp.error_code = settled;
    if (resp.error_code == ErrorCode::producer_fenced && ctx.header.api_version < 2)
        resp.error_code = ErrorCode::invalid_producer_epoch;
    co_return resp;
}

}  // namespace skiff::broker
