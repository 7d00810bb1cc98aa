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
    if (req.transactional_id.has_value() && !req.transactional_id->empty()) {
        spdlog::warn(
            "refused InitProducerId with transactional id '{}' from {}: transactions "
            "are not supported",
            *req.transactional_id, ctx.peer);
        resp.error_code = ErrorCode::transactional_id_authorization_failed;
        co_return resp;
    }
    // v3+: a producer that knows its id asks for an epoch bump (KIP-360) after a fatal error; its
    // partitions then accept sequence 0 under the new epoch.
    if (req.producer_id >= 0 && req.producer_epoch >= 0 && req.producer_epoch < INT16_MAX - 1) {
        resp.producer_id = req.producer_id;
        resp.producer_epoch = static_cast<int16_t>(req.producer_epoch + 1);
        co_return resp;
    }
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
