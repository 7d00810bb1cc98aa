// The live client connections: enforces max.connections and lets a graceful shutdown ask every
// connection to stop reading and wait until they have all finished. Thread-safe.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace skiff::broker {

class Connection;

class ConnectionTracker {
  public:
    explicit ConnectionTracker(size_t max_connections) : max_(max_connections) {}

    // False when the limit is reached; the caller then closes the new socket.
    bool try_add(const std::shared_ptr<Connection>& c);
    void remove(const Connection* c);
    size_t count() const;
    // Asks every live connection to finish its in-flight requests and close.
    void shutdown_all();
    // Closes at once (in-flight requests unanswered) every live connection of the listener
    // named `listener`, or of every listener: the control API's outage. Returns how many.
    size_t abort_all(const std::optional<std::string>& listener);

  private:
    size_t max_;
    mutable std::mutex mutex_;
    std::unordered_map<const Connection*, std::weak_ptr<Connection>> live_;
};

}  // namespace skiff::broker
