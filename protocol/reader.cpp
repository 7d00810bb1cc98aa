#include "protocol/reader.h"

#include <limits>

namespace skiff::protocol {

void Reader::fail(const char* name, const std::string& problem) {
    if (error_)
        return;
    DecodeError e;
    for (size_t i = 0; i < depth_; ++i) {
        e.field += path_[i];
        e.field += '.';
    }
    e.field += name;
    e.position = pos_;
    e.message = e.field + ": " + problem + " (at byte " + std::to_string(pos_) + ")";
    error_ = std::move(e);
}

bool Reader::need(const char* name, size_t n) {
    if (!ok())
        return false;
    if (n <= remaining())
        return true;
    fail(name, "needs " + std::to_string(n) + " bytes but only " + std::to_string(remaining()) +
                   " remain");
    return false;
}

namespace {

const char* varint_problem(wire::VarintStatus s) {
    return s == wire::VarintStatus::truncated ? "truncated varint" : "varint too long or too large";
}

}  // namespace

uint32_t Reader::read_uvarint(const char* name) {
    if (!ok())
        return 0;
    uint64_t v = 0;
    auto status = wire::get_uvarint(data_.first(end_), pos_, v, wire::kMaxVarint32Bytes,
                                    std::numeric_limits<uint32_t>::max());
    if (status != wire::VarintStatus::ok) {
        fail(name, varint_problem(status));
        return 0;
    }
    return static_cast<uint32_t>(v);
}

int32_t Reader::read_varint(const char* name) {
    return wire::unzigzag32(read_uvarint(name));
}

int64_t Reader::read_varlong(const char* name) {
    if (!ok())
        return 0;
    uint64_t v = 0;
    auto status = wire::get_uvarint(data_.first(end_), pos_, v, wire::kMaxVarint64Bytes,
                                    std::numeric_limits<uint64_t>::max());
    if (status != wire::VarintStatus::ok) {
        fail(name, varint_problem(status));
        return 0;
    }
    return wire::unzigzag64(v);
}

Uuid Reader::read_uuid(const char* name) {
    Uuid u;
    if (!need(name, u.bytes.size()))
        return u;
    for (auto& b : u.bytes)
        b = static_cast<uint8_t>(data_[pos_++]);
    return u;
}

std::optional<size_t> Reader::read_length(const char* name, bool nullable, bool compact, bool wide,
                                          const char* kind) {
    const size_t start = pos_;
    int64_t length = compact ? static_cast<int64_t>(read_uvarint(name)) - 1
                     : wide  ? static_cast<int64_t>(read_int<int32_t>(name))
                             : static_cast<int64_t>(read_int<int16_t>(name));
    if (!ok())
        return std::nullopt;
    if (length == -1) {
        if (!nullable) {
            pos_ = start;
            fail(name, std::string("null ") + kind + " in a non-nullable field");
        }
        return std::nullopt;
    }
    if (length < -1) {
        pos_ = start;
        fail(name, std::string("negative ") + kind + " length " + std::to_string(length));
        return std::nullopt;
    }
    // Checked before anything is allocated: a bogus 2 GB length costs nothing.
    if (static_cast<size_t>(length) > remaining()) {
        const size_t left = remaining();
        pos_ = start;
        fail(name, "length " + std::to_string(length) + " exceeds the " + std::to_string(left) +
                       " bytes that remain");
        return std::nullopt;
    }
    return static_cast<size_t>(length);
}

std::optional<std::string> Reader::read_string(const char* name, bool nullable, bool compact) {
    auto length = read_length(name, nullable, compact, false, "string");
    if (!length)
        return std::nullopt;
    std::string s(reinterpret_cast<const char*>(data_.data() + pos_), *length);
    pos_ += *length;
    return s;
}

std::optional<std::span<const std::byte>> Reader::read_bytes(const char* name, bool nullable) {
    auto length = read_length(name, nullable, flexible_, true, "bytes");
    if (!length)
        return std::nullopt;
    auto view = data_.subspan(pos_, *length);
    pos_ += *length;
    return view;
}

std::optional<size_t> Reader::read_array_length(const char* name, bool nullable,
                                                size_t min_element_size) {
    const size_t start = pos_;
    int64_t count = flexible_ ? static_cast<int64_t>(read_uvarint(name)) - 1
                              : static_cast<int64_t>(read_int<int32_t>(name));
    if (!ok())
        return std::nullopt;
    if (count == -1) {
        if (!nullable) {
            pos_ = start;
            fail(name, "null array in a non-nullable field");
        }
        return std::nullopt;
    }
    if (count < -1) {
        pos_ = start;
        fail(name, "negative array count " + std::to_string(count));
        return std::nullopt;
    }
    if (static_cast<uint64_t>(count) > remaining() / min_element_size) {
        pos_ = start;
        fail(name, "array count " + std::to_string(count) + " cannot fit in the " +
                       std::to_string(remaining()) + " bytes left");
        return std::nullopt;
    }
    return static_cast<size_t>(count);
}

void Reader::skip_tag_buffer(const char* name) {
    uint32_t count = read_uvarint(name);
    for (uint32_t i = 0; i < count && ok(); ++i) {
        read_uvarint(name);
        uint32_t size = read_uvarint(name);
        if (need(name, size))
            pos_ += size;
    }
}

void Reader::expect_end() {
    if (ok() && pos_ != end_)
        fail("(end)", std::to_string(end_ - pos_) + " unexpected trailing bytes");
}

}  // namespace skiff::protocol
