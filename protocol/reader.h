// Decoding visitor. Reads fields in the order a message's describe() lists them, from a span that
// must outlive the decoded message (byte fields are views into it).
//
// Errors are sticky: the first failure records the field path, the byte position and what was
// wrong; every later read is a no-op, so describe() functions need no error checks. Every length
// and count is checked against the bytes that remain before anything is allocated: a 2 GB string
// length in a 50-byte request is an error, not a 2 GB allocation; an array count is checked too
// (each element takes at least one byte, fixed-width elements their width).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "protocol/decode_error.h"
#include "protocol/field_spec.h"
#include "protocol/record_set.h"
#include "protocol/wire.h"

namespace skiff::protocol {

class Reader {
  public:
    Reader(std::span<const std::byte> data, int16_t version, bool flexible)
        : data_(data), end_(data.size()), version_(version), flexible_(flexible) {}

    int16_t version() const { return version_; }
    bool flexible() const { return flexible_; }
    bool ok() const { return !error_.has_value(); }
    const std::optional<DecodeError>& error() const { return error_; }
    size_t position() const { return pos_; }
    size_t remaining() const { return end_ - pos_; }

    // One described field; see field_spec.h.
    template <class T, class... Opts>
    void field(const char* name, T& value, Versions present, Opts... opts) {
        const FieldSpec spec = make_spec(present, opts...);
        if (!ok() || !spec.present.contains(version_))
            return;
        if (flexible_ && spec.tagged_in(version_)) {
            if (reading_tag_ != spec.tag)
                return;
            read_value(name, value, spec);
            return;
        }
        if (reading_tag_ != kRegularFields)
            return;
        read_value(name, value, spec);
    }

    // A whole struct: its fields, then (flexible versions) its tag buffer. Unknown tags are
    // skipped.
    template <class T>
    void read_struct(const char* name, T& s);

    // Primitives, also used by the request header and tests. On failure they return a zero value
    // (or nullopt) and set the sticky error.
    template <class T>
    T read_int(const char* name);
    uint32_t read_uvarint(const char* name);
    int32_t read_varint(const char* name);
    int64_t read_varlong(const char* name);
    Uuid read_uuid(const char* name);
    // String: int16 length (-1 null), or compact (unsigned varint length+1, 0 null) when
    // `compact`. A null where `nullable` is false is an error.
    std::optional<std::string> read_string(const char* name, bool nullable, bool compact);
    std::optional<std::span<const std::byte>> read_bytes(const char* name, bool nullable);
    // Array length; nullopt for null (or error). min_element_size bounds the count by the bytes
    // left.
    std::optional<size_t> read_array_length(const char* name, bool nullable,
                                            size_t min_element_size);
    void skip_tag_buffer(const char* name);
    // Fails unless every byte was consumed: a decoder that leaves bytes behind disagrees with the
    // sender about the schema, and silently ignoring that hides bugs.
    void expect_end();

    void fail(const char* name, const std::string& problem);

  private:
    static constexpr int64_t kRegularFields = -1;

    template <class T>
    void read_value(const char* name, T& v, const FieldSpec& spec);
    template <class E>
    void read_array(const char* name, std::vector<E>& out, size_t count);
    template <class T>
    void read_tag_buffer(T& s);
    bool need(const char* name, size_t n);
    // A string or bytes length prefix: compact (uvarint length + 1), else int32 when `wide`,
    // else int16. nullopt for null (an error when not `nullable`) and for any failure.
    std::optional<size_t> read_length(const char* name, bool nullable, bool compact, bool wide,
                                      const char* kind);
    bool nullable_now(const FieldSpec& spec) const { return spec.nullable.contains(version_); }

    std::span<const std::byte> data_;
    size_t pos_ = 0;
    size_t end_;  // narrowed while reading one tagged field
    int16_t version_;
    bool flexible_;
    int64_t reading_tag_ = kRegularFields;
    std::optional<DecodeError> error_;
    // Names of the structs being read, for error paths ("topics.partitions.fetch_offset").
    std::array<const char*, 8> path_{};
    size_t depth_ = 0;
};

template <class T>
T Reader::read_int(const char* name) {
    if (!need(name, sizeof(T)))
        return T{};
    T v = wire::load_be<T>(data_.data() + pos_);
    pos_ += sizeof(T);
    return v;
}

template <class T>
void Reader::read_value(const char* name, T& v, const FieldSpec& spec) {
    if constexpr (std::is_same_v<T, bool>) {
        v = read_int<int8_t>(name) != 0;
    } else if constexpr (std::is_enum_v<T>) {
        v = static_cast<T>(read_int<std::underlying_type_t<T>>(name));
    } else if constexpr (std::is_integral_v<T>) {
        v = read_int<T>(name);
    } else if constexpr (std::is_same_v<T, double>) {
        v = std::bit_cast<double>(read_int<uint64_t>(name));  // float64: IEEE 754, big-endian
    } else if constexpr (std::is_same_v<T, Uuid>) {
        v = read_uuid(name);
    } else if constexpr (std::is_same_v<T, std::string>) {
        if (auto s = read_string(name, false, flexible_))
            v = std::move(*s);
    } else if constexpr (std::is_same_v<T, std::optional<std::string>>) {
        v = read_string(name, nullable_now(spec), flexible_);
    } else if constexpr (std::is_same_v<T, std::optional<std::span<const std::byte>>>) {
        v = read_bytes(name, nullable_now(spec));
    } else if constexpr (std::is_same_v<T, std::vector<std::byte>>) {
        if (auto b = read_bytes(name, false))
            v.assign(b->begin(), b->end());
    } else if constexpr (std::is_same_v<T, RecordSet>) {
        auto b = read_bytes(name, nullable_now(spec));
        v = RecordSet{};
        v.is_null = !b.has_value();
        if (b)
            v.inline_bytes.assign(b->begin(), b->end());
    } else if constexpr (is_vector<T>::value) {
        using E = typename T::value_type;
        constexpr size_t min_size = std::is_arithmetic_v<E> ? sizeof(E) : 1;
        if (auto n = read_array_length(name, false, min_size))
            read_array(name, v, *n);
    } else if constexpr (is_optional_vector<T>::value) {
        using E = typename T::value_type::value_type;
        constexpr size_t min_size = std::is_arithmetic_v<E> ? sizeof(E) : 1;
        auto n = read_array_length(name, nullable_now(spec), min_size);
        if (!n) {
            v.reset();
            return;
        }
        read_array(name, v.emplace(), *n);
    } else if constexpr (is_optional<T>::value) {
        using E = typename T::value_type;
        if constexpr (requires(Reader & r, E & e) { E::describe(r, e); }) {
            // A nullable struct outside tagged fields: int8 -1 for null, 1 for present.
            if (!spec.tagged_in(version_) && nullable_now(spec)) {
                if (read_int<int8_t>(name) < 0) {
                    v.reset();
                    return;
                }
            }
        }
        // Tagged scalar or struct: present on the wire means set.
        read_value(name, v.emplace(), spec);
    } else {
        static_assert(
            requires(Reader & r, T & t) { T::describe(r, t); },
            "field type has no wire encoding (see field_spec.h)");
        read_struct(name, v);
    }
}

template <class E>
void Reader::read_array(const char* name, std::vector<E>& out, size_t count) {
    out.clear();
    // count is bounded by the bytes left, but sizeof(E) may be far larger than an element's wire
    // size: reserve a bounded amount and let the vector grow as elements actually decode.
    out.reserve(std::min(count, size_t{4096} / sizeof(E) + 1));
    const FieldSpec element{since(0)};
    for (size_t i = 0; i < count && ok(); ++i)
        read_value(name, out.emplace_back(), element);
}

template <class T>
void Reader::read_struct(const char* name, T& s) {
    const bool pushed = name != nullptr && depth_ < path_.size();
    if (pushed)
        path_[depth_++] = name;
    const int64_t saved_tag = reading_tag_;
    reading_tag_ = kRegularFields;
    T::describe(*this, s);
    if (flexible_ && ok())
        read_tag_buffer(s);
    reading_tag_ = saved_tag;
    if (pushed)
        --depth_;
}

template <class T>
void Reader::read_tag_buffer(T& s) {
    uint32_t count = read_uvarint("tagged_fields");
    // Each tagged field takes at least two bytes (tag and size).
    if (ok() && count > remaining() / 2) {
        fail("tagged_fields", "count " + std::to_string(count) + " exceeds the " +
                                  std::to_string(remaining()) + " bytes left");
        return;
    }
    for (uint32_t i = 0; i < count && ok(); ++i) {
        uint32_t tag = read_uvarint("tag");
        uint32_t size = read_uvarint("tagged_field_size");
        if (!ok() || !need("tagged_field", size))
            return;
        const size_t field_end = pos_ + size;
        const size_t saved_end = end_;
        end_ = field_end;
        reading_tag_ = tag;
        T::describe(*this, s);  // only the field with this tag reads; unknown tags read nothing
        reading_tag_ = kRegularFields;
        end_ = saved_end;
        if (ok())
            pos_ = field_end;  // skips unknown tags and newer trailing parts of known ones
    }
}

}  // namespace skiff::protocol
