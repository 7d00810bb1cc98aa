// The request path under the test-control API (docs/control-api.md): the router hands every
// decoded request here instead of to its handler when control.api.enable is on. The request is
// captured, an outage or the first fault rule that fires acts on it, and otherwise it goes to
// its handler as usual. Null, when the API is off, and then none of this runs.
#pragma once

#include <spdlog/spdlog.h>

#include <asio/awaitable.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <optional>
#include <type_traits>

#include "broker/broker.h"
#include "broker/control/control_plane.h"
#include "broker/control/fault_responses.h"
#include "broker/control/message_walk.h"
#include "broker/net/use_tuple.h"
#include "broker/request_context.h"
#include "broker/topics/topic_ids.h"
#include "protocol/api_key.h"

namespace skiff::broker::control {

// The request's response, or nullopt for none: dropped (drop, a blackhole outage) or, with
// ctx.close_connection set, the connection to be closed (close, a refuse outage).
template <class Request, class Response,
          asio::awaitable<Response> (*Handle)(RequestContext&, const Request&)>
asio::awaitable<std::optional<Response>> handle_under_control(ControlPlane& control,
                                                              RequestContext& ctx,
                                                              const Request& request,
                                                              int16_t version) {
    const int16_t api_key = ctx.header.api_key;
    const std::string_view client_id =
        ctx.header.client_id ? std::string_view(*ctx.header.client_id) : std::string_view();
    auto& topics = ctx.broker.topics();
    auto topic_name = [&topics](const protocol::Uuid& id) {
        return topic_name_of(topics, id).value_or("");
    };

    const RequestFacts facts = request_facts(request, version);
    std::optional<Fired> fired;
    if (!control.faults().empty()) {
        RequestView view{api_key, version, client_id, ctx.listener, &facts, topic_name};
        fired = control.faults().match(view);
    }
    if (control.capture().enabled()) {
        CapturedRequest captured;
        captured.at = std::chrono::system_clock::now();
        captured.api_key = api_key;
        captured.api_version = version;
        captured.correlation_id = ctx.header.correlation_id;
        captured.client_id = std::string(client_id);
        if constexpr (std::is_same_v<Request, protocol::ApiVersionsRequest>) {
            // The request that names the software (v3+, KIP-511): its own entry shows it too.
            captured.software_name = request.client_software_name;
            captured.software_version = request.client_software_version;
        } else if (ctx.client_software) {
            captured.software_name = ctx.client_software->name;
            captured.software_version = ctx.client_software->version;
        }
        captured.principal =
            ctx.session ? ctx.session->principal : std::string(kAnonymousPrincipal);
        captured.listener = std::string(ctx.listener);
        captured.peer = ctx.peer;
        captured.facts = facts;
        if (fired)
            captured.fault_rule = fired->rule_id;
        control.capture().add(std::move(captured));
    }
    if (control.refuses(ctx.listener)) {
        ctx.close_connection = true;
        co_return std::nullopt;
    }
    if (control.blackholes(ctx.listener))
        co_return std::nullopt;
    if (!fired)
        co_return co_await Handle(ctx, request);

    control.count_fired(fired->action);
    switch (fired->action) {
        case FaultAction::latency: {
            asio::steady_timer timer(co_await asio::this_coro::executor);
            timer.expires_after(fired->latency);
            co_await timer.async_wait(use_tuple);
            co_return co_await Handle(ctx, request);
        }
        case FaultAction::close:
            ctx.close_connection = true;
            co_return std::nullopt;
        case FaultAction::drop:
            co_return std::nullopt;
        case FaultAction::fail_response: {
            Response response = co_await Handle(ctx, request);
            if (ctx.suppress_response)
                co_return response;  // acks=0: nothing to fail
            overwrite_errors(response, version, fired->error, !fired->topic,
                             [&](std::string_view t, const protocol::Uuid& id,
                                 std::optional<int32_t> p) { return fired->targets(t, id, p); });
            if constexpr (std::is_same_v<Response, protocol::FetchResponse>)
                drop_records_of_errors(response);
            co_return response;
        }
        case FaultAction::error:
            break;
    }

    // The error action (fault_responses.h).
    const auto targets = [&](std::string_view t, const protocol::Uuid& id,
                             std::optional<int32_t> p) { return fired->targets(t, id, p); };
    if constexpr (std::is_same_v<Request, protocol::ProduceRequest>) {
        auto split = split_produce(request, *fired);
        Response response;
        if (!split.rest.topic_data.empty()) {
            response = co_await Handle(ctx, split.rest);
        } else if (request.acks == 0) {
            // Nothing appended and no answer: Kafka closes an acks=0 producer's connection on
            // a failed produce, so that it notices.
            ctx.suppress_response = true;
            ctx.close_connection = true;
        }
        merge_produce(response, std::move(split.refused));
        co_return response;
    } else if constexpr (has_mirror<Request>) {
        co_return mirror(request, fired->error);
    } else {
        switch (error_answer_kind(api_key)) {
            case ErrorAnswer::read_only: {
                Response response;
                if constexpr (std::is_same_v<Request, protocol::FetchRequest>) {
                    Request adjusted = request;
                    if (targets_every_partition(request, *fired)) {
                        adjusted.max_wait_ms = 0;
                        adjusted.min_bytes = 0;
                    }
                    response = co_await Handle(ctx, adjusted);
                } else if constexpr (std::is_same_v<Request, protocol::MetadataRequest>) {
                    Request adjusted = request;
                    adjusted.allow_auto_topic_creation = false;
                    response = co_await Handle(ctx, adjusted);
                } else {
                    response = co_await Handle(ctx, request);
                }
                overwrite_errors(response, version, fired->error, !fired->topic, targets);
                if constexpr (std::is_same_v<Response, protocol::FetchResponse>)
                    drop_records_of_errors(response);
                co_return response;
            }
            case ErrorAnswer::top_level: {
                Response response{};
                overwrite_errors(response, version, fired->error, true, targets);
                co_return response;
            }
            default:  // refused when the rule was made; answered as fail_response would be
                break;
        }
        Response response = co_await Handle(ctx, request);
        overwrite_errors(response, version, fired->error, !fired->topic, targets);
        co_return response;
    }
}

}  // namespace skiff::broker::control
