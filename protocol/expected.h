// A minimal std::expected stand-in. The toolchains we support (g++ 12, clang 14 for the fuzzers)
// do not both ship <expected>, and errors are values throughout skiff, so this small type carries
// either a result or a typed error. Shared by protocol/ and storage/ (it depends on nothing).
#pragma once

#include <cassert>
#include <type_traits>
#include <utility>
#include <variant>

namespace skiff {

template <class E>
struct Unexpected {
    E error;
};

template <class E>
Unexpected<std::decay_t<E>> unexpected(E&& e) {
    return {std::forward<E>(e)};
}

template <class T, class E>
class Expected {
  public:
    Expected() requires std::is_default_constructible_v<T> : v_(std::in_place_index<0>) {}
    Expected(T value)
        : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
    template <class G>
    Expected(Unexpected<G> e) : v_(std::in_place_index<1>, E(std::move(e.error))) {}  // NOLINT

    bool has_value() const { return v_.index() == 0; }
    explicit operator bool() const { return has_value(); }

    T& value() & { return std::get<0>(v_); }
    const T& value() const& { return std::get<0>(v_); }
    T&& value() && { return std::get<0>(std::move(v_)); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }

    E& error() & { return std::get<1>(v_); }
    const E& error() const& { return std::get<1>(v_); }

  private:
    std::variant<T, E> v_;
};

// Expected<void, E>: success carries nothing.
template <class E>
class Expected<void, E> {
  public:
    Expected() = default;
    template <class G>
    Expected(Unexpected<G> e) : err_(E(std::move(e.error))), ok_(false) {}  // NOLINT

    bool has_value() const { return ok_; }
    explicit operator bool() const { return ok_; }
    E& error() & { return err_; }
    const E& error() const& { return err_; }

  private:
    E err_{};
    bool ok_ = true;
};

}  // namespace skiff
