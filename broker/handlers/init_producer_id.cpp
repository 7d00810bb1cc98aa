#include "broker/broker.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/txn_settle.h"
#include "broker/security/authorize.h"

namespace skiff::broker {

using protocol::ErrorCode;

// Idempotent producers (null transactional id) get a fresh id here; a transactional id goes to
// the transaction coordinator, which bumps the epoch of the id's producer (fencing the previous
// incarnation) and aborts a transaction it left open.
asio::awaitable<protocol::InitProducerIdResponse> handle_init_producer_id(
    RequestContext& ctx, const protocol::InitProducerIdRequest& req) {
    protocol::InitProducerIdResponse resp;
    // v6 two-phase commit (KIP-939), as a Kafka broker answers with it turned off.
    if (req.enable_2pc) {
        resp.error_code = ErrorCode::transactional_id_authorization_failed;
        co_return resp;
    }
    if (req.keep_prepared_txn) {
        resp.error_code = ErrorCode::unsupported_version;
        co_return resp;
    }
    // Authorization (docs/acls.md), as KafkaApis.handleInitProducerIdRequest: WRITE on the
    // transactional id, else TRANSACTIONAL_ID_AUTHORIZATION_FAILED; an idempotent producer needs
    // IDEMPOTENT_WRITE on the cluster or WRITE on some topic, else CLUSTER_AUTHORIZATION_FAILED.
    if (req.transactional_id.has_value() &&
        !authorized(ctx, AclOperation::write, ResourceType::transactional_id,
                    *req.transactional_id)) {
        resp.error_code = ErrorCode::transactional_id_authorization_failed;
        co_return resp;
    }
    if (!req.transactional_id.has_value() &&
        !authorized_on_cluster(ctx, AclOperation::idempotent_write) &&
        !authorized_on_some(ctx, AclOperation::write, ResourceType::topic)) {
        resp.error_code = ErrorCode::cluster_authorization_failed;
        co_return resp;
    }
    if (req.transactional_id.has_value()) {
        // In durable mode answered once the new epoch is on disk: a power cut must not hand the
        // same epoch to a second incarnation. Fencing an open transaction aborts it here too.
        txn::Deferred deferred;
        auto r = ctx.broker.transactions().init_producer_id(
            *req.transactional_id, req.transaction_timeout_ms, req.producer_id, req.producer_epoch,
            &deferred);
        if (auto settled = co_await settle(ctx, deferred); r.error == ErrorCode::none)
            r.error = settled;
        // PRODUCER_FENCED exists from v4 on; older clients know INVALID_PRODUCER_EPOCH.
        if (r.error == ErrorCode::producer_fenced && ctx.header.api_version < 4)
            r.error = ErrorCode::invalid_producer_epoch;
        resp.error_code = r.error;
        if (r.error == ErrorCode::none) {
            resp.producer_id = r.producer_id;
            resp.producer_epoch = r.producer_epoch;
        }
        co_return resp;
    }
    // Without a transactional id every request gets a fresh producer id with epoch 0, whatever id
    // and epoch it carries, as Kafka does: the id and epoch of v3+ requests (KIP-360) identify a
    // transactional producer's own previous incarnation, and an idempotent producer bumps its
    // epoch on the client side. Honouring them here would hand one producer's id to any client
    // that names it; two producers sharing an id would then see each other's batches as
    // duplicates, acknowledged and never stored.
    const int64_t id = ctx.broker.producer_ids().next();
    if (id < 0) {
        resp.error_code = ErrorCode::coordinator_not_available;  // retriable: disk trouble
        co_return resp;
    }
    resp.producer_id = id;
    resp.producer_epoch = 0;
    co_return resp;
}

}  // namespace skiff::broker
