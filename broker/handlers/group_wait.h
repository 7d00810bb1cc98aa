// Suspends a group handler until the GroupCoordinator calls back (a JoinGroup waiting for the
// join phase to end, a SyncGroup waiting for the leader's assignment) without blocking a thread.
//
// The waiting coroutine parks on a steady_timer of its connection's I/O thread, used as a condition
// variable: the coordinator's callback (any thread) posts the result onto that thread and
// cancels the timer there, so the timer and the result are only touched there. `limit`
// is a safety net only; the coordinator always answers by the end of the rebalance.
#pragma once

#include <asio/awaitable.hpp>
#include <asio/post.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>

#include "broker/net/use_tuple.h"

namespace skiff::broker {

template <class Result>
asio::awaitable<Result> await_group_result(
    const std::function<void(std::function<void(Result)>)>& start, std::chrono::milliseconds limit,
    Result on_timeout) {
    struct Slot {
        explicit Slot(const asio::any_io_executor& ex) : timer(ex) {}
        asio::steady_timer timer;
        std::optional<Result> result;
    };
    auto slot = std::make_shared<Slot>(co_await asio::this_coro::executor);
    const auto deadline = std::chrono::steady_clock::now() + limit;
    slot->timer.expires_at(deadline);
    start([slot](Result r) {
        asio::post(slot->timer.get_executor(), [slot, r = std::move(r)]() mutable {
            slot->result = std::move(r);
            slot->timer.cancel();
        });
    });
    while (!slot->result && std::chrono::steady_clock::now() < deadline)
        co_await slot->timer.async_wait(use_tuple);
    if (!slot->result)
        co_return on_timeout;
    co_return std::move(*slot->result);
}

// "/127.0.0.1" from "127.0.0.1:53412": the client host as Kafka reports it in DescribeGroups.
inline std::string client_host_of(const std::string& peer) {
    auto colon = peer.rfind(':');
    return "/" + (colon == std::string::npos ? peer : peer.substr(0, colon));
}

}  // namespace skiff::broker
