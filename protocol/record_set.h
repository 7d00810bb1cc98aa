// Record data as it travels in responses. A Fetch response's records come from log segment
// files; rather than copying them into memory, the broker describes them as file ranges that the
// connection writer sends with sendfile(2). Tests and small answers use inline bytes instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace skiff::protocol {

// `length` bytes of file descriptor `fd` starting at `position`. `keepalive` holds whatever keeps
// the fd open (typically the segment) until the bytes are on the socket.
struct FileRange {
    int fd = -1;
    int64_t position = 0;
    int64_t length = 0;
    std::shared_ptr<const void> keepalive;
};

// Wire form: inline_bytes, then each file range in order. is_null encodes a null records field.
struct RecordSet {
    std::vector<std::byte> inline_bytes;
    std::vector<FileRange> file_ranges;
    bool is_null = false;

    int64_t size_bytes() const {
        auto total = static_cast<int64_t>(inline_bytes.size());
        for (const FileRange& r : file_ranges)
            total += r.length;
        return total;
    }
};

}  // namespace skiff::protocol
