#include <spdlog/spdlog.h>

#include "broker/broker.h"
#include "broker/handlers/handlers.h"

namespace skiff::broker {

using protocol::ErrorCode;

// Idempotent producers only. A transactional id gets TRANSACTIONAL_ID_AUTHORIZATION_FAILED, the
// same answer the produce handler gives transactional batches: clients treat it as fatal with a
// clear message instead of retrying forever, which a "coordinator not available" would cause.
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
    if (req.transactional_id.has_value() && !req.transactional_id->empty()) {
        spdlog::warn(
            "refused InitProducerId with transactional id '{}' from {}: transactions "
            "are not supported",
            *req.transactional_id, ctx.peer);
        resp.error_code = ErrorCode::transactional_id_authorization_failed;
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
