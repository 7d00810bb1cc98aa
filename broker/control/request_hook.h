// The request path under the test-control API (docs/control-api.md). With control.api.enable on,
// the router's routes (request_router.cpp) ask intercept() about every decoded request before
// its handler runs: the request is captured, an outage or the first fault rule
// that fires decides what happens, and complete() then shapes the handler's answer (or builds one
// without it). Without the API, none of this runs.
//
// Plain functions, not a coroutine wrapped around the handler: each route keeps its one
// coroutine and awaits the handler itself (and pause() for a latency rule). A coroutine template
// per API here doubled request_router.cpp's compile time (13.8 s -> 27 s, measured on the cold
// .ci/run of eb25851, whose unity batch with it was the build's longest at 56 s); as plain
// functions it is 21.7 s. (Routes of their own in another translation unit, chosen at dispatch,
// cost 14.4 + 20.5 s: more in all, with only two cores to build on.)
#pragma once

#include <asio/awaitable.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "broker/control/control_plane.h"
#include "broker/control/fault_responses.h"
#include "broker/control/message_walk.h"
#include "broker/handlers/leader_hints.h"
#include "broker/request_context.h"

namespace skiff::broker::control {

// What the control API makes of one request, whatever its API (request_hook.cpp).
struct Verdict {
    std::optional<Fired> fired;
    bool respond = true;  // false: no answer (drop, blackhole; with close, the connection goes)
};

// Captures the request and finds what acts on it: an outage of its listener or the first fault
// rule that fires. `software` is what an ApiVersions v3+ request itself names (KIP-511).
Verdict observe(ControlPlane& control, RequestContext& ctx, int16_t version,
                const RequestFacts& facts,
                std::optional<std::pair<std::string_view, std::string_view>> software);

// Waits out a latency rule.
asio::awaitable<void> pause(std::chrono::milliseconds latency);

template <class Request, class Response>
struct Interception {
    std::optional<Fired> fired;
    bool respond = true;  // false: route answers nothing
    bool run_handler = true;
    std::optional<Request> adjusted;  // what the handler gets instead of the request
    std::optional<Response> answer;   // built without the handler (or Produce's refused part)
    std::chrono::milliseconds latency{0};
};

template <class Request, class Response>
Interception<Request, Response> intercept(ControlPlane& control, RequestContext& ctx,
                                          const Request& request, int16_t version) {
    std::optional<std::pair<std::string_view, std::string_view>> software;
    if constexpr (std::is_same_v<Request, protocol::ApiVersionsRequest>)
        software.emplace(request.client_software_name, request.client_software_version);
    auto verdict = observe(control, ctx, version, request_facts(request, version), software);
    Interception<Request, Response> plan;
    plan.respond = verdict.respond;
    plan.fired = std::move(verdict.fired);
    if (!plan.respond || !plan.fired)
        return plan;
    const Fired& fired = *plan.fired;
    if constexpr (std::is_same_v<Request, protocol::MetadataRequest>) {
        if (rebootstrap_unsayable(fired, version)) {
            // REBOOTSTRAP_REQUIRED (KIP-1102) has no field before Metadata v13: the nearest a
            // broker can come is going away, after which a client starts over from its
            // bootstrap servers once it has no broker left (metadata.recovery.strategy).
            ctx.close_connection = true;
            plan.respond = false;
            return plan;
        }
    }
    switch (fired.action) {
        case FaultAction::latency:
            plan.latency = fired.latency;
            return plan;
        case FaultAction::close:
        case FaultAction::drop:
            plan.respond = false;
            return plan;  // observe() set close
        case FaultAction::fail_response:
            return plan;  // complete() fails it
        case FaultAction::error:
            break;
    }
    // The error action (fault_responses.h): nothing of what the rule targets is applied.
    if constexpr (std::is_same_v<Request, protocol::ProduceRequest>) {
        auto split = split_produce(request, fired);
        plan.run_handler = !split.rest.topic_data.empty();
        if (!plan.run_handler && request.acks == 0) {
            // Nothing appended and no answer: Kafka closes an acks=0 producer's connection on
            // a failed produce, so that it notices.
            ctx.suppress_response = true;
            ctx.close_connection = true;
        }
        plan.adjusted = std::move(split.rest);
        plan.answer = std::move(split.refused);
    } else if constexpr (has_mirror<Request>) {
        plan.run_handler = false;
        plan.answer = mirror(request, fired.error);
    } else if (error_answer_kind(ctx.header.api_key) == ErrorAnswer::top_level) {
        plan.run_handler = false;
        plan.answer.emplace();
    } else if constexpr (std::is_same_v<Request, protocol::FetchRequest>) {
        if (targets_every_partition(request, fired)) {  // nothing to wait for
            plan.adjusted = request;
            plan.adjusted->max_wait_ms = 0;
            plan.adjusted->min_bytes = 0;
        }
    } else if constexpr (std::is_same_v<Request, protocol::MetadataRequest>) {
        plan.adjusted = request;
        plan.adjusted->allow_auto_topic_creation = false;
    }
    return plan;
}

// The answer as the rule wants it, from the handler's `response` (or in place of it).
template <class Request, class Response>
void complete(Interception<Request, Response>& plan, Response& response, int16_t version,
              const RequestContext& ctx) {
    if (!plan.fired)
        return;
    const Fired& fired = *plan.fired;
    if (fired.action != FaultAction::error && fired.action != FaultAction::fail_response)
        return;
    if constexpr (std::is_same_v<Response, protocol::MetadataResponse>) {
        if (fired.error == protocol::ErrorCode::rebootstrap_required) {
            // v13+ (older versions were closed in intercept()): the top-level error only, as
            // KIP-1102 has the broker say it; the topics keep the handler's answer.
            response.error_code = fired.error;
            return;
        }
    }
    if constexpr (std::is_same_v<Response, protocol::ProduceResponse>) {
        if (fired.action == FaultAction::error) {
            merge_produce(response, std::move(*plan.answer));
            add_leader_hints(ctx, response);  // KIP-951, as below
            return;
        }
    } else {
        if (plan.answer) {
            response = std::move(*plan.answer);
            if constexpr (has_mirror<Request>)
                return;  // every entry carries the error already
        }
    }
    if (ctx.suppress_response)
        return;  // acks=0: nothing to fail
    // A top-level answer has nothing but its top-level errors: every one of them is set.
    const bool all = !fired.topic || (plan.answer && !plan.run_handler);
    overwrite_errors(response, version, fired.error, all,
                     [&](std::string_view t, const protocol::Uuid& id, std::optional<int32_t> p) {
                         return fired.targets(t, id, p);
                     });
    if constexpr (std::is_same_v<Response, protocol::FetchResponse>)
        drop_records_of_errors(response);
    // KIP-951: a NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH put in names the leader.
    if constexpr (std::is_same_v<Response, protocol::ProduceResponse> ||
                  std::is_same_v<Response, protocol::FetchResponse>)
        add_leader_hints(ctx, response);
}

}  // namespace skiff::broker::control
