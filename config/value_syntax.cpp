#include "config/value_syntax.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <vector>

#include "config/properties.h"

namespace skiff::config {

std::optional<int64_t> parse_long(std::string_view text) {
    int64_t v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty())
        return std::nullopt;
    return v;
}

std::optional<double> parse_double(std::string_view text) {
    // Java also takes a trailing d/D/f/F; "NaN" and "Infinity" are refused here (never useful).
    if (!text.empty() &&
        (text.back() == 'd' || text.back() == 'D' || text.back() == 'f' || text.back() == 'F'))
        text.remove_suffix(1);
    if (!text.empty() && text.front() == '+')
        text.remove_prefix(1);
    if (text.empty() || text.front() == '+')
        return std::nullopt;
    for (char c : text)
        if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+'))
            return std::nullopt;
    double v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(v))
        return std::nullopt;
    return v;
}

std::string render_double(double value) {
    char buf[64];
    const double magnitude = std::fabs(value);
    if (value == 0.0 || (magnitude >= 1e-3 && magnitude < 1e7)) {
        auto r = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed);
        std::string out(buf, r.ptr);
        if (out.find('.') == std::string::npos)
            out += ".0";
        return out;
    }
    auto r = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
    const std::string text(buf, r.ptr);  // e.g. 1.7976931348623157e+308, 1e+07
    const size_t e = text.find('e');
    std::string mantissa = text.substr(0, e);
    if (mantissa.find('.') == std::string::npos)
        mantissa += ".0";
    std::string exponent = text.substr(e + 1);
    const bool negative = exponent.front() == '-';
    exponent.erase(0, 1);  // the sign
    exponent.erase(0, std::min(exponent.find_first_not_of('0'), exponent.size() - 1));
    return mantissa + "E" + (negative ? "-" : "") + exponent;
}

std::optional<CleanupPolicy> parse_cleanup_policy(std::string_view text) {
    CleanupPolicy policy;
    while (true) {
        const size_t comma = text.find(',');
        std::string_view item = trim(text.substr(0, comma));
        if (item == "delete")
            policy.delete_ = true;
        else if (item == "compact")
            policy.compact = true;
        else
            return std::nullopt;  // unknown, or empty (",", "delete,", "")
        if (comma == std::string_view::npos)
            return policy;
        text.remove_prefix(comma + 1);
    }
}

bool is_kafka_version(std::string_view text) {
    if (auto iv = text.find("-IV"); iv != std::string_view::npos) {
        std::string_view n = text.substr(iv + 3);
        if (n.empty() || n.size() > 3 ||
            n.find_first_not_of("0123456789") != std::string_view::npos)
            return false;
        text = text.substr(0, iv);
    }
    std::vector<int> parts;
    while (!text.empty()) {
        const size_t dot = text.find('.');
        std::string_view part = text.substr(0, dot);
        int v = 0;
        auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
        if (part.empty() || part.size() > 3 || ec != std::errc() ||
            end != part.data() + part.size())
            return false;
        parts.push_back(v);
        if (dot == std::string_view::npos)
            break;
        text = text.substr(dot + 1);
        if (text.empty())
            return false;  // trailing dot
    }
    // Kafka reads the first three parts of a 0.x version and the first two of any other, and
    // ignores the rest: librdkafka's tests send 0.10.0.0.
    if (parts.empty() || parts.size() < (parts[0] == 0 ? 3u : 2u) || parts.size() > 4)
        return false;
    if (parts[0] == 0)  // 0.8.0 .. 0.11.0
        return parts[1] >= 8 && parts[1] <= 11;
    return parts[0] <= 3;
}

}  // namespace skiff::config
