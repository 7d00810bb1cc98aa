#include "broker/schema_registry/formats/avro_java_json.h"

#include "broker/schema_registry/formats/jackson_string.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <system_error>

namespace skiff::schema_registry::avro {
namespace {

// Java's Double.toString and Float.toString share one layout, given the shortest digits that
// read back to the same value: plain decimal for magnitudes in [1e-3, 1e7), otherwise
// "d.dddE<exponent>"; always at least one digit after the point.
void append_java_decimal(std::string& out, bool negative, std::string_view digits, int exponent,
                         bool plain) {
    if (negative)
        out += '-';
    if (!plain) {
        out += digits[0];
        out += '.';
        if (digits.size() > 1)
            out.append(digits.substr(1));
        else
            out += '0';
        out += 'E';
        out += std::to_string(exponent);
        return;
    }
    if (exponent < 0) {
        out += "0.";
        out.append(static_cast<size_t>(-exponent - 1), '0');
        out.append(digits);
        return;
    }
    const auto integer_digits = static_cast<size_t>(exponent) + 1;
    if (digits.size() <= integer_digits) {
        out.append(digits);
        out.append(integer_digits - digits.size(), '0');
        out += ".0";
        return;
    }
    out.append(digits.substr(0, integer_digits));
    out += '.';
    out.append(digits.substr(integer_digits));
}

}  // namespace

void append_json_string(std::string& out, std::string_view text) {
    append_jackson_string(out, text);
}

std::string json_string(std::string_view text) {
    std::string out;
    append_json_string(out, text);
    return out;
}

void append_java_double(std::string& out, double value) {
    if (std::isnan(value)) {
        out += "\"NaN\"";
        return;
    }
    if (std::isinf(value)) {
        out += value > 0 ? "\"Infinity\"" : "\"-Infinity\"";
        return;
    }
    if (value == 0) {
        out += std::signbit(value) ? "-0.0" : "0.0";
        return;
    }
    // to_chars gives the shortest digits that read back to `value`: "-d.ddde-XX".
    char buffer[64];
    const auto result =
        std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
    const std::string_view text(buffer, static_cast<size_t>(result.ptr - buffer));
    const bool negative = text.front() == '-';
    const auto e = text.find('e');
    std::string digits;
    for (const char c : text.substr(negative ? 1 : 0, e - (negative ? 1 : 0)))
        if (c != '.')
            digits += c;
    while (digits.size() > 1 && digits.back() == '0')
        digits.pop_back();
    const int exponent = std::atoi(std::string(text.substr(e + 1)).c_str());
    const double magnitude = std::fabs(value);
    append_java_decimal(out, negative, digits, exponent, magnitude >= 1e-3 && magnitude < 1e7);
}

void append_json_value(std::string& out, const Json& value) {
    switch (value.type()) {
        case Json::value_t::null:
            out += "null";
            return;
        case Json::value_t::boolean:
            out += value.get<bool>() ? "true" : "false";
            return;
        case Json::value_t::number_integer:
            out += std::to_string(value.get<int64_t>());
            return;
        case Json::value_t::number_unsigned:
            out += std::to_string(value.get<uint64_t>());
            return;
        case Json::value_t::number_float:
            append_java_double(out, value.get<double>());
            return;
        case Json::value_t::string:
            append_json_string(out, value.get_ref<const std::string&>());
            return;
        case Json::value_t::array: {
            out += '[';
            bool first = true;
            for (const auto& element : value) {
                if (!first)
                    out += ',';
                first = false;
                append_json_value(out, element);
            }
            out += ']';
            return;
        }
        case Json::value_t::object: {
            out += '{';
            bool first = true;
            for (const auto& [key, element] : value.items()) {
                if (!first)
                    out += ',';
                first = false;
                append_json_string(out, key);
                out += ':';
                append_json_value(out, element);
            }
            out += '}';
            return;
        }
        default:  // binary and discarded values never come out of the JSON parser
            out += "null";
    }
}

std::optional<double> parse_java_double(std::string_view text) {
    // Java trims characters up to and including the space.
    while (!text.empty() && static_cast<unsigned char>(text.front()) <= ' ')
        text.remove_prefix(1);
    while (!text.empty() && static_cast<unsigned char>(text.back()) <= ' ')
        text.remove_suffix(1);
    bool negative = false;
    if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
        negative = text.front() == '-';
        text.remove_prefix(1);
    }
    double value = 0;
    if (text == "NaN") {
        value = std::nan("");
    } else if (text == "Infinity") {
        value = HUGE_VAL;
    } else {
        if (!text.empty() &&
            (text.back() == 'd' || text.back() == 'D' || text.back() == 'f' || text.back() == 'F'))
            text.remove_suffix(1);
        if (text.empty() ||
            !(std::isdigit(static_cast<unsigned char>(text.front())) || text.front() == '.'))
            return std::nullopt;
        const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
        if (result.ec == std::errc::result_out_of_range) {
            // Java rounds to infinity or zero rather than refusing.
            value = std::strtod(std::string(text).c_str(), nullptr);
        } else if (result.ec != std::errc() || result.ptr != text.data() + text.size()) {
            return std::nullopt;
        }
    }
    return negative ? -value : value;
}

double through_java_float(double value) {
    const auto narrowed = static_cast<float>(value);
    if (!std::isfinite(narrowed))
        return narrowed;
    char buffer[64];
    const auto printed = std::to_chars(buffer, buffer + sizeof buffer, narrowed);
    double widened = 0;
    std::from_chars(buffer, printed.ptr, widened);
    return widened;
}

}  // namespace skiff::schema_registry::avro
