// KIP-951's leader hints: a Produce (v10+) or Fetch (v16+) partition answered
// NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH carries the partition's current leader and epoch,
// and the response the endpoints of the leaders it names, so that a client moves to the new
// leader without a Metadata round trip first. On skiff the one broker leads every partition at
// epoch 0, so the hint names this broker, at the address of the listener the client came
// through. skiff's own handlers never answer either error (one broker, leader epoch 0 for good, and
// Kafka checks no negative epoch: a Fetch's epoch can be newer, UNKNOWN_LEADER_EPOCH, but never
// older); they come from the control API's fault rules, whose answers get the hints
// (control/request_hook.h), to test a client's KIP-951 path.
#pragma once

#include "broker/request_context.h"
#include "protocol/error_code.h"
#include "protocol/fetch.h"
#include "protocol/produce.h"

namespace skiff::broker {

inline bool names_current_leader(protocol::ErrorCode error) {
    return error == protocol::ErrorCode::not_leader_or_follower ||
           error == protocol::ErrorCode::fenced_leader_epoch;
}

// Fill the hints where the errors above are; nothing when no partition has them or the version
// has no fields for them (handlers/produce.cpp, handlers/fetch.cpp).
void add_leader_hints(const RequestContext& ctx, protocol::ProduceResponse& resp);
void add_leader_hints(const RequestContext& ctx, protocol::FetchResponse& resp);

}  // namespace skiff::broker
