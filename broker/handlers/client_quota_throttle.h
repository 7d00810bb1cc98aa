// Client quotas on the request path (docs/quotas.md): Produce counts each request's bytes
// against the client's producer_byte_rate, Fetch each response's record bytes against its
// consumer_byte_rate. A client over its quota gets the time to wait in throttle_time_ms, and the
// connection reads nothing more from it for that long (RequestContext::throttle_ms).
#pragma once

#include <cstdint>
#include <optional>

#include "broker/quotas/client_quota_manager.h"
#include "broker/request_context.h"

namespace skiff::broker {

// Records `bytes` for the client; answers the throttle time in ms (0: within its quota, or none
// applies) and sets ctx.throttle_ms. One atomic load when no quota of the kind exists.
int32_t record_quota(RequestContext& ctx, quotas::QuotaKind kind, int64_t bytes);
// Takes back what record_quota counted (a throttled fetch answers nothing, as Kafka's does).
void unrecord_quota(RequestContext& ctx, quotas::QuotaKind kind, int64_t bytes);
// The most one response may hold for the client (Kafka caps a fetch's max_bytes with it), or
// nullopt when no consumer quota applies.
std::optional<int64_t> quota_max_bytes(RequestContext& ctx, quotas::QuotaKind kind);

}  // namespace skiff::broker
