// Kafka framing: every request and response is an int32 size followed by that many bytes.
// parse_frame looks only at the prefix, so the connection reader can decide how much to read
// before it allocates anything: a negative size or one above socket.request.max.bytes is an error
// straight away, never an allocation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace skiff::protocol {

inline constexpr size_t kFrameSizePrefix = 4;
inline constexpr int32_t kDefaultMaxFrameSize = 100 * 1024 * 1024;  // socket.request.max.bytes

struct FrameParse {
    enum class Status { need_more, complete, error } status;
    int32_t frame_size = 0;  // bytes after the prefix; known once the prefix is complete
    std::string error;
};

// need_more: fewer than 4 bytes, or fewer than 4 + frame_size (frame_size is then set so the caller
// can size its read). complete: buffer holds >= 4 + frame_size bytes; the frame is
// buffer[4, 4 + frame_size). error: size negative or above max_frame_size.
FrameParse parse_frame(std::span<const std::byte> buffer, int32_t max_frame_size);

}  // namespace skiff::protocol
