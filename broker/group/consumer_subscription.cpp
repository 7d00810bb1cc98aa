#include "broker/group/consumer_subscription.h"

#include <cstdint>

namespace skiff::broker::group {
namespace {

std::optional<int32_t> read_be(std::span<const std::byte>& in, size_t width) {
    if (in.size() < width)
        return std::nullopt;
    uint32_t v = 0;
    for (size_t i = 0; i < width; ++i)
        v = (v << 8) | static_cast<uint8_t>(in[i]);
    in = in.subspan(width);
    return width == 2 ? static_cast<int32_t>(static_cast<int16_t>(v)) : static_cast<int32_t>(v);
}

}  // namespace

std::optional<std::set<std::string>> subscribed_topics(std::span<const std::byte> metadata) {
    auto version = read_be(metadata, 2);
    auto count = read_be(metadata, 4);
    if (!version || *version < 0 || !count || *count < 0)
        return std::nullopt;
    std::set<std::string> topics;
    for (int32_t i = 0; i < *count; ++i) {
        auto length = read_be(metadata, 2);
        if (!length || *length < 0 || metadata.size() < static_cast<size_t>(*length))
            return std::nullopt;
        topics.emplace(reinterpret_cast<const char*>(metadata.data()), *length);
        metadata = metadata.subspan(*length);
    }
    return topics;
}

}  // namespace skiff::broker::group
