// Encoding visitor: the mirror of Reader. Writes the fields a message's describe() lists that are
// present in the version, in compact form and with tag buffers in flexible versions.
//
// Writing cannot fail: messages are built by the broker. Values that the wire cannot carry are
// clamped to stay well formed (a null in a non-nullable version is written empty; a string longer
// than 32767 bytes in a non-flexible version is cut), and tests check the broker never does that.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "protocol/field_spec.h"
#include "protocol/out_buffer.h"
#include "protocol/record_set.h"

namespace skiff::protocol {

class Writer {
  public:
    Writer(OutBuffer& out, int16_t version, bool flexible)
        : out_(out), version_(version), flexible_(flexible) {}

    int16_t version() const { return version_; }
    bool flexible() const { return flexible_; }

    template <class T, class... Opts>
    void field(const char* name, const T& value, Versions present, Opts... opts) {
        const FieldSpec spec = make_spec(present, opts...);
        if (!spec.present.contains(version_))
            return;
        if (flexible_ && spec.tagged_in(version_)) {
            if (!is_set(value))
                return;
            if (pass_ == Pass::count_tags)
                ++tag_count_;
            if (pass_ == Pass::tags)
                write_tagged(static_cast<uint32_t>(spec.tag), value, spec);
            return;
        }
        if (pass_ == Pass::fields)
            write_value(value, spec);
    }

    template <class T>
    void write_struct(const T& s);

    // Primitives, also used by the headers and tests.
    void write_string(std::string_view s, bool compact);
    void write_null_string(bool compact);
    void write_bytes_length(int64_t length, bool is_null);
    void write_array_length(size_t count, bool is_null);

  private:
    enum class Pass { fields, count_tags, tags };

    template <class T>
    static bool is_set(const T& v) {
        if constexpr (is_optional<T>::value)
            return v.has_value();
        else if constexpr (is_vector<T>::value)
            return !v.empty();
        else
            return true;
    }
    bool nullable_now(const FieldSpec& spec) const { return spec.nullable.contains(version_); }

    template <class T>
    void write_value(const T& v, const FieldSpec& spec);
    template <class T>
    void write_tagged(uint32_t tag, const T& v, const FieldSpec& spec);

    OutBuffer& out_;
    int16_t version_;
    bool flexible_;
    Pass pass_ = Pass::fields;
    uint32_t tag_count_ = 0;
};

template <class T>
void Writer::write_value(const T& v, const FieldSpec& spec) {
    if constexpr (std::is_same_v<T, bool>) {
        out_.put_int<int8_t>(v ? 1 : 0);
    } else if constexpr (std::is_enum_v<T>) {
        out_.put_int(static_cast<std::underlying_type_t<T>>(v));
    } else if constexpr (std::is_integral_v<T>) {
        out_.put_int(v);
    } else if constexpr (std::is_same_v<T, double>) {
        out_.put_int(std::bit_cast<uint64_t>(v));  // float64: IEEE 754, big-endian
    } else if constexpr (std::is_same_v<T, Uuid>) {
        out_.put_bytes(std::as_bytes(std::span(v.bytes)));
    } else if constexpr (std::is_same_v<T, std::string>) {
        write_string(v, flexible_);
    } else if constexpr (std::is_same_v<T, std::optional<std::string>>) {
        if (v)
            write_string(*v, flexible_);
        else if (nullable_now(spec))
            write_null_string(flexible_);
        else
            write_string({}, flexible_);
    } else if constexpr (std::is_same_v<T, std::optional<std::span<const std::byte>>>) {
        if (v) {
            write_bytes_length(static_cast<int64_t>(v->size()), false);
            out_.put_bytes(*v);
        } else {
            write_bytes_length(0, nullable_now(spec));
        }
    } else if constexpr (std::is_same_v<T, std::vector<std::byte>>) {
        write_bytes_length(static_cast<int64_t>(v.size()), false);
        out_.put_bytes(v);
    } else if constexpr (std::is_same_v<T, RecordSet>) {
        if (v.is_null && nullable_now(spec)) {
            write_bytes_length(0, true);
            return;
        }
        write_bytes_length(v.size_bytes(), false);
        out_.put_bytes(v.inline_bytes);
        for (const FileRange& r : v.file_ranges)
            out_.put_file_range(r);
    } else if constexpr (is_vector<T>::value) {
        write_array_length(v.size(), false);
        for (const auto& e : v)
            write_value(e, FieldSpec{since(0)});
    } else if constexpr (is_optional_vector<T>::value) {
        if (!v && nullable_now(spec)) {
            write_array_length(0, true);
            return;
        }
        write_array_length(v ? v->size() : 0, false);
        if (v)
            for (const auto& e : *v)
                write_value(e, FieldSpec{since(0)});
    } else if constexpr (is_optional<T>::value) {
        using E = typename T::value_type;
        if constexpr (requires(Writer & w, const E& e) { E::describe(w, e); }) {
            // A nullable struct outside tagged fields: int8 -1 for null, 1 for present.
            if (!spec.tagged_in(version_) && nullable_now(spec))
                out_.put_int<int8_t>(v ? 1 : -1);
        }
        if (v)
            write_value(*v, spec);
    } else {
        write_struct(v);
    }
}

template <class T>
void Writer::write_struct(const T& s) {
    const Pass saved_pass = pass_;
    const uint32_t saved_count = tag_count_;
    pass_ = Pass::fields;
    T::describe(*this, s);
    if (flexible_) {
        pass_ = Pass::count_tags;
        tag_count_ = 0;
        T::describe(*this, s);
        out_.put_uvarint(tag_count_);
        pass_ = Pass::tags;
        T::describe(*this, s);
    }
    pass_ = saved_pass;
    tag_count_ = saved_count;
}

template <class T>
void Writer::write_tagged(uint32_t tag, const T& v, const FieldSpec& spec) {
    // The size prefix comes first, so encode the field on the side. Tagged fields are rare and
    // small (leader hints, cluster ids); none carries records.
    OutBuffer scratch;
    Writer sub(scratch, version_, flexible_);
    sub.write_value(v, spec);
    out_.put_uvarint(tag);
    out_.put_uvarint(scratch.memory_size());
    out_.put_bytes(scratch.bytes());
}

}  // namespace skiff::protocol
