// Every error code a message carries, found through its describe() like the codecs: a response's
// top-level error_code and those of its topics, partitions, groups and members alike, so that the
// broker's metrics count errors by code without a hand-written walk per API. Only the fields on
// the wire at `version` are visited. Per partition, never per record.
#pragma once

#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

#include "protocol/error_code.h"
#include "protocol/field_spec.h"

namespace skiff::protocol {

template <class F>
class ErrorCodeVisitor {
  public:
    ErrorCodeVisitor(int16_t version, F& f) : version_(version), f_(f) {}

    template <class T, class... Opts>
    void field(const char*, const T& value, Versions present, Opts...) {
        if (present.contains(version_))
            visit(value);
    }

    template <class T>
    void visit(const T& v) {
        if constexpr (std::is_same_v<T, ErrorCode>) {
            f_(v);
        } else if constexpr (is_vector<T>::value) {
            if constexpr (describable<typename T::value_type>())
                for (const auto& e : v)
                    visit(e);
        } else if constexpr (is_optional_vector<T>::value) {
            if (v)
                visit(*v);
        } else if constexpr (is_optional<T>::value) {
            if constexpr (describable<typename T::value_type>())
                if (v)
                    visit(*v);
        } else if constexpr (describable<T>()) {
            T::describe(*this, v);
        }
    }

  private:
    template <class T>
    static constexpr bool describable() {
        return requires(ErrorCodeVisitor & w, const T& m) {
            T::describe(w, m);
        };
    }

    int16_t version_;
    F& f_;
};

// Calls f(ErrorCode) for every error code field of `message` at `version`.
template <class Message, class F>
void for_each_error_code(const Message& message, int16_t version, F&& f) {
    ErrorCodeVisitor<std::remove_reference_t<F>> visitor(version, f);
    visitor.visit(message);
}

}  // namespace skiff::protocol
