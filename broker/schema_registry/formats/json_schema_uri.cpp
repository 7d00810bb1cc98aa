#include "broker/schema_registry/formats/json_schema_uri.h"

#include <cctype>
#include <charconv>

namespace skiff::schema_registry::json_schema {
namespace {

// A URI reference's five parts; absent and empty differ (RFC 3986 5.3), hence the optionals.
struct UriParts {
    std::optional<std::string> scheme;
    std::optional<std::string> authority;
    std::string path;
    std::optional<std::string> query;
    std::optional<std::string> fragment;
};

UriParts split_uri(std::string_view text) {
    UriParts parts;
    // A scheme is letters, digits, '+', '-', '.' starting with a letter, before the first ':',
    // and only if that ':' comes before any '/', '?' or '#'.
    std::size_t colon = text.find(':');
    std::size_t stop = text.find_first_of("/?#");
    if (colon != std::string_view::npos && colon > 0 &&
        (stop == std::string_view::npos || colon < stop) &&
        std::isalpha(static_cast<unsigned char>(text[0]))) {
        bool valid = true;
        for (std::size_t i = 1; i < colon; ++i) {
            char c = text[i];
            if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.')
                valid = false;
        }
        if (valid) {
            parts.scheme = std::string(text.substr(0, colon));
            text.remove_prefix(colon + 1);
        }
    }
    if (std::size_t hash = text.find('#'); hash != std::string_view::npos) {
        parts.fragment = std::string(text.substr(hash + 1));
        text = text.substr(0, hash);
    }
    if (std::size_t question = text.find('?'); question != std::string_view::npos) {
        parts.query = std::string(text.substr(question + 1));
        text = text.substr(0, question);
    }
    if (text.substr(0, 2) == "//") {
        text.remove_prefix(2);
        std::size_t slash = text.find('/');
        parts.authority = std::string(text.substr(0, slash));
        text = slash == std::string_view::npos ? std::string_view() : text.substr(slash);
    }
    parts.path = std::string(text);
    return parts;
}

// RFC 3986 5.2.4.
std::string remove_dot_segments(std::string_view input) {
    std::string output;
    while (!input.empty()) {
        if (input.substr(0, 3) == "../") {
            input.remove_prefix(3);
        } else if (input.substr(0, 2) == "./" || input.substr(0, 3) == "/./") {
            input.remove_prefix(2);
        } else if (input == "/.") {
            input = "/";
        } else if (input.substr(0, 4) == "/../" || input == "/..") {
            input = input.size() == 3 ? std::string_view("/") : input.substr(3);
            std::size_t last = output.rfind('/');
            output.erase(last == std::string::npos ? 0 : last);
        } else if (input == "." || input == "..") {
            input = {};
        } else {
            std::size_t next = input.find('/', input[0] == '/' ? 1 : 0);
            output.append(input.substr(0, next));
            input = next == std::string_view::npos ? std::string_view() : input.substr(next);
        }
    }
    return output;
}

std::string join_uri(const UriParts& parts) {
    std::string out;
    if (parts.scheme)
        out += *parts.scheme + ":";
    if (parts.authority)
        out += "//" + *parts.authority;
    out += parts.path;
    if (parts.query)
        out += "?" + *parts.query;
    if (parts.fragment)
        out += "#" + *parts.fragment;
    return out;
}

std::string percent_decode(std::string_view text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        unsigned value = 0;
        if (text[i] == '%' && i + 2 < text.size() &&
            std::from_chars(text.data() + i + 1, text.data() + i + 3, value, 16).ptr ==
                text.data() + i + 3) {
            out.push_back(static_cast<char>(value));
            i += 2;
        } else {
            out.push_back(text[i]);
        }
    }
    return out;
}

}  // namespace

std::string resolve_uri(std::string_view base, std::string_view reference) {
    UriParts ref = split_uri(reference);
    UriParts from = split_uri(base);
    UriParts target;
    if (ref.scheme) {
        target = ref;
        target.path = remove_dot_segments(ref.path);
        return join_uri(target);
    }
    target.scheme = from.scheme;
    if (ref.authority) {
        target.authority = ref.authority;
        target.path = remove_dot_segments(ref.path);
        target.query = ref.query;
    } else {
        target.authority = from.authority;
        if (ref.path.empty()) {
            target.path = from.path;
            target.query = ref.query ? ref.query : from.query;
        } else {
            if (ref.path[0] == '/') {
                target.path = remove_dot_segments(ref.path);
            } else {
                // Merge (5.2.3): the base's path up to its last '/', then the reference's.
                std::string merged;
                if (from.authority && from.path.empty()) {
                    merged = "/" + ref.path;
                } else {
                    std::size_t last = from.path.rfind('/');
                    merged = last == std::string::npos ? ref.path
                                                       : from.path.substr(0, last + 1) + ref.path;
                }
                target.path = remove_dot_segments(merged);
            }
            target.query = ref.query;
        }
    }
    target.fragment = ref.fragment;
    return join_uri(target);
}

std::string without_fragment(std::string_view uri) {
    return std::string(uri.substr(0, uri.find('#')));
}

std::string fragment_of(std::string_view uri) {
    std::size_t hash = uri.find('#');
    return hash == std::string_view::npos ? std::string() : percent_decode(uri.substr(hash + 1));
}

std::optional<std::vector<std::string>> parse_json_pointer(std::string_view pointer) {
    std::vector<std::string> tokens;
    if (pointer.empty())
        return tokens;
    if (pointer[0] != '/')
        return std::nullopt;
    pointer.remove_prefix(1);
    while (true) {
        std::size_t slash = pointer.find('/');
        std::string_view raw = pointer.substr(0, slash);
        std::string token;
        for (std::size_t i = 0; i < raw.size(); ++i) {
            if (raw[i] != '~') {
                token.push_back(raw[i]);
            } else if (i + 1 < raw.size() && (raw[i + 1] == '0' || raw[i + 1] == '1')) {
                token.push_back(raw[i + 1] == '0' ? '~' : '/');
                ++i;
            } else {
                return std::nullopt;
            }
        }
        tokens.push_back(std::move(token));
        if (slash == std::string_view::npos)
            return tokens;
        pointer.remove_prefix(slash + 1);
    }
}

std::string escape_pointer_token(std::string_view token) {
    std::string out;
    for (char c : token) {
        if (c == '~')
            out += "~0";
        else if (c == '/')
            out += "~1";
        else
            out.push_back(c);
    }
    return out;
}

const nlohmann::ordered_json* evaluate_json_pointer(const nlohmann::ordered_json& document,
                                                    const std::vector<std::string>& tokens) {
    const nlohmann::ordered_json* at = &document;
    for (const std::string& token : tokens) {
        if (at->is_object()) {
            auto it = at->find(token);
            if (it == at->end())
                return nullptr;
            at = &*it;
        } else if (at->is_array()) {
            std::size_t index = 0;
            auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), index);
            if (error != std::errc() || end != token.data() + token.size() || index >= at->size() ||
                (token.size() > 1 && token[0] == '0'))
                return nullptr;
            at = &(*at)[index];
        } else {
            return nullptr;
        }
    }
    return at;
}

}  // namespace skiff::schema_registry::json_schema
