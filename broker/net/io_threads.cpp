#include "broker/net/io_threads.h"

#include <asio/post.hpp>

#include <algorithm>
#include <thread>

namespace skiff::broker {

IoThreads::IoThreads(int count) {
    const auto n = static_cast<size_t>(std::max(1, count));
    for (size_t i = 0; i < n; ++i) {
        // Concurrency hint 1: each context is run by one thread, so Asio need not wake a
        // second thread to take over work (handlers posted from other threads still work).
        contexts_.push_back(std::make_unique<asio::io_context>(1));
        keep_running_.emplace_back(contexts_.back()->get_executor());
    }
    acceptors_ = std::make_unique<asio::io_context>(1);
    keep_running_.emplace_back(acceptors_->get_executor());
}

asio::io_context& IoThreads::next_for_connection() {
    return *contexts_[next_.fetch_add(1, std::memory_order_relaxed) % contexts_.size()];
}

void IoThreads::run() {
    std::vector<std::thread> threads;
    for (size_t i = 1; i < contexts_.size(); ++i)
        threads.emplace_back([ctx = contexts_[i].get()] { ctx->run(); });
    threads.emplace_back([ctx = acceptors_.get()] { ctx->run(); });
    contexts_.front()->run();
    for (auto& t : threads)
        t.join();
}

size_t IoThreads::post_to_each(const std::function<void()>& task) {
    for (auto& ctx : contexts_)
        asio::post(*ctx, task);
    asio::post(*acceptors_, task);
    return contexts_.size() + 1;
}

void IoThreads::stop() {
    for (auto& ctx : contexts_)
        ctx->stop();
    acceptors_->stop();
}

}  // namespace skiff::broker
