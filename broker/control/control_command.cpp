#include "broker/control/control_command.h"

#include <asio/connect.hpp>
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/read.hpp>
#include <asio/write.hpp>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace skiff::broker::control {
namespace {

constexpr const char* kUsage =
    R"(usage: skiff control [--url http://HOST:PORT] [--token TOKEN] COMMAND
  The test-control API of a broker started with control.api.enable=true (docs/control-api.md).
  --url    its metrics listener (default http://127.0.0.1:9649)
  --token  its control.api.token (default: $SKIFF_CONTROL_TOKEN)
commands:
  status
  faults list | faults add JSON | faults remove ID | faults clear
      e.g. faults add '{"api":"Produce","action":"error","error":"NOT_LEADER_OR_FOLLOWER","count":3}'
  requests [--api API] [--client-id ID] [--after SEQ] [--limit N] | requests clear
  outage SECONDS [--mode refuse|blackhole] [--listener NAME] | outage end | outage status
  disk WRITE_MS [SYNC_MS] | disk clear | disk status
  emulate KAFKA_VERSION | emulate off | emulate status
  reset [--acls] [--users]
  snapshot take NAME | snapshot restore NAME | snapshot delete NAME | snapshot list
)";

struct Call {
    std::string method;
    std::string path;
    std::string body;
};

struct Target {
    std::string host = "127.0.0.1";
    std::string port = "9649";
};

std::optional<Target> parse_url(std::string_view url) {
    constexpr std::string_view kScheme = "http://";
    if (url.substr(0, kScheme.size()) != kScheme)
        return std::nullopt;
    url.remove_prefix(kScheme.size());
    if (auto slash = url.find('/'); slash != std::string_view::npos)
        url = url.substr(0, slash);
    auto colon = url.rfind(':');
    if (colon == std::string_view::npos || colon == 0 || colon + 1 == url.size())
        return std::nullopt;
    Target t;
    t.host = std::string(url.substr(0, colon));
    t.port = std::string(url.substr(colon + 1));
    if (t.host.front() == '[' && t.host.back() == ']')
        t.host = t.host.substr(1, t.host.size() - 2);
    return t;
}

std::string query_escape(std::string_view s) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : s) {
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += kHex[c >> 4];
            out += kHex[c & 15];
        }
    }
    return out;
}

// The call a command line means, or an error message.
std::optional<Call> build_call(const std::vector<std::string>& a, std::string& error) {
    using nlohmann::json;
    auto need = [&](size_t n) {
        if (a.size() < n)
            error = "missing arguments";
        return a.size() >= n;
    };
    if (a.empty()) {
        error = "no command";
        return std::nullopt;
    }
    const std::string& cmd = a[0];
    const std::string sub = a.size() > 1 ? a[1] : "";
    if (cmd == "status")
        return Call{"GET", "/control", ""};
    if (cmd == "faults") {
        if (sub == "list")
            return Call{"GET", "/control/faults", ""};
        if (sub == "clear")
            return Call{"DELETE", "/control/faults", ""};
        if (sub == "add" && need(3))
            return Call{"POST", "/control/faults", a[2]};
        if (sub == "remove" && need(3))
            return Call{"DELETE", "/control/faults/" + query_escape(a[2]), ""};
    } else if (cmd == "requests") {
        if (sub == "clear")
            return Call{"DELETE", "/control/requests", ""};
        std::string query;
        for (size_t i = 1; i + 1 < a.size(); i += 2) {
            const std::string& flag = a[i];
            std::string key = flag == "--api"         ? "api"
                              : flag == "--client-id" ? "client_id"
                              : flag == "--after"     ? "after"
                              : flag == "--limit"     ? "limit"
                                                      : "";
            if (key.empty()) {
                error = "unknown option " + flag;
                return std::nullopt;
            }
            query += (query.empty() ? "?" : "&") + key + "=" + query_escape(a[i + 1]);
        }
        if (a.size() % 2 == 0) {
            error = "an option without its value";
            return std::nullopt;
        }
        return Call{"GET", "/control/requests" + query, ""};
    } else if (cmd == "outage" && need(2)) {
        if (sub == "end")
            return Call{"DELETE", "/control/outage", ""};
        if (sub == "status")
            return Call{"GET", "/control/outage", ""};
        json body;
        try {
            body["seconds"] = std::stod(sub);
        } catch (const std::exception&) {
            error = "SECONDS must be a number";
            return std::nullopt;
        }
        for (size_t i = 2; i + 1 < a.size(); i += 2) {
            if (a[i] == "--mode")
                body["mode"] = a[i + 1];
            else if (a[i] == "--listener")
                body["listener"] = a[i + 1];
            else {
                error = "unknown option " + a[i];
                return std::nullopt;
            }
        }
        return Call{"POST", "/control/outage", body.dump()};
    } else if (cmd == "disk" && need(2)) {
        if (sub == "clear")
            return Call{"DELETE", "/control/disk", ""};
        if (sub == "status")
            return Call{"GET", "/control/disk", ""};
        json body;
        try {
            body["write_latency_ms"] = std::stod(sub);
            if (a.size() > 2)
                body["sync_latency_ms"] = std::stod(a[2]);
        } catch (const std::exception&) {
            error = "the latencies are numbers of milliseconds";
            return std::nullopt;
        }
        return Call{"PUT", "/control/disk", body.dump()};
    } else if (cmd == "emulate" && need(2)) {
        if (sub == "off")
            return Call{"DELETE", "/control/emulation", ""};
        if (sub == "status")
            return Call{"GET", "/control/emulation", ""};
        return Call{"PUT", "/control/emulation", json{{"kafka_version", sub}}.dump()};
    } else if (cmd == "reset") {
        json body = json::object();
        for (size_t i = 1; i < a.size(); ++i) {
            if (a[i] == "--acls")
                body["acls"] = true;
            else if (a[i] == "--users")
                body["users"] = true;
            else {
                error = "unknown option " + a[i];
                return std::nullopt;
            }
        }
        return Call{"POST", "/control/reset", body.dump()};
    } else if (cmd == "snapshot" && need(2)) {
        if (sub == "list")
            return Call{"GET", "/control/snapshots", ""};
        if (need(3)) {
            const std::string path = "/control/snapshots/" + query_escape(a[2]);
            if (sub == "take")
                return Call{"POST", path, ""};
            if (sub == "restore")
                return Call{"POST", path + "/restore", ""};
            if (sub == "delete")
                return Call{"DELETE", path, ""};
        }
    }
    if (error.empty())
        error = "unknown command";
    return std::nullopt;
}

}  // namespace

int control_command_main(int argc, char** argv) {
    Target target;
    std::string token;
    if (const char* env = std::getenv("SKIFF_CONTROL_TOKEN"))
        token = env;
    std::vector<std::string> args;
    for (int i = 0; i < argc; ++i) {
        std::string_view arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            std::fputs(kUsage, stdout);
            return 0;
        }
        if ((arg == "--url" || arg == "--token") && i + 1 < argc) {
            if (arg == "--token") {
                token = argv[++i];
            } else if (auto t = parse_url(argv[++i])) {
                target = *t;
            } else {
                std::fprintf(stderr, "skiff control: --url takes http://HOST:PORT\n%s", kUsage);
                return 2;
            }
            continue;
        }
        args.emplace_back(arg);
    }
    std::string error;
    auto call = build_call(args, error);
    if (!call) {
        std::fprintf(stderr, "skiff control: %s\n%s", error.c_str(), kUsage);
        return 2;
    }
    std::string request = call->method + " " + call->path + " HTTP/1.1\r\nHost: " + target.host +
                          ":" + target.port + "\r\nConnection: close\r\n";
    if (!token.empty())
        request += "Authorization: Bearer " + token + "\r\n";
    if (!call->body.empty())
        request += "Content-Type: application/json\r\n";
    request += "Content-Length: " + std::to_string(call->body.size()) + "\r\n\r\n" + call->body;
    try {
        asio::io_context io;
        asio::ip::tcp::resolver resolver(io);
        asio::ip::tcp::socket socket(io);
        asio::connect(socket, resolver.resolve(target.host, target.port));
        asio::write(socket, asio::buffer(request));
        std::string response;
        std::error_code ec;
        asio::read(socket, asio::dynamic_buffer(response), ec);
        if (ec && ec != asio::error::eof)
            throw std::system_error(ec);
        // "HTTP/1.1 200 OK\r\n...\r\n\r\nbody": the body as is (the server closes after it).
        const auto head_end = response.find("\r\n\r\n");
        int status = 0;
        if (response.size() > 12)
            status = std::atoi(response.c_str() + 9);
        const std::string body =
            head_end == std::string::npos ? std::string() : response.substr(head_end + 4);
        std::fputs(body.c_str(), status >= 200 && status < 300 ? stdout : stderr);
        if (status < 200 || status >= 300) {
            std::fprintf(stderr, "skiff control: HTTP %d\n", status);
            return 1;
        }
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "skiff control: cannot reach http://%s:%s: %s\n", target.host.c_str(),
                     target.port.c_str(), e.what());
        return 1;
    }
}

}  // namespace skiff::broker::control
