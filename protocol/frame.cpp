#include "protocol/frame.h"

#include "protocol/wire.h"

namespace skiff::protocol {

FrameParse parse_frame(std::span<const std::byte> buffer, int32_t max_frame_size) {
    if (buffer.size() < kFrameSizePrefix)
        return {FrameParse::Status::need_more, 0, {}};
    int32_t size = wire::load_be<int32_t>(buffer.data());
    if (size < 0)
        return {FrameParse::Status::error, size, "negative frame size " + std::to_string(size)};
    if (size > max_frame_size)
        return {FrameParse::Status::error, size,
                "frame size " + std::to_string(size) + " exceeds the maximum of " +
                    std::to_string(max_frame_size) + " bytes (socket.request.max.bytes)"};
    if (buffer.size() - kFrameSizePrefix < static_cast<size_t>(size))
        return {FrameParse::Status::need_more, size, {}};
    return {FrameParse::Status::complete, size, {}};
}

}  // namespace skiff::protocol
