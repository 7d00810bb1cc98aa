#include "config/properties.h"

#include <algorithm>
#include <cstdint>
#include <optional>

namespace skiff::config {
namespace {

bool is_blank(char c) {
    return c == ' ' || c == '\t' || c == '\f';
}

void append_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

std::optional<uint32_t> hex4(std::string_view s, size_t pos) {
    if (pos + 4 > s.size()) {
        return std::nullopt;
    }
    uint32_t v = 0;
    for (size_t i = pos; i < pos + 4; ++i) {
        const char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9') {
            v |= static_cast<uint32_t>(c - '0');
        } else if (c >= 'a' && c <= 'f') {
            v |= static_cast<uint32_t>(c - 'a' + 10);
        } else if (c >= 'A' && c <= 'F') {
            v |= static_cast<uint32_t>(c - 'A' + 10);
        } else {
            return std::nullopt;
        }
    }
    return v;
}

// Splits the text into logical lines: comments and blank lines dropped, continuations joined.
// The backslashes that join lines are removed; every other backslash is left for unescape().
struct LogicalLine {
    std::string text;
    int line;
};

std::vector<LogicalLine> logical_lines(std::string_view text) {
    std::vector<LogicalLine> out;
    int line_no = 0;
    bool continuing = false;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t end = text.find_first_of("\r\n", pos);
        if (end == std::string_view::npos) {
            end = text.size();
        }
        std::string_view natural = text.substr(pos, end - pos);
        ++line_no;
        pos = end;
        if (pos < text.size()) {
            const bool crlf = text[pos] == '\r' && pos + 1 < text.size() && text[pos + 1] == '\n';
            pos += crlf ? 2 : 1;
        }

        size_t skip = 0;
        while (skip < natural.size() && is_blank(natural[skip])) {
            ++skip;
        }
        natural.remove_prefix(skip);
        if (!continuing) {
            if (natural.empty() || natural.front() == '#' || natural.front() == '!') {
                continue;
            }
            out.push_back({"", line_no});
        }
        size_t backslashes = 0;
        while (backslashes < natural.size() && natural[natural.size() - 1 - backslashes] == '\\') {
            ++backslashes;
        }
        continuing = backslashes % 2 == 1;
        if (continuing) {
            natural.remove_suffix(1);
        }
        out.back().text += natural;
    }
    return out;
}

// Resolves the escapes in a key or a value.
Expected<std::string, std::string> unescape(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '\\') {
            out += s[i];
            continue;
        }
        if (++i == s.size()) {
            break;  // a lone trailing backslash stands for nothing, as in Java
        }
        switch (const char c = s[i]) {
            case 't':
                out += '\t';
                break;
            case 'n':
                out += '\n';
                break;
            case 'r':
                out += '\r';
                break;
            case 'f':
                out += '\f';
                break;
            case 'u': {
                auto cp = hex4(s, i + 1);
                if (!cp) {
                    return unexpected(std::string("malformed \\uXXXX escape"));
                }
                i += 4;
                // A high surrogate followed by an escaped low surrogate is one code point.
                if (*cp >= 0xD800 && *cp < 0xDC00 && i + 2 < s.size() && s[i + 1] == '\\' &&
                    s[i + 2] == 'u') {
                    if (auto low = hex4(s, i + 3); low && *low >= 0xDC00 && *low < 0xE000) {
                        *cp = 0x10000 + ((*cp - 0xD800) << 10) + (*low - 0xDC00);
                        i += 6;
                    }
                }
                append_utf8(out, *cp);
                break;
            }
            default:
                out += c;
                break;
        }
    }
    return out;
}

}  // namespace

Expected<std::vector<PropertyEntry>, PropertiesError> parse_properties(std::string_view text) {
    std::vector<PropertyEntry> entries;
    for (const auto& logical : logical_lines(text)) {
        const std::string_view s = logical.text;
        size_t key_end = 0;
        while (key_end < s.size()) {
            const char c = s[key_end];
            if (c == '\\') {
                key_end += 2;
                continue;
            }
            if (c == '=' || c == ':' || is_blank(c)) {
                break;
            }
            ++key_end;
        }
        key_end = std::min(key_end, s.size());
        size_t value_begin = key_end;
        while (value_begin < s.size() && is_blank(s[value_begin])) {
            ++value_begin;
        }
        if (value_begin < s.size() && (s[value_begin] == '=' || s[value_begin] == ':')) {
            ++value_begin;
        }
        while (value_begin < s.size() && is_blank(s[value_begin])) {
            ++value_begin;
        }

        auto key = unescape(s.substr(0, key_end));
        if (!key) {
            return unexpected(PropertiesError{logical.line, std::move(key.error())});
        }
        auto value = unescape(s.substr(value_begin));
        if (!value) {
            return unexpected(PropertiesError{logical.line, std::move(value.error())});
        }
        entries.push_back({std::move(*key), std::move(*value), logical.line});
    }
    return entries;
}

std::string_view trim(std::string_view s) {
    const auto first = s.find_first_not_of(" \t\r\n\f");
    if (first == std::string_view::npos) {
        return {};
    }
    const auto last = s.find_last_not_of(" \t\r\n\f");
    return s.substr(first, last - first + 1);
}

}  // namespace skiff::config
