#include "broker/group/consumer_subscription.h"

#include "broker/group/embedded_consumer_protocol.h"

namespace skiff::broker::group {

std::optional<std::set<std::string>> subscribed_topics(std::span<const std::byte> metadata) {
    auto topics = decode_subscription_topics(metadata);
    if (!topics)
        return std::nullopt;
    return std::set<std::string>(topics->begin(), topics->end());
}

}  // namespace skiff::broker::group
