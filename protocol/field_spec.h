// Vocabulary for message descriptions. Each message struct lists its fields once, in wire order:
//
//   template <class V, class Self>
//   static void describe(V& v, Self& m) {
//       v.field("transactional_id", m.transactional_id, since(3), nullable(since(3)));
//       v.field("acks", m.acks, since(0));
//       v.field("cluster_id", m.cluster_id, since(12), tagged(0, since(12)));
//   }
//
// V is the Reader (Self = Msg) or the Writer (Self = const Msg). A field outside its `present`
// versions is not on the wire: skipped on read (left at its default), not written. The C++ type
// picks the wire type:
//   int8/16/32/64_t, bool, enums (ErrorCode)   fixed-width big-endian
//   Uuid                                       16 bytes
//   std::string / std::optional<std::string>   string / nullable string (compact when flexible)
//   std::optional<std::span<const std::byte>>  nullable bytes / records, a view into the input
//   std::vector<std::byte>                     bytes, copied
//   RecordSet                                  records in responses (inline bytes + file ranges)
//   std::vector<T> / std::optional<vector<T>>  array / nullable array (compact when flexible)
//   a struct with describe()                   nested struct, with its own tag buffer when flexible
//   std::optional<struct> in nullable versions  nullable struct (int8 -1 null, 1 present), untagged
// Tagged fields go to the struct's tag buffer in their tagged versions. They are modelled as
// std::optional<T> or std::vector<T> and written only when set / non-empty; list them in
// ascending tag order. Null is legal only in the `nullable` versions; reading a null elsewhere is
// an error, and writing one elsewhere writes an empty value.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace skiff::protocol {

struct Versions {
    int16_t min = 0;
    int16_t max = -1;  // inclusive; min > max means "no version"
    constexpr bool contains(int16_t v) const { return v >= min && v <= max; }
};

constexpr Versions since(int16_t v) {
    return {v, std::numeric_limits<int16_t>::max()};
}
constexpr Versions between(int16_t lo, int16_t hi) {
    return {lo, hi};
}
constexpr Versions only(int16_t v) {
    return {v, v};
}
constexpr Versions no_versions() {
    return {0, -1};
}

struct Nullable {
    Versions versions;
};
constexpr Nullable nullable(Versions v) {
    return {v};
}

struct Tagged {
    uint32_t tag;
    Versions versions;
};
constexpr Tagged tagged(uint32_t tag, Versions v) {
    return {tag, v};
}

struct FieldSpec {
    Versions present;
    Versions nullable = no_versions();
    int64_t tag = -1;
    Versions tagged = no_versions();

    constexpr bool tagged_in(int16_t version) const { return tag >= 0 && tagged.contains(version); }
};

constexpr void apply_option(FieldSpec& s, Nullable n) {
    s.nullable = n.versions;
}
constexpr void apply_option(FieldSpec& s, Tagged t) {
    s.tag = t.tag;
    s.tagged = t.versions;
}

template <class... Opts>
constexpr FieldSpec make_spec(Versions present, Opts... opts) {
    FieldSpec s{present};
    (apply_option(s, opts), ...);
    return s;
}

struct Uuid {
    std::array<uint8_t, 16> bytes{};
    friend bool operator==(const Uuid&, const Uuid&) = default;
};

template <class T>
struct is_vector : std::false_type {};
template <class T, class A>
struct is_vector<std::vector<T, A>> : std::true_type {};
template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};
template <class T>
struct is_optional_vector : std::false_type {};
template <class T, class A>
struct is_optional_vector<std::optional<std::vector<T, A>>> : std::true_type {};

}  // namespace skiff::protocol
