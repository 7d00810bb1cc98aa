// A byte range of an open segment file, handed to the network layer for sendfile() instead of
// copying bytes. `keepalive` owns the open file: a segment deleted by retention while a slice is
// in flight stays readable until the last slice is gone.
#pragma once

#include <cstdint>
#include <memory>

namespace skiff::storage {

struct FileSlice {
    int fd = -1;
    int64_t position = 0;
    int64_t length = 0;
    std::shared_ptr<const void> keepalive;
};

}  // namespace skiff::storage
