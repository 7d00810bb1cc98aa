// Big-endian load/store for the on-disk index entries and batch headers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace skiff::storage {

template <class T>
T load_be(const std::byte* p) {
    std::make_unsigned_t<T> v = 0;
    for (size_t i = 0; i < sizeof(T); ++i)
        v = static_cast<decltype(v)>((v << 8) | static_cast<uint8_t>(p[i]));
    return static_cast<T>(v);
}

template <class T>
void store_be(std::byte* p, T value) {
    auto v = static_cast<std::make_unsigned_t<T>>(value);
    for (size_t i = sizeof(T); i-- > 0;) {
        p[i] = static_cast<std::byte>(v & 0xff);
        v = static_cast<decltype(v)>(v >> 8);
    }
}

}  // namespace skiff::storage
