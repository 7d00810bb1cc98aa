#include "broker/control/request_hook.h"

#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>

#include "broker/broker.h"
#include "broker/net/use_tuple.h"
#include "broker/topics/topic_ids.h"

namespace skiff::broker::control {

Verdict observe(ControlPlane& control, RequestContext& ctx, int16_t version,
                const RequestFacts& facts,
                std::optional<std::pair<std::string_view, std::string_view>> software) {
    const int16_t api_key = ctx.header.api_key;
    const std::string_view client_id =
        ctx.header.client_id ? std::string_view(*ctx.header.client_id) : std::string_view();
    auto& topics = ctx.broker.topics();
    auto topic_name = [&topics](const protocol::Uuid& id) {
        return topic_name_of(topics, id).value_or("");
    };
    Verdict verdict;
    if (!control.faults().empty()) {
        RequestView view{api_key, version, client_id, ctx.listener, &facts, topic_name};
        verdict.fired = control.faults().match(view);
    }
    if (control.capture().enabled()) {
        CapturedRequest captured;
        captured.at = std::chrono::system_clock::now();
        captured.api_key = api_key;
        captured.api_version = version;
        captured.correlation_id = ctx.header.correlation_id;
        captured.client_id = std::string(client_id);
        if (software) {  // the request that names the software: its own entry shows it too
            captured.software_name = std::string(software->first);
            captured.software_version = std::string(software->second);
        } else if (ctx.client_software) {
            captured.software_name = ctx.client_software->name;
            captured.software_version = ctx.client_software->version;
        }
        captured.principal =
            ctx.session ? ctx.session->principal : std::string(kAnonymousPrincipal);
        captured.listener = std::string(ctx.listener);
        captured.peer = ctx.peer;
        captured.facts = facts;
        if (verdict.fired)
            captured.fault_rule = verdict.fired->rule_id;
        control.capture().add(std::move(captured));
    }
    if (control.refuses(ctx.listener)) {
        ctx.close_connection = true;
        return {std::nullopt, false};
    }
    if (control.blackholes(ctx.listener))
        return {std::nullopt, false};
    if (verdict.fired) {
        control.count_fired(verdict.fired->action);
        if (verdict.fired->action == FaultAction::close)
            ctx.close_connection = true;
    }
    return verdict;
}

asio::awaitable<void> pause(std::chrono::milliseconds latency) {
    asio::steady_timer timer(co_await asio::this_coro::executor);
    timer.expires_after(latency);
    co_await timer.async_wait(use_tuple);
}

}  // namespace skiff::broker::control
