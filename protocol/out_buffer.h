// A frame (or several pipelined frames) under construction: bytes in memory, with file ranges
// spliced in between them. Splice{memory_offset, range} means "after bytes()[0, memory_offset)
// comes range"; splices are in increasing memory_offset order, several may share an offset.
// The connection writer sends memory and file ranges alternately (writev / sendfile).
//
// One OutBuffer is reused per connection: clear() keeps capacity, so encoding a response does not
// allocate in the steady state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "protocol/record_set.h"
#include "protocol/wire.h"

namespace skiff::protocol {

class OutBuffer {
  public:
    struct Splice {
        size_t memory_offset;
        FileRange range;
    };

    void clear() {
        memory_.clear();
        splices_.clear();
        file_bytes_ = 0;
    }
    std::span<const std::byte> bytes() const { return memory_; }
    const std::vector<Splice>& splices() const { return splices_; }
    // Memory plus every file range: what goes on the wire.
    int64_t total_size() const { return static_cast<int64_t>(memory_.size()) + file_bytes_; }
    size_t memory_size() const { return memory_.size(); }
    // Memory held, used or not (a reused buffer keeps what its largest frame needed).
    size_t capacity() const { return memory_.capacity(); }

    template <class T>
    void put_int(T value) {
        size_t at = grow(sizeof(T));
        wire::store_be<T>(memory_.data() + at, value);
    }
    void put_uvarint(uint64_t value) {
        std::byte tmp[wire::kMaxVarint64Bytes];
        put_bytes({tmp, wire::put_uvarint(tmp, value)});
    }
    void put_varint(int32_t value) { put_uvarint(wire::zigzag32(value)); }
    void put_varlong(int64_t value) { put_uvarint(wire::zigzag64(value)); }
    void put_bytes(std::span<const std::byte> data) {
        memory_.insert(memory_.end(), data.begin(), data.end());
    }
    void put_chars(std::string_view s) { put_bytes(std::as_bytes(std::span(s.data(), s.size()))); }
    void put_file_range(FileRange range) {
        file_bytes_ += range.length;
        splices_.push_back(Splice{memory_.size(), std::move(range)});
    }

    // Overwrites an int32 written earlier at memory offset `at` (size prefixes).
    void patch_int32(size_t at, int32_t value) {
        wire::store_be<int32_t>(memory_.data() + at, value);
    }

  private:
    size_t grow(size_t n) {
        size_t at = memory_.size();
        memory_.resize(at + n);
        return at;
    }

    std::vector<std::byte> memory_;
    std::vector<Splice> splices_;
    int64_t file_bytes_ = 0;
};

}  // namespace skiff::protocol
