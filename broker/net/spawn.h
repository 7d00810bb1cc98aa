// Every coroutine the broker starts goes through spawn(): an exception that escapes it is logged
// with the task's name instead of vanishing (asio::detached drops it), and an essential task
// (accepting connections) that fails stops the broker with a clear message rather than leaving
// it running half-dead.
#pragma once

#include <spdlog/spdlog.h>

#include <asio/co_spawn.hpp>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <utility>

namespace skiff::broker {

struct SpawnOptions {
    // Called (on the task's executor) after the failure was logged; set for essential tasks.
    std::function<void()> on_failure = {};
    // Kept alive until the task completes (the object whose member coroutine this is).
    std::shared_ptr<const void> keep_alive = {};
};

// Logs `e`, if any, as the failure of the task `what`. Returns whether there was one.
bool log_task_failure(const std::string& what, const std::exception_ptr& e);

template <class Executor, class Awaitable>
void spawn(Executor&& executor, Awaitable&& task, std::string what, SpawnOptions options = {}) {
    asio::co_spawn(
        std::forward<Executor>(executor), std::forward<Awaitable>(task),
        [what = std::move(what), options = std::move(options)](const std::exception_ptr& e) {
            if (log_task_failure(what, e) && options.on_failure)
                options.on_failure();
        });
}

}  // namespace skiff::broker
