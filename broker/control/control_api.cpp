#include "broker/control/control_api.h"

#include <spdlog/spdlog.h>

#include <charconv>

#include "broker/http/url.h"
#include "storage/disk_delay.h"

namespace skiff::broker::control {
namespace {

using nlohmann::json;

ActionResult fail(int status, std::string message) {
    return {status, json{{"error", std::move(message)}}};
}

ActionResult wrong_method(const std::string& allowed) {
    auto r = fail(405, "method not allowed here; allowed: " + allowed);
    r.body["allow"] = allowed;
    return r;
}

// Constant time in the token's length, so that the answer's timing does not tell how much of a
// guess was right.
bool same_token(std::string_view given, std::string_view expected) {
    if (given.size() != expected.size())
        return false;
    unsigned char diff = 0;
    for (size_t i = 0; i < given.size(); ++i)
        diff |= static_cast<unsigned char>(given[i] ^ expected[i]);
    return diff == 0;
}

std::optional<uint64_t> parse_u64(std::string_view text) {
    uint64_t v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size())
        return std::nullopt;
    return v;
}

std::optional<int64_t> milliseconds_field(const json& body, const char* name, int64_t max,
                                          std::string& error) {
    auto it = body.find(name);
    if (it == body.end() || it->is_null())
        return std::nullopt;
    if (!it->is_number() || it->get<double>() < 0 || it->get<double>() > static_cast<double>(max)) {
        error = std::string("\"") + name + "\" must be a number from 0 to " + std::to_string(max);
        return std::nullopt;
    }
    return static_cast<int64_t>(it->get<double>());
}

}  // namespace

std::optional<http::HttpResponse> ControlApi::answer(const http::HttpRequest& request) {
    if (request.path != "/control" && request.path.rfind("/control/", 0) != 0)
        return std::nullopt;
    auto respond = [](const ActionResult& r) {
        http::HttpResponse response;
        response.status = r.status;
        response.content_type = "application/json";
        response.body = r.body.dump() + "\n";
        if (r.status == 401)
            response.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"skiff control\"");
        if (r.status == 405 && r.body.contains("allow"))
            response.headers.emplace_back("Allow", r.body["allow"].get<std::string>());
        return response;
    };
    if (!plane_)
        return respond(fail(404,
                            "the control API is off: start skiff with control.api.enable=true "
                            "(for tests only, docs/control-api.md)"));
    if (!token_.empty()) {
        auto header = request.header("authorization");
        constexpr std::string_view kBearer = "Bearer ";
        if (!header || header->substr(0, kBearer.size()) != kBearer ||
            !same_token(header->substr(kBearer.size()), token_))
            return respond(fail(401, header ? "wrong bearer token"
                                            : "this control API needs \"Authorization: Bearer "
                                              "<control.api.token>\""));
    }
    auto path = http::path_segments(request.path);
    if (!path)
        return respond(fail(400, "malformed path"));
    json body;
    if (!request.body.empty()) {
        body = json::parse(request.body, nullptr, false);
        if (body.is_discarded())
            return respond(fail(400, "the body is not valid JSON"));
    }
    ActionResult result;
    try {
        result = route(request, *path, body);
    } catch (const std::exception& e) {
        result = fail(400, e.what());
    }
    return respond(result);
}

ActionResult ControlApi::route(const http::HttpRequest& request,
                               const std::vector<std::string>& path, const json& body) {
    const std::string& method = request.method;
    // path[0] is "control".
    if (path.size() == 1) {
        if (method != "GET")
            return wrong_method("GET");
        return {200, status()};
    }
    const std::string& what = path[1];
    if (what == "faults")
        return faults(method, path, body);
    if (what == "requests" && path.size() == 2)
        return requests(request, method);
    if (what == "outage" && path.size() == 2)
        return outage(method, body);
    if (what == "disk" && path.size() == 2)
        return disk(method, body);
    if (what == "emulation" && path.size() == 2)
        return emulation(method, body);
    if (what == "reset" && path.size() == 2) {
        if (method != "POST")
            return wrong_method("POST");
        if (!body.is_null() && !body.is_object())
            return fail(400, "the body is a JSON object: {\"acls\": bool, \"users\": bool}");
        const json options = body.is_object() ? body : json::object();
        for (const auto& [key, value] : options.items())
            if ((key != "acls" && key != "users") || !value.is_boolean())
                return fail(400, "unknown or non-boolean field \"" + key +
                                     "\" (the options are \"acls\" and \"users\")");
        if (!actions_.reset)
            return fail(409, "reset is not available in this build");
        return actions_.reset(options);
    }
    if (what == "snapshots")
        return snapshots(method, path);
    return fail(404, "no such control API path; see docs/control-api.md");
}

std::optional<std::string> ControlApi::unknown_listener(const std::string& name) const {
    if (!actions_.listeners)
        return std::nullopt;
    std::string known;
    for (const auto& l : actions_.listeners()) {
        if (l == name)
            return std::nullopt;
        known += (known.empty() ? "" : ", ") + l;
    }
    return "\"listener\": \"" + name + "\" is not one of this broker's listeners (" + known + ")";
}

json ControlApi::status() const {
    json j;
    j["faults"] = plane_->faults().list().size();
    j["requests_captured"] = plane_->capture().total();
    if (actions_.emulated_version)
        j["emulated_kafka_version"] = actions_.emulated_version();
    if (auto o = plane_->outage()) {
        j["outage"] = {{"mode", outage_mode_name(o->mode)},
                       {"listener", o->listener ? json(*o->listener) : json(nullptr)}};
    }
    auto d = storage::disk_delay();
    j["disk"] = {{"write_latency_ms", d.write.count() / 1000.0},
                 {"sync_latency_ms", d.sync.count() / 1000.0}};
    return j;
}

ActionResult ControlApi::faults(const std::string& method, const std::vector<std::string>& path,
                                const json& body) {
    auto& table = plane_->faults();
    if (path.size() == 2) {
        if (method == "GET") {
            json rules = json::array();
            for (const auto& r : table.list())
                rules.push_back(rule_to_json(r));
            return {200, json{{"rules", rules}}};
        }
        if (method == "POST") {
            if (body.is_null())
                return fail(400, "POST a rule as a JSON object; see docs/control-api.md");
            auto parsed = parse_rule(body);
            if (!parsed.rule)
                return fail(400, parsed.error);
            if (const auto& l = parsed.rule->match.listener)
                if (auto why = unknown_listener(*l))
                    return fail(400, *why);
            auto stored = table.add(*parsed.rule);
            auto j = rule_to_json(stored);
            spdlog::info("control: fault rule {} added: {}", stored.id, j.dump());
            return {201, j};
        }
        if (method == "DELETE") {
            const size_t n = table.clear();
            spdlog::info("control: {} fault rule(s) removed", n);
            return {200, json{{"removed", n}}};
        }
        return wrong_method("GET, POST, DELETE");
    }
    if (path.size() != 3)
        return fail(404, "no such control API path; see docs/control-api.md");
    auto id = parse_u64(path[2]);
    if (!id)
        return fail(404, "no fault rule \"" + path[2] + "\" (rules have numeric ids)");
    if (method == "GET") {
        if (auto rule = table.get(*id))
            return {200, rule_to_json(*rule)};
        return fail(404, "no fault rule " + path[2]);
    }
    if (method == "DELETE") {
        if (!table.remove(*id))
            return fail(404, "no fault rule " + path[2]);
        spdlog::info("control: fault rule {} removed", *id);
        return {200, json{{"removed", 1}}};
    }
    return wrong_method("GET, DELETE");
}

ActionResult ControlApi::requests(const http::HttpRequest& request, const std::string& method) {
    auto& capture = plane_->capture();
    if (method == "DELETE")
        return {200, json{{"removed", capture.clear()}}};
    if (method != "GET")
        return wrong_method("GET, DELETE");
    auto query = http::parse_query(request.query);
    if (!query)
        return fail(400, "malformed query string");
    CaptureFilter filter;
    for (const auto& [key, value] : *query) {
        if (key == "api") {
            filter.api_key = parse_api(value);
            if (!filter.api_key)
                return fail(400, "\"api\": \"" + value + "\" is not an API skiff serves");
        } else if (key == "client_id") {
            filter.client_id = value;
        } else if (key == "after" || key == "limit") {
            auto n = parse_u64(value);
            if (!n)
                return fail(400, "\"" + key + "\" must be a non-negative integer");
            (key == "after" ? filter.after : filter.limit) = *n;
        } else {
            return fail(400,
                        "unknown query parameter \"" + key + "\" (api, client_id, after, limit)");
        }
    }
    json list = json::array();
    for (const auto& r : capture.query(filter))
        list.push_back(to_json(r));
    return {200, json{{"requests", list}, {"capturing", capture.enabled()}}};
}

ActionResult ControlApi::outage(const std::string& method, const json& body) {
    if (method == "GET") {
        auto o = plane_->outage();
        if (!o)
            return {200, json{{"outage", nullptr}}};
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            o->until - std::chrono::steady_clock::now());
        return {200, json{{"outage",
                           {{"mode", outage_mode_name(o->mode)},
                            {"listener", o->listener ? json(*o->listener) : json(nullptr)},
                            {"remaining_ms", std::max<int64_t>(0, left.count())}}}}};
    }
    if (method == "DELETE") {
        const bool was = plane_->end_outage();
        if (was)
            spdlog::info("control: outage ended");
        return {200, json{{"ended", was}}};
    }
    if (method != "POST")
        return wrong_method("GET, POST, DELETE");
    if (!body.is_object())
        return fail(400,
                    "POST {\"seconds\": N, \"mode\": \"refuse\" | \"blackhole\", "
                    "\"listener\": name}");
    for (const auto& [key, value] : body.items())
        if (key != "seconds" && key != "mode" && key != "listener")
            return fail(400, "unknown field \"" + key + "\" (seconds, mode, listener)");
    Outage o;
    auto seconds = body.find("seconds");
    if (seconds == body.end() || !seconds->is_number() || seconds->get<double>() <= 0 ||
        seconds->get<double>() > 86400)
        return fail(400, "\"seconds\" is required: a number above 0 and at most 86400");
    o.length = std::chrono::milliseconds(static_cast<int64_t>(seconds->get<double>() * 1000));
    if (auto mode = body.find("mode"); mode != body.end()) {
        if (*mode == "refuse")
            o.mode = OutageMode::refuse;
        else if (*mode == "blackhole")
            o.mode = OutageMode::blackhole;
        else
            return fail(400, "\"mode\" is \"refuse\" or \"blackhole\"");
    }
    if (auto listener = body.find("listener"); listener != body.end() && !listener->is_null()) {
        if (!listener->is_string() || listener->get<std::string>().empty())
            return fail(400, "\"listener\" is a listener's name, such as \"PLAINTEXT\"");
        o.listener = listener->get<std::string>();
        if (auto why = unknown_listener(*o.listener))
            return fail(400, *why);
    }
    o.until = std::chrono::steady_clock::now() + o.length;
    const size_t closed = plane_->start_outage(o);
    spdlog::info("control: outage for {} ms ({}, {}): {} connection(s) closed", o.length.count(),
                 outage_mode_name(o.mode),
                 o.listener ? "listener " + *o.listener : "every listener", closed);
    return {200, json{{"mode", outage_mode_name(o.mode)},
                      {"listener", o.listener ? json(*o.listener) : json(nullptr)},
                      {"seconds", o.length.count() / 1000.0},
                      {"connections_closed", closed}}};
}

ActionResult ControlApi::disk(const std::string& method, const json& body) {
    auto show = [] {
        auto d = storage::disk_delay();
        return json{{"write_latency_ms", d.write.count() / 1000.0},
                    {"sync_latency_ms", d.sync.count() / 1000.0}};
    };
    if (method == "GET")
        return {200, show()};
    if (method == "DELETE") {
        storage::set_disk_delay({});
        spdlog::info("control: disk latency removed");
        return {200, show()};
    }
    if (method != "PUT")
        return wrong_method("GET, PUT, DELETE");
    if (!body.is_object())
        return fail(400, "PUT {\"write_latency_ms\": N, \"sync_latency_ms\": N}");
    for (const auto& [key, value] : body.items())
        if (key != "write_latency_ms" && key != "sync_latency_ms")
            return fail(400, "unknown field \"" + key + "\" (write_latency_ms, sync_latency_ms)");
    std::string error;
    auto write = milliseconds_field(body, "write_latency_ms", 60000, error);
    auto sync = milliseconds_field(body, "sync_latency_ms", 60000, error);
    if (!error.empty())
        return fail(400, error);
    storage::DiskDelay delay;
    delay.write = std::chrono::microseconds(write.value_or(0) * 1000);
    delay.sync = std::chrono::microseconds(sync.value_or(0) * 1000);
    storage::set_disk_delay(delay);
    spdlog::info("control: disk latency set: {} ms per write, {} ms per sync", write.value_or(0),
                 sync.value_or(0));
    return {200, show()};
}

ActionResult ControlApi::emulation(const std::string& method, const json& body) {
    if (!actions_.emulate || !actions_.emulated_version)
        return fail(409, "version emulation is not available in this build");
    auto show = [&] {
        json j{{"kafka_version", actions_.emulated_version()}};
        if (actions_.releases)
            j["releases"] = actions_.releases();
        return j;
    };
    if (method == "GET")
        return {200, show()};
    std::string release;
    if (method == "PUT") {
        auto v = body.is_object() ? body.find("kafka_version") : body.end();
        if (!body.is_object() || v == body.end() || !v->is_string() || body.size() != 1)
            return fail(400, "PUT {\"kafka_version\": \"2.8\"}");
        release = v->get<std::string>();
    } else if (method != "DELETE") {
        return wrong_method("GET, PUT, DELETE");
    }
    if (auto error = actions_.emulate(release))
        return fail(400, *error);
    spdlog::info("control: ApiVersions now answered as {}",
                 release.empty() ? "skiff's own" : "Apache Kafka " + release);
    return {200, show()};
}

ActionResult ControlApi::snapshots(const std::string& method,
                                   const std::vector<std::string>& path) {
    if (path.size() == 2) {
        if (method != "GET")
            return wrong_method("GET");
        if (!actions_.list_snapshots)
            return fail(409, "snapshots are not available in this build");
        return actions_.list_snapshots();
    }
    const std::string& name = path[2];
    const bool restore = path.size() == 4 && path[3] == "restore";
    if (path.size() > 4 || (path.size() == 4 && !restore))
        return fail(404, "no such control API path; see docs/control-api.md");
    if (!actions_.take_snapshot || !actions_.restore_snapshot || !actions_.delete_snapshot)
        return fail(409, "snapshots are not available in this build");
    if (restore) {
        if (method != "POST")
            return wrong_method("POST");
        return actions_.restore_snapshot(name);
    }
    if (method == "POST")
        return actions_.take_snapshot(name);
    if (method == "DELETE")
        return actions_.delete_snapshot(name);
    return wrong_method("POST, DELETE");
}

}  // namespace skiff::broker::control
