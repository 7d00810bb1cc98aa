// Helpers shared by the protocol tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include <string>

#include "protocol/api_table.h"
#include "protocol/codec.h"
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

// Calls f(version) for every version of `key` that skiff supports (from protocol/api_table).
template <class F>
void for_each_version(ApiKey key, F f) {
    const ApiSupport* api = find_api(key);
    ASSERT_NE(api, nullptr);
    for (int16_t v = api->min_version; v <= api->max_version; ++v)
        f(v);
}

// Encode a populated message, decode it, check the fields of that version, re-encode to the same
// bytes, and require every truncated prefix and one extra byte to fail cleanly.
template <class Msg, class Check>
void round_trip(const Msg& m, int16_t version, Check check) {
    SCOPED_TRACE(std::string(api_name(Msg::api_key)) + " v" + std::to_string(version));
    OutBuffer out;
    encode_message(m, version, out);
    auto encoded = memory_of(out);
    auto decoded = decode_message<Msg>(encoded, version);
    ASSERT_TRUE(decoded) << decoded.error().message;
    check(*decoded);
    OutBuffer again;
    encode_message(*decoded, version, again);
    EXPECT_EQ(memory_of(again), encoded);
    for (size_t n = 0; n < encoded.size(); ++n) {
        auto truncated = decode_message<Msg>(std::span(encoded).first(n), version);
        ASSERT_FALSE(truncated) << "prefix of " << n << " bytes decoded";
        EXPECT_FALSE(truncated.error().message.empty());
    }
    // One byte too many is also an error: the schemas must agree exactly.
    encoded.push_back(std::byte{0});
    EXPECT_FALSE(decode_message<Msg>(encoded, version));
}

}  // namespace skiff::protocol::test
