#include "broker/handlers/group_commit_wait.h"

#include <asio/post.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <memory>

#include "broker/net/use_tuple.h"

namespace skiff::broker {

namespace {
// Owned by the waiting coroutine alone. The log's completions (on a sync thread) hold it
// weakly and post onto the coroutine's executor, so the timer and the counts are only touched
// on that thread, and a wait abandoned at shutdown is never touched again.
struct Wait {
    Wait(const asio::any_io_executor& ex, size_t n) : timer(ex), remaining(n), errors(n) {}
    asio::steady_timer timer;
    size_t remaining;
    std::vector<std::optional<storage::StorageError>> errors;
};
}  // namespace

asio::awaitable<std::vector<std::optional<storage::StorageError>>> wait_until_durable(
    storage::GroupCommitter& committer, std::span<const PendingSync> pending) {
    auto ex = co_await asio::this_coro::executor;
    auto wait = std::make_shared<Wait>(ex, pending.size());
    wait->timer.expires_at(asio::steady_timer::time_point::max());
    for (size_t i = 0; i < pending.size(); ++i) {
        std::weak_ptr<Wait> weak = wait;
        pending[i].log->when_durable(pending[i].end,
                                     [weak, i, ex](const Expected<void, storage::StorageError>& r) {
                                         std::optional<storage::StorageError> error;
                                         if (!r)
                                             error = r.error();
                                         asio::post(ex, [weak, i, error = std::move(error)] {
                                             auto w = weak.lock();
                                             if (!w)
                                                 return;
                                             w->errors[i] = error;
                                             if (--w->remaining == 0)
                                                 w->timer.cancel();
                                         });
                                     });
        committer.request(pending[i].log);
    }
    while (wait->remaining > 0)
        co_await wait->timer.async_wait(use_tuple);
    co_return std::move(wait->errors);
}

asio::awaitable<std::optional<storage::StorageError>> wait_until_all_durable(
    storage::GroupCommitter& committer, std::span<const PendingSync> pending) {
    if (pending.empty())
        co_return std::nullopt;
    for (auto& e : co_await wait_until_durable(committer, pending))
        if (e)
            co_return std::move(e);
    co_return std::nullopt;
}

}  // namespace skiff::broker
