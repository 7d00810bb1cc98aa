#include "broker/console/protobuf_from_json.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

namespace skiff::broker::console {
namespace protobuf_from_json_impl {

namespace gp = google::protobuf;
using nlohmann::json;

// Thrown inside the reader only, turned into the error text at its one entry point.
struct MappingError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The range protobuf gives Timestamp (0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z) and Duration
// (about 10,000 years either way).
constexpr int64_t kMinTimestampSeconds = -62135596800;
constexpr int64_t kMaxTimestampSeconds = 253402300799;
constexpr int64_t kMaxDurationSeconds = 315576000000;

struct SecondsAndNanos {
    int64_t seconds = 0;
    int32_t nanos = 0;
};

// ---- Text forms, without reflection ----

// "+12" reads as 12, as protobuf reads it; "+-12" does not.
std::string_view without_plus_sign(std::string_view text) {
    if (text.size() > 1 && text[0] == '+' && std::isdigit(static_cast<unsigned char>(text[1])))
        text.remove_prefix(1);
    return text;
}

// The whole of `text` as a decimal integer of type Int, or nullopt (no spaces, no exponent).
template <class Int>
std::optional<Int> parse_integer(std::string_view text) {
    text = without_plus_sign(text);
    Int value{};
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc{} || end != text.data() + text.size())
        return std::nullopt;
    return value;
}

// A JSON number that is integral and in Int's range (1e2 is 100; 1.5 and 1e20 are not an int64).
template <class Int>
std::optional<Int> integral_double(double value) {
    // Int's range as doubles, the upper bound exclusive: 2^63 is a double, 2^63 - 1 is not.
    const double lowest = static_cast<double>(std::numeric_limits<Int>::min());
    const double past_max = std::ldexp(1.0, std::numeric_limits<Int>::digits);
    if (!std::isfinite(value) || value != std::trunc(value) || value < lowest || value >= past_max)
        return std::nullopt;
    return static_cast<Int>(value);
}

// Decimal text such as "1.5", "-2e10" or ".5"; not "inf", "nan" or hexadecimal, which strtod
// would take and protobuf's JSON does not name.
std::optional<double> parse_decimal(std::string_view text) {
    text = without_plus_sign(text);
    if (text.empty() || text.find_first_not_of("0123456789+-.eE") != std::string_view::npos)
        return std::nullopt;
    double value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || end != text.data() + text.size())
        return std::nullopt;
    return value;
}

// A float from a double, if rounding keeps it finite: 3.4028235e38 (just over FLT_MAX) is
// FLT_MAX, as protobuf reads it; values at or past the midpoint to 2^128 would round to infinity.
std::optional<float> narrow_to_float(double value) {
    const double rounds_to_infinity = std::ldexp(1.0, 128) - std::ldexp(1.0, 103);
    if (std::isfinite(value) && std::fabs(value) >= rounds_to_infinity)
        return std::nullopt;
    return static_cast<float>(value);
}

int base64_digit(char c) {
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+' || c == '-')
        return 62;
    if (c == '/' || c == '_')
        return 63;
    return -1;
}

// Base64 as protobuf reads it: the standard alphabet or the URL-safe one (not both in one text),
// padded or not, and no bits set past the last byte ("Zm9=" is refused: it would not print back).
std::optional<std::string> decode_base64(std::string_view text) {
    if (text.size() % 4 == 0 && text.ends_with('='))
        text.remove_suffix(text.ends_with("==") ? 2 : 1);
    if (text.size() % 4 == 1)
        return std::nullopt;
    const bool standard = text.find_first_of("+/") != std::string_view::npos;
    const bool url_safe = text.find_first_of("-_") != std::string_view::npos;
    if (standard && url_safe)
        return std::nullopt;
    std::string bytes;
    bytes.reserve(text.size() * 3 / 4);
    uint32_t pending = 0;  // bits read but not yet a whole byte: fewer than 8 between digits
    int pending_bits = 0;
    for (const char c : text) {
        const int digit = base64_digit(c);
        if (digit < 0)
            return std::nullopt;
        pending = (pending << 6) | static_cast<uint32_t>(digit);
        pending_bits += 6;
        if (pending_bits >= 8) {
            pending_bits -= 8;
            bytes += static_cast<char>((pending >> pending_bits) & 0xFF);
            pending &= (1U << pending_bits) - 1;
        }
    }
    if (pending != 0)
        return std::nullopt;
    return bytes;
}

// Reads fixed-width fields off the front of a text: the pieces of a timestamp or a duration.
class TextCursor {
  public:
    explicit TextCursor(std::string_view text) : rest_(text) {}

    bool done() const { return rest_.empty(); }

    bool skip(char c) {
        if (rest_.empty() || rest_.front() != c)
            return false;
        rest_.remove_prefix(1);
        return true;
    }

    // Exactly `count` decimal digits.
    std::optional<int> digits(size_t count) {
        if (rest_.size() < count)
            return std::nullopt;
        int value = 0;
        for (size_t i = 0; i < count; ++i) {
            if (!std::isdigit(static_cast<unsigned char>(rest_[i])))
                return std::nullopt;
            value = value * 10 + (rest_[i] - '0');
        }
        rest_.remove_prefix(count);
        return value;
    }

    // One or more decimal digits, as many as there are.
    std::string_view digit_run() {
        size_t n = 0;
        while (n < rest_.size() && std::isdigit(static_cast<unsigned char>(rest_[n])))
            ++n;
        const std::string_view run = rest_.substr(0, n);
        rest_.remove_prefix(n);
        return run;
    }

    // ".021" as nanoseconds (21000000): 1 to 9 digits after the point, none if there is no point.
    std::optional<int32_t> nanos_fraction() {
        if (!skip('.'))
            return 0;
        const std::string_view run = digit_run();
        if (run.empty() || run.size() > 9)
            return std::nullopt;
        int32_t nanos = 0;
        for (size_t i = 0; i < 9; ++i)
            nanos = nanos * 10 + (i < run.size() ? run[i] - '0' : 0);
        return nanos;
    }

  private:
    std::string_view rest_;
};

// "+01:30" as +5400 seconds, "Z" as 0: how far the written local time is ahead of UTC.
std::optional<int64_t> utc_offset_seconds(TextCursor& cursor) {
    if (cursor.skip('Z'))
        return 0;
    const int sign = cursor.skip('+') ? 1 : cursor.skip('-') ? -1 : 0;
    if (sign == 0)
        return std::nullopt;
    const auto hours = cursor.digits(2);
    if (!hours || !cursor.skip(':'))
        return std::nullopt;
    const auto minutes = cursor.digits(2);
    if (!minutes || *hours > 23 || *minutes > 59)
        return std::nullopt;
    return sign * (*hours * 3600 + *minutes * 60);
}

// The "1972-01-01T10:00:20" of a timestamp: a real date and time, every field with all of its
// digits.
struct CivilTime {
    int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;

    std::chrono::year_month_day date() const {
        return {std::chrono::year(year), std::chrono::month(month), std::chrono::day(day)};
    }
};

std::optional<CivilTime> parse_civil_time(TextCursor& cursor) {
    CivilTime time;
    const auto year = cursor.digits(4);
    if (!year)
        return std::nullopt;
    time.year = *year;
    const std::pair<int*, char> two_digit_fields[] = {{&time.month, '-'},
                                                      {&time.day, '-'},
                                                      {&time.hour, 'T'},
                                                      {&time.minute, ':'},
                                                      {&time.second, ':'}};
    for (const auto& [field, separator] : two_digit_fields) {
        const auto value = cursor.skip(separator) ? cursor.digits(2) : std::nullopt;
        if (!value)
            return std::nullopt;
        *field = *value;
    }
    if (time.year < 1 || !time.date().ok() || time.hour > 23 || time.minute > 59 ||
        time.second > 59)
        return std::nullopt;
    return time;
}

// "1972-01-01T10:00:20.021Z", or with an offset for Z: RFC 3339, within Timestamp's range.
std::optional<SecondsAndNanos> parse_timestamp(std::string_view text) {
    TextCursor cursor(text);
    const auto time = parse_civil_time(cursor);
    const auto nanos = time ? cursor.nanos_fraction() : std::nullopt;
    const auto offset = nanos ? utc_offset_seconds(cursor) : std::nullopt;
    if (!offset || !cursor.done())
        return std::nullopt;
    const int64_t days_since_epoch = std::chrono::sys_days(time->date()).time_since_epoch().count();
    const int64_t seconds = days_since_epoch * 86400 + int64_t{time->hour} * 3600 +
                            int64_t{time->minute} * 60 + time->second - *offset;
    if (seconds < kMinTimestampSeconds || seconds > kMaxTimestampSeconds)
        return std::nullopt;
    return SecondsAndNanos{seconds, *nanos};
}

// "1.5s", "-0.000001s": seconds with up to 9 decimals, both parts carrying the sign.
std::optional<SecondsAndNanos> parse_duration(std::string_view text) {
    if (!text.ends_with('s'))
        return std::nullopt;
    text.remove_suffix(1);
    TextCursor cursor(text);
    const bool negative = cursor.skip('-');
    const std::string_view whole = cursor.digit_run();
    const auto seconds = parse_integer<int64_t>(whole);
    const auto nanos = cursor.nanos_fraction();
    if (whole.empty() || !seconds || !nanos || !cursor.done() || *seconds > kMaxDurationSeconds)
        return std::nullopt;
    return negative ? SecondsAndNanos{-*seconds, -*nanos} : SecondsAndNanos{*seconds, *nanos};
}

// "user.displayName" as "user.display_name": FieldMask's JSON writes the paths in lowerCamelCase.
std::string snake_case_path(std::string_view path) {
    std::string out;
    for (size_t i = 0; i < path.size(); ++i) {
        const auto c = static_cast<unsigned char>(path[i]);
        const bool starts_a_name = i == 0 || path[i - 1] == '.';
        if (std::isupper(c) && !starts_a_name)
            out += '_';
        out += static_cast<char>(std::tolower(c));
    }
    return out;
}

// Field names joined by dots. Anything else is refused rather than kept as written: protobuf
// would read "a(b,c)" as two paths, and a mask of paths no message has is no mask.
bool is_field_path(std::string_view path) {
    return path.find_first_not_of(
               "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") ==
           std::string_view::npos;
}

// "a.b,c" as its paths; empty ones (",,") are skipped, as protobuf skips them.
std::vector<std::string_view> field_mask_paths(std::string_view text) {
    std::vector<std::string_view> paths;
    while (!text.empty()) {
        const size_t comma = text.find(',');
        const std::string_view path = text.substr(0, comma);
        if (!path.empty())
            paths.push_back(path);
        text.remove_prefix(comma == std::string_view::npos ? text.size() : comma + 1);
    }
    return paths;
}

// ---- Descriptors ----

bool is_well_known(const gp::Descriptor& type, std::string_view name) {
    constexpr std::string_view package = "google.protobuf.";
    const std::string& full_name = type.full_name();
    return full_name.size() == package.size() + name.size() && full_name.starts_with(package) &&
           full_name.ends_with(name);
}

bool is_wrapper(const gp::Descriptor& type) {
    for (const char* name : {"DoubleValue", "FloatValue", "Int64Value", "UInt64Value", "Int32Value",
                             "UInt32Value", "BoolValue", "StringValue", "BytesValue"})
        if (is_well_known(type, name))
            return true;
    return false;
}

// JSON null for a field leaves it at its default, except where null is itself a value: a singular
// google.protobuf.Value (NULL_VALUE) or NullValue field.
bool null_leaves_at_default(const gp::FieldDescriptor& field) {
    if (field.is_repeated())
        return true;
    if (field.message_type())
        return !is_well_known(*field.message_type(), "Value");
    return !field.enum_type() || field.enum_type()->full_name() != "google.protobuf.NullValue";
}

// A key as the printer writes it ("[pkg.ext]" for an extension), the JSON name, or the proto name.
const gp::FieldDescriptor* find_field(const gp::Descriptor& type, const std::string& key) {
    if (key.size() > 2 && key.front() == '[' && key.back() == ']')
        return type.file()->pool()->FindExtensionByPrintableName(&type,
                                                                 key.substr(1, key.size() - 2));
    if (const gp::FieldDescriptor* field = type.FindFieldByName(key))
        return field;
    for (int i = 0; i < type.field_count(); ++i)
        if (type.field(i)->json_name() == key)
            return type.field(i);
    return nullptr;
}

// A value in an error message, as the JSON wrote it (2147483648, "abc"), cut short when long.
std::string shown(const json& value) {
    constexpr size_t kMaxShown = 64;
    std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
    if (text.size() > kMaxShown)
        text = text.substr(0, kMaxShown) + "...";
    return text;
}

// ---- The reader ----

// Walks the JSON beside the message, keeping the path it is at for the error message.
class MessageReader {
  public:
    void read_message(const json& value, gp::Message& out) {
        if (read_well_known(value, out))
            return;
        if (!value.is_object())
            fail("expected an object for " + out.GetDescriptor()->full_name());
        std::set<const gp::FieldDescriptor*> given;
        for (const auto& member : value.items()) {
            const PathStep step(*this, member.key());
            const gp::FieldDescriptor* field = find_field(*out.GetDescriptor(), member.key());
            if (!field)
                fail("no such field in " + out.GetDescriptor()->full_name());
            if (!given.insert(field).second)
                fail("the field is given twice, by its proto name and its JSON name");
            if (member.value().is_null() && null_leaves_at_default(*field))
                continue;
            check_oneof_is_free(out, *field);
            read_field(member.value(), out, *field);
        }
    }

  private:
    // One step into the JSON (a key, an index), for the time it is being read.
    class PathStep {
      public:
        PathStep(MessageReader& reader, std::string step) : reader_(reader) {
            // Pushed before the check, so the error shows where the JSON went too deep; a
            // failed step is never popped, but the reader is finished once it throws.
            reader_.path_.push_back(std::move(step));
            if (reader_.path_.size() > kProtobufJsonMaxDepth)
                reader_.fail("nested deeper than " + std::to_string(kProtobufJsonMaxDepth) +
                             " levels");
        }
        ~PathStep() { reader_.path_.pop_back(); }
        PathStep(const PathStep&) = delete;
        PathStep& operator=(const PathStep&) = delete;

      private:
        MessageReader& reader_;
    };

    [[noreturn]] void fail(const std::string& problem) const {
        std::string where;
        for (const std::string& step : path_) {
            if (!where.empty() && !step.starts_with('['))
                where += '.';
            where += step;
        }
        throw MappingError(where.empty() ? problem : where + ": " + problem);
    }

    void check_oneof_is_free(const gp::Message& message, const gp::FieldDescriptor& field) const {
        const gp::OneofDescriptor* oneof = field.real_containing_oneof();
        if (!oneof || !message.GetReflection()->HasOneof(message, oneof))
            return;
        const gp::FieldDescriptor* set =
            message.GetReflection()->GetOneofFieldDescriptor(message, oneof);
        fail("oneof " + oneof->name() + " already has " + set->name() + "; only one may be set");
    }

    void read_field(const json& value, gp::Message& message, const gp::FieldDescriptor& field) {
        if (field.is_map())
            read_map(value, message, field);
        else if (field.is_repeated())
            read_array(value, message, field);
        else
            read_value(value, message, field);
    }

    void read_array(const json& value, gp::Message& message, const gp::FieldDescriptor& field) {
        if (!value.is_array())
            fail("expected an array");
        for (size_t i = 0; i < value.size(); ++i) {
            const PathStep step(*this, "[" + std::to_string(i) + "]");
            read_value(value[i], message, field);
        }
    }

    void read_map(const json& value, gp::Message& message, const gp::FieldDescriptor& field) {
        if (!value.is_object())
            fail("expected an object (a map)");
        const gp::Reflection& r = *message.GetReflection();
        const gp::FieldDescriptor& key_field = *field.message_type()->map_key();
        const gp::FieldDescriptor& value_field = *field.message_type()->map_value();
        std::set<json> keys;  // "1" and "01" are one int key
        for (const auto& member : value.items()) {
            const PathStep step(*this, "[" + shown(member.key()) + "]");
            const json key = map_key(key_field, member.key());
            if (!keys.insert(key).second)
                fail("the key is given twice");
            gp::Message& entry = *r.AddMessage(&message, &field, r.GetMessageFactory());
            read_value(key, entry, key_field);
            read_value(member.value(), entry, value_field);
        }
    }

    // An object key as the value of a map's key field: bools as "true"/"false", integers as
    // decimal text (their range is checked as the key is set).
    json map_key(const gp::FieldDescriptor& key_field, const std::string& key) const {
        switch (key_field.cpp_type()) {
            case gp::FieldDescriptor::CPPTYPE_STRING:
                return key;
            case gp::FieldDescriptor::CPPTYPE_BOOL:
                if (key != "true" && key != "false")
                    fail("a bool key is \"true\" or \"false\"");
                return key == "true";
            case gp::FieldDescriptor::CPPTYPE_UINT32:
            case gp::FieldDescriptor::CPPTYPE_UINT64:
                if (const auto number = parse_integer<uint64_t>(key))
                    return *number;
                break;
            default:
                if (const auto number = parse_integer<int64_t>(key))
                    return *number;
                break;
        }
        fail("expected an integer key");
    }

    // One value of `field`: the field itself when singular, an element added when repeated.
    void read_value(const json& value, gp::Message& message, const gp::FieldDescriptor& field) {
        const gp::Reflection& r = *message.GetReflection();
        const bool add = field.is_repeated();
        switch (field.cpp_type()) {
            case gp::FieldDescriptor::CPPTYPE_INT32: {
                const int32_t v = integer<int32_t>(value, field.type_name());
                add ? r.AddInt32(&message, &field, v) : r.SetInt32(&message, &field, v);
                return;
            }
            case gp::FieldDescriptor::CPPTYPE_INT64: {
                const int64_t v = integer<int64_t>(value, field.type_name());
                add ? r.AddInt64(&message, &field, v) : r.SetInt64(&message, &field, v);
                return;
            }
            case gp::FieldDescriptor::CPPTYPE_UINT32: {
                const uint32_t v = integer<uint32_t>(value, field.type_name());
                add ? r.AddUInt32(&message, &field, v) : r.SetUInt32(&message, &field, v);
                return;
            }
            case gp::FieldDescriptor::CPPTYPE_UINT64: {
                const uint64_t v = integer<uint64_t>(value, field.type_name());
                add ? r.AddUInt64(&message, &field, v) : r.SetUInt64(&message, &field, v);
                return;
            }
            case gp::FieldDescriptor::CPPTYPE_DOUBLE: {
                const double v = floating(value);
                add ? r.AddDouble(&message, &field, v) : r.SetDouble(&message, &field, v);
                return;
            }
            case gp::FieldDescriptor::CPPTYPE_FLOAT: {
                const float v = single_float(value);
                add ? r.AddFloat(&message, &field, v) : r.SetFloat(&message, &field, v);
                return;
            }
            case gp::FieldDescriptor::CPPTYPE_BOOL: {
                if (!value.is_boolean())
                    fail("expected true or false");
                const bool v = value.get<bool>();
                add ? r.AddBool(&message, &field, v) : r.SetBool(&message, &field, v);
                return;
            }
            case gp::FieldDescriptor::CPPTYPE_ENUM: {
                const int v = enum_number(value, *field.enum_type());
                add ? r.AddEnumValue(&message, &field, v) : r.SetEnumValue(&message, &field, v);
                return;
            }
            case gp::FieldDescriptor::CPPTYPE_STRING: {
                std::string v =
                    field.type() == gp::FieldDescriptor::TYPE_BYTES ? bytes(value) : text(value);
                add ? r.AddString(&message, &field, std::move(v))
                    : r.SetString(&message, &field, std::move(v));
                return;
            }
            case gp::FieldDescriptor::CPPTYPE_MESSAGE: {
                gp::Message& child =
                    add ? *r.AddMessage(&message, &field, r.GetMessageFactory())
                        : *r.MutableMessage(&message, &field, r.GetMessageFactory());
                read_message(value, child);
                return;
            }
        }
    }

    // An integer from a JSON number or from decimal text; `type_name` says what it must fit.
    template <class Int>
    Int integer(const json& value, std::string_view type_name) const {
        std::optional<Int> number;
        if (value.is_number_unsigned()) {
            const auto wide = value.get<uint64_t>();
            if (std::in_range<Int>(wide))
                number = static_cast<Int>(wide);
        } else if (value.is_number_integer()) {
            const auto wide = value.get<int64_t>();
            if (std::in_range<Int>(wide))
                number = static_cast<Int>(wide);
        } else if (value.is_number_float()) {
            number = integral_double<Int>(value.get<double>());
        } else if (value.is_string()) {
            number = parse_integer<Int>(value.get_ref<const std::string&>());
        } else {
            fail("expected a number");
        }
        if (!number)
            fail(shown(value) + " is not a valid " + std::string(type_name));
        return *number;
    }

    double floating(const json& value) const {
        if (value.is_number())
            return value.get<double>();
        if (!value.is_string())
            fail("expected a number");
        const std::string& text = value.get_ref<const std::string&>();
        if (text == "NaN")
            return std::numeric_limits<double>::quiet_NaN();
        if (text == "Infinity")
            return std::numeric_limits<double>::infinity();
        if (text == "-Infinity")
            return -std::numeric_limits<double>::infinity();
        if (const auto number = parse_decimal(text))
            return *number;
        fail(shown(value) + " is not a number");
    }

    float single_float(const json& value) const {
        if (const auto number = narrow_to_float(floating(value)))
            return *number;
        fail(shown(value) + " is out of range for a float");
    }

    std::string text(const json& value) const {
        if (!value.is_string())
            fail("expected a string");
        return value.get<std::string>();
    }

    std::string bytes(const json& value) const {
        if (!value.is_string())
            fail("expected a base64 string");
        if (auto decoded = decode_base64(value.get_ref<const std::string&>()))
            return std::move(*decoded);
        fail("not valid base64");
    }

    // An enum value by name or number. A number an open (proto3) enum does not name is kept, as
    // protobuf keeps it; a closed (proto2) enum takes only the numbers it declares.
    int enum_number(const json& value, const gp::EnumDescriptor& type) const {
        if (value.is_null() && type.full_name() == "google.protobuf.NullValue")
            return 0;
        if (value.is_string()) {
            const std::string& name = value.get_ref<const std::string&>();
            if (const gp::EnumValueDescriptor* named = type.FindValueByName(name))
                return named->number();
            // A declared number written as text, which protobuf also takes.
            const auto number = parse_integer<int32_t>(name);
            if (number && type.FindValueByNumber(*number))
                return *number;
            fail("no value named " + shown(value) + " in " + type.full_name());
        }
        if (!value.is_number())
            fail("expected the name or number of a " + type.full_name());
        const int32_t number = integer<int32_t>(value, "enum number");
        const bool open = type.file()->syntax() == gp::FileDescriptor::SYNTAX_PROTO3;
        if (!open && !type.FindValueByNumber(number))
            fail("no value numbered " + shown(value) + " in " + type.full_name());
        return number;
    }

    // The types whose JSON is not an object of their fields; false for any other message.
    bool read_well_known(const json& value, gp::Message& out) {
        const gp::Descriptor& type = *out.GetDescriptor();
        if (type.file()->package() != "google.protobuf")
            return false;
        const gp::Reflection& r = *out.GetReflection();
        const auto field = [&](const char* name) { return type.FindFieldByName(name); };
        if (is_well_known(type, "Timestamp") || is_well_known(type, "Duration")) {
            const bool timestamp = is_well_known(type, "Timestamp");
            if (!value.is_string())
                fail(timestamp ? "expected an RFC 3339 timestamp string"
                               : "expected a duration string such as \"1.5s\"");
            const std::string& text = value.get_ref<const std::string&>();
            const auto parsed = timestamp ? parse_timestamp(text) : parse_duration(text);
            if (!parsed)
                fail(shown(value) + (timestamp ? " is not an RFC 3339 timestamp in 0001 to 9999"
                                               : " is not a duration such as \"1.5s\""));
            r.SetInt64(&out, field("seconds"), parsed->seconds);
            r.SetInt32(&out, field("nanos"), parsed->nanos);
            return true;
        }
        if (is_wrapper(type)) {
            read_value(value, out, *field("value"));
            return true;
        }
        if (is_well_known(type, "Value")) {
            read_struct_value(value, out);
            return true;
        }
        if (is_well_known(type, "Struct")) {
            read_map(value, out, *field("fields"));
            return true;
        }
        if (is_well_known(type, "ListValue")) {
            read_array(value, out, *field("values"));
            return true;
        }
        if (is_well_known(type, "FieldMask")) {
            read_field_mask(value, out);
            return true;
        }
        if (is_well_known(type, "Any"))
            fail("google.protobuf.Any is not supported: its type is not resolved");
        return false;
    }

    // Any JSON as a google.protobuf.Value: the member its kind names.
    void read_struct_value(const json& value, gp::Message& out) {
        const gp::Reflection& r = *out.GetReflection();
        const auto field = [&](const char* name) {
            return out.GetDescriptor()->FindFieldByName(name);
        };
        switch (value.type()) {
            case json::value_t::null:
                r.SetEnumValue(&out, field("null_value"), 0);
                return;
            case json::value_t::boolean:
                r.SetBool(&out, field("bool_value"), value.get<bool>());
                return;
            case json::value_t::string:
                r.SetString(&out, field("string_value"), value.get<std::string>());
                return;
            case json::value_t::object:
                read_message(value,
                             *r.MutableMessage(&out, field("struct_value"), r.GetMessageFactory()));
                return;
            case json::value_t::array:
                read_message(value,
                             *r.MutableMessage(&out, field("list_value"), r.GetMessageFactory()));
                return;
            case json::value_t::discarded:
            case json::value_t::binary:
                fail("not a JSON value");
            default:  // the three kinds of number
                r.SetDouble(&out, field("number_value"), value.get<double>());
                return;
        }
    }

    void read_field_mask(const json& value, gp::Message& out) {
        if (!value.is_string())
            fail("expected a string of comma-separated paths");
        const gp::FieldDescriptor& paths = *out.GetDescriptor()->FindFieldByName("paths");
        for (const std::string_view path : field_mask_paths(value.get_ref<const std::string&>())) {
            if (!is_field_path(path))
                fail(shown(std::string(path)) + " is not a path of field names");
            out.GetReflection()->AddString(&out, &paths, snake_case_path(path));
        }
    }

    std::vector<std::string> path_;
};

}  // namespace protobuf_from_json_impl

Expected<void, std::string> protobuf_from_json(const nlohmann::json& value,
                                               google::protobuf::Message& out) {
    using namespace protobuf_from_json_impl;  // this file's own helpers
    out.Clear();
    try {
        MessageReader().read_message(value, out);
    } catch (const MappingError& error) {
        return unexpected(std::string(error.what()));
    }
    // proto2's required fields: protobuf refuses a message without them.
    if (!out.IsInitialized())
        return unexpected("missing required fields: " + out.InitializationErrorString());
    return {};
}

}  // namespace skiff::broker::console
