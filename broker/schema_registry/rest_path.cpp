#include "broker/schema_registry/rest_path.h"

#include <limits>

namespace skiff::schema_registry {
namespace {

int hex_digit_value(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

std::optional<std::string> percent_decode(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '%') {
            out.push_back(text[i]);  // '+' stays '+': it means a space only in a query
            continue;
        }
        if (i + 2 >= text.size())
            return std::nullopt;
        const int high = hex_digit_value(text[i + 1]);
        const int low = hex_digit_value(text[i + 2]);
        if (high < 0 || low < 0)
            return std::nullopt;
        out.push_back(static_cast<char>(high * 16 + low));
        i += 2;
    }
    return out;
}

bool is_valid_utf8(std::string_view s) {
    size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        size_t extra = 0;
        uint32_t code = 0;
        if (c < 0x80) {
            ++i;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            extra = 1;
            code = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            extra = 2;
            code = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            extra = 3;
            code = c & 0x07;
        } else {
            return false;
        }
        if (i + extra >= s.size())
            return false;
        for (size_t k = 1; k <= extra; ++k) {
            const auto cc = static_cast<unsigned char>(s[i + k]);
            if ((cc & 0xC0) != 0x80)
                return false;
            code = (code << 6) | (cc & 0x3F);
        }
        // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
        static constexpr uint32_t kMinimum[4] = {0, 0x80, 0x800, 0x10000};
        if (code < kMinimum[extra] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF))
            return false;
        // C1 control characters (U+0080..U+009F) are control characters to Java too.
        if (code >= 0x80 && code <= 0x9F)
            return false;
        i += extra + 1;
    }
    return true;
}

}  // namespace

std::optional<std::vector<std::string>> split_path(std::string_view path) {
    if (path.empty() || path.front() != '/')
        return std::nullopt;
    path.remove_prefix(1);
    if (!path.empty() && path.front() == '/')
        return std::nullopt;  // "//...": an empty first segment
    if (!path.empty() && path.back() == '/')
        path.remove_suffix(1);
    std::vector<std::string> segments;
    if (path.empty())
        return segments;
    size_t start = 0;
    while (true) {
        const size_t end = path.find('/', start);
        const std::string_view raw = path.substr(
            start, end == std::string_view::npos ? std::string_view::npos : end - start);
        if (raw.empty() || raw == "." || raw == "..")
            return std::nullopt;
        std::optional<std::string> decoded = percent_decode(raw);
        if (!decoded)
            return std::nullopt;
        segments.push_back(std::move(*decoded));
        if (end == std::string_view::npos)
            break;
        start = end + 1;
    }
    return segments;
}

bool is_valid_subject(std::string_view subject) {
    if (subject.empty() || subject == "." || subject == ".." || subject == "__GLOBAL" ||
        subject == "__EMPTY")
        return false;
    for (char c : subject) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7F)
            return false;
    }
    return is_valid_utf8(subject);
}

std::optional<std::string_view> query_value(const RestRequest& request, std::string_view name) {
    auto it = request.query.find(std::string(name));
    if (it == request.query.end())
        return std::nullopt;
    return std::string_view(it->second);
}

bool query_flag(const RestRequest& request, std::string_view name) {
    std::optional<std::string_view> value = query_value(request, name);
    if (!value || value->size() != 4)
        return false;
    static constexpr std::string_view kTrue = "true";
    for (size_t i = 0; i < 4; ++i) {
        if ((static_cast<unsigned char>((*value)[i]) | 0x20) !=
            static_cast<unsigned char>(kTrue[i]))
            return false;
    }
    return true;
}

std::optional<int32_t> query_int(const RestRequest& request, std::string_view name,
                                 int32_t fallback) {
    std::optional<std::string_view> value = query_value(request, name);
    if (!value)
        return fallback;
    return parse_java_int(*value);
}

std::optional<int32_t> parse_java_int(std::string_view text) {
    if (text.empty())
        return std::nullopt;
    bool negative = false;
    if (text.front() == '-' || text.front() == '+') {
        negative = text.front() == '-';
        text.remove_prefix(1);
        if (text.empty())
            return std::nullopt;
    }
    int64_t value = 0;
    for (char c : text) {
        if (c < '0' || c > '9')
            return std::nullopt;
        value = value * 10 + (c - '0');
        if (value > static_cast<int64_t>(std::numeric_limits<int32_t>::max()) + 1)
            return std::nullopt;
    }
    if (negative)
        value = -value;
    if (value < std::numeric_limits<int32_t>::min() || value > std::numeric_limits<int32_t>::max())
        return std::nullopt;
    return static_cast<int32_t>(value);
}

Expected<int, RestError> parse_version(std::string_view text) {
    // Java's trim(): every character up to ' ' counts as blank.
    std::string_view trimmed = text;
    while (!trimmed.empty() && static_cast<unsigned char>(trimmed.front()) <= ' ')
        trimmed.remove_prefix(1);
    while (!trimmed.empty() && static_cast<unsigned char>(trimmed.back()) <= ' ')
        trimmed.remove_suffix(1);
    if (trimmed.size() == 6) {
        std::string lower(trimmed);
        for (char& c : lower)
            c = static_cast<char>(c | 0x20);
        if (lower == "latest")
            return kLatestVersion;
    }
    std::optional<int32_t> number = parse_java_int(trimmed);
    if (!number)
        return unexpected(errors::invalid_version(text));
    if (*number <= 0 && *number != kLatestVersion)
        return unexpected(errors::invalid_version(std::to_string(*number)));
    return *number;
}

}  // namespace skiff::schema_registry
