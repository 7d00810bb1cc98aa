#include "broker/net/connection_tracker.h"

#include "broker/net/connection.h"

namespace skiff::broker {

bool ConnectionTracker::try_add(const std::shared_ptr<Connection>& c) {
    std::lock_guard lock(mutex_);
    if (live_.size() >= max_)
        return false;
    live_.emplace(c.get(), c);
    return true;
}

void ConnectionTracker::remove(const Connection* c) {
    std::lock_guard lock(mutex_);
    live_.erase(c);
}

size_t ConnectionTracker::count() const {
    std::lock_guard lock(mutex_);
    return live_.size();
}

void ConnectionTracker::shutdown_all() {
    std::vector<std::shared_ptr<Connection>> all;
    {
        std::lock_guard lock(mutex_);
        for (auto& [_, weak] : live_)
            if (auto c = weak.lock())
                all.push_back(std::move(c));
    }
    for (auto& c : all)
        c->begin_shutdown();
}

size_t ConnectionTracker::abort_all(const std::optional<std::string>& listener) {
    std::vector<std::shared_ptr<Connection>> chosen;
    {
        std::lock_guard lock(mutex_);
        for (auto& [_, weak] : live_)
            if (auto c = weak.lock(); c && (!listener || c->listener() == *listener))
                chosen.push_back(std::move(c));
    }
    for (auto& c : chosen)
        c->abort();
    return chosen.size();
}

}  // namespace skiff::broker
