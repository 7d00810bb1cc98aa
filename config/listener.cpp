#include "config/listener.h"

#include <algorithm>
#include <charconv>
#include <set>

#include "config/properties.h"

namespace skiff::config {
namespace {

constexpr std::string_view kSyntax = "expected NAME://host:port entries separated by commas";

std::string upper_cased(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](char c) { return (c >= 'a' && c <= 'z') ? char(c - 'a' + 'A') : c; });
    return out;
}

std::string fail(std::string_view entry, std::string_view why) {
    std::string out(kSyntax);
    out += " (\"";
    out += entry;
    out += "\" ";
    out += why;
    out += ')';
    return out;
}

bool valid_name(std::string_view name) {
    return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
               c == '_';
    });
}

// Hostname, IPv4 or (inside brackets) IPv6 characters, including '%' for IPv6 zone ids.
bool valid_host_chars(std::string_view host, bool allow_colon) {
    return std::all_of(host.begin(), host.end(), [allow_colon](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
               c == '.' || c == '-' || c == '_' || c == '%' || (allow_colon && c == ':');
    });
}

Expected<Listener, std::string> parse_one(std::string_view entry) {
    const auto scheme_end = entry.find("://");
    if (scheme_end == std::string_view::npos) {
        return unexpected(fail(entry, "has no \"://\""));
    }
    Listener listener;
    const std::string_view name = entry.substr(0, scheme_end);
    if (!valid_name(name)) {
        return unexpected(fail(entry, "needs a name of letters, digits and '_' before \"://\""));
    }
    listener.name = upper_cased(name);

    const std::string_view address = entry.substr(scheme_end + 3);
    std::string_view host;
    std::string_view port_text;
    if (!address.empty() && address.front() == '[') {
        const auto close = address.find(']');
        if (close == std::string_view::npos) {
            return unexpected(fail(entry, "has no closing ']'"));
        }
        host = address.substr(1, close - 1);
        if (host.find(':') == std::string_view::npos || !valid_host_chars(host, true)) {
            return unexpected(fail(entry, "has a bracketed host that is not an IPv6 address"));
        }
        if (close + 1 >= address.size() || address[close + 1] != ':') {
            return unexpected(fail(entry, "has no \":port\" after the IPv6 address"));
        }
        port_text = address.substr(close + 2);
    } else {
        const auto colon = address.rfind(':');
        if (colon == std::string_view::npos) {
            return unexpected(fail(entry, "has no \":port\""));
        }
        host = address.substr(0, colon);
        port_text = address.substr(colon + 1);
        if (host.find(':') != std::string_view::npos) {
            return unexpected(fail(entry, "has an IPv6 host without brackets, write [addr]:port"));
        }
        if (!valid_host_chars(host, false)) {
            return unexpected(fail(entry, "has a host with characters not allowed in a hostname"));
        }
    }
    listener.host = host.empty() ? "0.0.0.0" : std::string(host);

    unsigned port = 0;
    const auto [end, ec] =
        std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (port_text.empty() || ec != std::errc{} || end != port_text.data() + port_text.size() ||
        port > 65535) {
        return unexpected(fail(entry, "needs a port between 0 and 65535"));
    }
    listener.port = static_cast<uint16_t>(port);
    return listener;
}

}  // namespace

std::string Listener::to_string() const {
    std::string out = name + "://";
    if (host.find(':') != std::string::npos) {
        out += '[' + host + ']';
    } else {
        out += host;
    }
    out += ':' + std::to_string(port);
    return out;
}

Expected<std::vector<Listener>, std::string> parse_listeners(std::string_view text) {
    std::vector<Listener> listeners;
    std::set<std::string> names;
    std::set<uint16_t> ports;
    if (trim(text).empty()) {
        return unexpected(std::string(kSyntax) + " (the list is empty)");
    }
    while (true) {
        const auto comma = text.find(',');
        const std::string_view entry = trim(text.substr(0, comma));
        if (entry.empty()) {
            return unexpected(fail(text, "has an empty entry"));
        }
        auto listener = parse_one(entry);
        if (!listener) {
            return unexpected(std::move(listener.error()));
        }
        // Kafka's rules: names identify listeners, and two listeners cannot share a fixed port.
        if (!names.insert(listener->name).second) {
            return unexpected(fail(entry, "repeats the listener name " + listener->name));
        }
        if (listener->port != 0 && !ports.insert(listener->port).second) {
            return unexpected(fail(entry, "repeats port " + std::to_string(listener->port)));
        }
        listeners.push_back(std::move(*listener));
        if (comma == std::string_view::npos) {
            break;
        }
        text.remove_prefix(comma + 1);
    }
    return listeners;
}

Expected<std::optional<Listener>, std::string> parse_http_listener(std::string_view text) {
    if (trim(text).empty())
        return std::optional<Listener>();
    auto listeners = parse_listeners(text);
    if (!listeners)
        return unexpected(std::move(listeners.error()));
    if (listeners->size() != 1 || listeners->front().name != "HTTP")
        return unexpected(
            std::string("expected one HTTP://host:port address, or nothing to turn "
                        "the endpoint off"));
    return std::optional<Listener>(listeners->front());
}

Expected<std::vector<Listener>, std::string> parse_web_listeners(std::string_view text) {
    if (trim(text).empty())
        return std::vector<Listener>();
    auto listeners = parse_listeners(text);
    if (!listeners)
        return unexpected(std::move(listeners.error()));
    for (const auto& l : *listeners)
        if (l.name != "HTTP" && l.name != "HTTPS")
            return unexpected(
                "expected http://host:port or https://host:port entries, or nothing "
                "to turn it off (\"" +
                l.to_string() + "\" is neither)");
    return listeners;
}

std::string listeners_to_string(const std::vector<Listener>& listeners) {
    std::string out;
    for (const auto& listener : listeners) {
        if (!out.empty()) {
            out += ',';
        }
        out += listener.to_string();
    }
    return out;
}

std::string_view security_protocol_name(SecurityProtocol protocol) {
    switch (protocol) {
        case SecurityProtocol::plaintext:
            return "PLAINTEXT";
        case SecurityProtocol::ssl:
            return "SSL";
        case SecurityProtocol::sasl_plaintext:
            return "SASL_PLAINTEXT";
        case SecurityProtocol::sasl_ssl:
            return "SASL_SSL";
    }
    return "PLAINTEXT";
}

Expected<SecurityProtocolMap, std::string> parse_security_protocol_map(std::string_view text) {
    constexpr std::string_view kMapSyntax =
        "expected NAME:PROTOCOL entries separated by commas, PROTOCOL one of PLAINTEXT, SSL, "
        "SASL_PLAINTEXT, SASL_SSL";
    auto map_fail = [&](std::string_view entry, std::string_view why) {
        return std::string(kMapSyntax) + " (\"" + std::string(entry) + "\" " + std::string(why) +
               ")";
    };
    SecurityProtocolMap map;
    if (trim(text).empty())
        return map;
    while (true) {
        const auto comma = text.find(',');
        const std::string_view entry = trim(text.substr(0, comma));
        const auto colon = entry.find(':');
        if (entry.empty())
            return unexpected(map_fail(text, "has an empty entry"));
        if (colon == std::string_view::npos)
            return unexpected(map_fail(entry, "has no ':'"));
        const std::string_view name = trim(entry.substr(0, colon));
        if (!valid_name(name))
            return unexpected(map_fail(entry, "needs a name of letters, digits and '_'"));
        const std::string protocol_name = upper_cased(trim(entry.substr(colon + 1)));
        std::optional<SecurityProtocol> protocol;
        for (auto p : {SecurityProtocol::plaintext, SecurityProtocol::ssl,
                       SecurityProtocol::sasl_plaintext, SecurityProtocol::sasl_ssl})
            if (security_protocol_name(p) == protocol_name)
                protocol = p;
        if (!protocol)
            return unexpected(map_fail(entry, "has an unknown security protocol"));
        if (!map.emplace(upper_cased(name), *protocol).second)
            return unexpected(map_fail(entry, "repeats the listener name " + upper_cased(name)));
        if (comma == std::string_view::npos)
            break;
        text.remove_prefix(comma + 1);
    }
    return map;
}

Expected<void, std::string> check_listener_protocols(const std::vector<Listener>& listeners,
                                                     const SecurityProtocolMap& map,
                                                     bool has_keystore) {
    for (const auto& listener : listeners) {
        const auto it = map.find(listener.name);
        if (it == map.end()) {
            // Kafka refuses such a configuration too ("No security protocol defined for
            // listener"): a custom name must be mapped explicitly.
            return unexpected(
                "every listener name must be mapped to a security protocol in "
                "listener.security.protocol.map (" +
                listener.name + " is not; add " + listener.name +
                ":PLAINTEXT to serve it in plain text)");
        }
        const bool tls =
            it->second == SecurityProtocol::ssl || it->second == SecurityProtocol::sasl_ssl;
        if (tls && !has_keystore) {
            std::string error = "listener " + listener.name + " uses security protocol ";
            error += security_protocol_name(it->second);
            error +=
                ", which needs the broker's key and certificate: set ssl.keystore.location (or "
                "ssl.keystore.key and ssl.keystore.certificate.chain)";
            return unexpected(std::move(error));
        }
    }
    return {};
}

std::vector<std::string> split_list(std::string_view value, char separator) {
    std::vector<std::string> out;
    while (true) {
        const size_t end = value.find(separator);
        std::string_view item = value.substr(0, end);
        while (!item.empty() && (item.front() == ' ' || item.front() == '\t'))
            item.remove_prefix(1);
        while (!item.empty() && (item.back() == ' ' || item.back() == '\t'))
            item.remove_suffix(1);
        if (!item.empty())
            out.emplace_back(item);
        if (end == std::string_view::npos)
            break;
        value.remove_prefix(end + 1);
    }
    return out;
}

std::vector<std::string> split_comma_list(std::string_view value) {
    return split_list(value, ',');
}

std::optional<std::string> sasl_mechanisms_problem(std::string_view value) {
    const auto mechanisms = split_comma_list(value);
    if (mechanisms.empty())
        return "expected at least one of PLAIN, SCRAM-SHA-256, SCRAM-SHA-512";
    for (const auto& m : mechanisms) {
        if (m != "PLAIN" && m != "SCRAM-SHA-256" && m != "SCRAM-SHA-512")
            return "expected PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512, comma-separated (" + m +
                   " is not served by skiff" +
                   (m == "GSSAPI" || m == "OAUTHBEARER" ? std::string(": no Kerberos or OAuth")
                                                        : std::string()) +
                   ")";
    }
    return std::nullopt;
}

std::vector<Listener> effective_advertised(const std::vector<Listener>& listeners,
                                           const std::vector<Listener>& advertised) {
    std::vector<Listener> out;
    out.reserve(listeners.size());
    for (const auto& listener : listeners) {
        const auto it = std::find_if(advertised.begin(), advertised.end(),
                                     [&](const Listener& a) { return a.name == listener.name; });
        if (it != advertised.end()) {
            out.push_back(*it);
            continue;
        }
        // Not advertised: the listener's own address, as when advertised.listeners is unset.
        // Kafka accepts advertised.listeners naming a subset of the listeners too, but then
        // advertises nothing for the others, so clients connecting through them get metadata
        // without this broker and cannot go on; skiff, a single broker, gives them the listener's
        // own address instead.
        Listener self = listener;
        if (is_wildcard_host(self.host))
            self.host = self.host.find(':') == std::string::npos ? "127.0.0.1" : "::1";
        out.push_back(std::move(self));
    }
    return out;
}

bool is_wildcard_host(std::string_view host) {
    return host.empty() || host == "0.0.0.0" || host == "::" || host == "0:0:0:0:0:0:0:0";
}

}  // namespace skiff::config
