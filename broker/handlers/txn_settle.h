// What a transaction coordinator call leaves its request handler (txn::Deferred): the handler
// finishes it here before it answers, without holding its network thread while the disk works.
#pragma once

#include <asio/awaitable.hpp>

#include "broker/request_context.h"
#include "broker/txn/transaction_coordinator.h"
#include "protocol/error_code.h"

namespace skiff::broker {

// Waits until the call's records are synced; for a commit or abort it then writes the markers,
// waits for their syncs (waking the partitions' read_committed fetches) and records the
// transaction complete: Prepare, markers and Complete reach the disk in that order. Complete's
// own sync is not waited for (a restart completes a transaction it finds prepared).
// NONE, or COORDINATOR_NOT_AVAILABLE (retriable) when the call's own records could not be synced.
// (A failed sync halts the broker: this answer is for the moments before it does.) A marker
// that fails is retried by the maintenance thread, as before.
asio::awaitable<protocol::ErrorCode> settle(RequestContext& ctx, txn::Deferred& deferred);

}  // namespace skiff::broker
