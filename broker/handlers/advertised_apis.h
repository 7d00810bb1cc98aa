// The API versions skiff advertises to clients right now: the supported table less what the
// settings turn off (KIP-848's APIs without the consumer protocol, KIP-714's without client
// telemetry), or an emulated release's exact list (emulate.kafka.version). ApiVersions answers
// it, and so does the v0 UNSUPPORTED_VERSION fallback a client gets for a too-new ApiVersions,
// so that a client never sees an API in one answer that the other leaves out.
#pragma once

#include <vector>

#include "protocol/api_versions.h"

namespace skiff::broker {

class Broker;

std::vector<protocol::ApiVersion> advertised_apis(Broker& broker);

// Kafka 4.2 serves share groups (KIP-932) when the share.version feature is finalized at 1 or
// more (its default); skiff's level is the `share.version` setting.
bool share_groups_enabled(const Broker& broker);

}  // namespace skiff::broker
