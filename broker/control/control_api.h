// The test-control API's HTTP routes under /control/ on the metrics listener
// (docs/control-api.md): JSON in and out, an optional bearer token, and clear errors (400 for
// a malformed or meaningless body, 401 for a missing or wrong token, 404 for an unknown path,
// rule or snapshot, 405 for a wrong method, 409 when the operation cannot run now). The
// operations that need the server (reset, snapshots, outages close connections) come in as
// functions, so the routes are tested without one.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "broker/control/control_plane.h"
#include "broker/http/http_message.h"

namespace skiff::broker::control {

// What an operation answered: an HTTP status and a JSON body.
// NOLINTNEXTLINE(bugprone-exception-escape): nlohmann::json's special members are not noexcept
struct ActionResult {
    int status = 200;
    nlohmann::json body;
};

struct ControlActions {
    // The names of the Kafka listeners, which outages and fault rules may name (a typo is a 400,
    // not a rule or an outage that silently never applies).
    std::function<std::vector<std::string>()> listeners;
    // Version emulation: the release in force ("" for skiff's own); set one ("" to stop) or
    // get why not (an unknown release).
    std::function<std::string()> emulated_version;
    std::function<std::optional<std::string>(const std::string& release)> emulate;
    // The releases skiff can emulate, oldest first.
    std::function<std::vector<std::string>()> releases;
    // Reset and snapshots, run with every Kafka connection closed (the server's doing).
    std::function<ActionResult(const nlohmann::json& options)> reset;
    std::function<ActionResult(const std::string& name)> take_snapshot;
    std::function<ActionResult(const std::string& name)> restore_snapshot;
    std::function<ActionResult(const std::string& name)> delete_snapshot;
    std::function<ActionResult()> list_snapshots;
};

class ControlApi {
  public:
    // `plane` null: the API is off, and every /control path answers 404 saying so.
    ControlApi(ControlPlane* plane, std::string token, ControlActions actions)
        : plane_(plane), token_(std::move(token)), actions_(std::move(actions)) {}

    // The answer to a request whose path starts with /control; nullopt for any other path.
    std::optional<http::HttpResponse> answer(const http::HttpRequest& request);

  private:
    ActionResult route(const http::HttpRequest& request, const std::vector<std::string>& path,
                       const nlohmann::json& body);
    ActionResult faults(const std::string& method, const std::vector<std::string>& path,
                        const nlohmann::json& body);
    ActionResult requests(const http::HttpRequest& request, const std::string& method);
    ActionResult outage(const std::string& method, const nlohmann::json& body);
    ActionResult disk(const std::string& method, const nlohmann::json& body);
    ActionResult emulation(const std::string& method, const nlohmann::json& body);
    ActionResult snapshots(const std::string& method, const std::vector<std::string>& path);
    nlohmann::json status() const;
    // Why `name` is not a listener's name, or nullopt when it is one.
    std::optional<std::string> unknown_listener(const std::string& name) const;

    ControlPlane* plane_;
    std::string token_;
    ControlActions actions_;
};

}  // namespace skiff::broker::control
