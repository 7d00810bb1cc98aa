#include "broker/group/consumer_subscription.h"

#include "broker/group/embedded_consumer_protocol.h"

namespace skiff::broker::group {

std::optional<std::set<std::string>> subscribed_topics(std::span<const std::byte> metadata) {
    auto s = decode_subscription(metadata);
    if (!s)
        return std::nullopt;
    return std::set<std::string>(s->topics.begin(), s->topics.end());
}

}  // namespace skiff::broker::group
