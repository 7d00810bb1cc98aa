#include "broker/http/url.h"

namespace skiff::broker::http {
namespace {

int hex_value(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

}  // namespace

std::optional<std::string> percent_decode(std::string_view text, bool plus_is_space) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '%') {
            const int hi = i + 1 < text.size() ? hex_value(text[i + 1]) : -1;
            const int lo = i + 2 < text.size() ? hex_value(text[i + 2]) : -1;
            if (hi < 0 || lo < 0)
                return std::nullopt;
            out += static_cast<char>(hi * 16 + lo);
            i += 2;
        } else if (c == '+' && plus_is_space) {
            out += ' ';
        } else {
            out += c;
        }
    }
    return out;
}

std::optional<std::vector<std::string>> path_segments(std::string_view encoded_path) {
    std::vector<std::string> segments;
    if (encoded_path.starts_with('/'))
        encoded_path.remove_prefix(1);
    for (;;) {
        const auto slash = encoded_path.find('/');
        auto segment = percent_decode(encoded_path.substr(0, slash));
        if (!segment)
            return std::nullopt;
        segments.push_back(std::move(*segment));
        if (slash == std::string_view::npos)
            break;
        encoded_path.remove_prefix(slash + 1);
    }
    return segments;
}

std::optional<std::multimap<std::string, std::string>> parse_query(std::string_view query) {
    std::multimap<std::string, std::string> out;
    while (!query.empty()) {
        const auto amp = query.find('&');
        const std::string_view pair = query.substr(0, amp);
        query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
        if (pair.empty())
            continue;
        const auto eq = pair.find('=');
        auto name = percent_decode(pair.substr(0, eq), true);
        auto value = percent_decode(
            eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1), true);
        if (!name || !value)
            return std::nullopt;
        out.emplace(std::move(*name), std::move(*value));
    }
    return out;
}

}  // namespace skiff::broker::http
