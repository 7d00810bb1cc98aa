// Helpers shared by the protocol tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>
#include <vector>

#include "protocol/out_buffer.h"

namespace skiff::protocol::test {

inline std::vector<std::byte> bytes(std::initializer_list<int> values) {
    std::vector<std::byte> out;
    for (int v : values)
        out.push_back(static_cast<std::byte>(v));
    return out;
}

inline std::vector<std::byte> bytes_of(std::string_view s) {
    auto b = std::as_bytes(std::span(s.data(), s.size()));
    return {b.begin(), b.end()};
}

inline std::vector<std::byte> memory_of(const OutBuffer& out) {
    return {out.bytes().begin(), out.bytes().end()};
}

}  // namespace skiff::protocol::test
