// The skiff server: opens the log directory, listens, accepts connections and runs them on a
// pool of I/O threads (connections pinned to one each), runs retention and flushing in a
// maintenance thread and compaction on the log cleaner's threads, and shuts down gracefully on
// SIGINT/SIGTERM (a second signal exits at once).
#pragma once

#include <asio/awaitable.hpp>
#include <asio/ip/tcp.hpp>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "broker/broker.h"
#include "broker/console/console_endpoint.h"
#include "broker/control/control_api.h"
#include "broker/metrics/endpoint.h"
#include "broker/net/connection_tracker.h"
#include "broker/net/io_threads.h"
#include "broker/net/request_budget.h"
#include "broker/request_router.h"
#include "broker/schema_registry/service/registry_endpoint.h"
#include "broker/security/tls_context.h"
#include "config/broker_config.h"
#include "storage/cleaner/cleaner_manager.h"

namespace skiff::broker {

class Server {
  public:
    // Opens (and if needed recovers) the log directory. Throws std::runtime_error on start-up
    // failures the operator must fix (unusable log dir, port in use, ...).
    explicit Server(config::BrokerConfig config);
    ~Server();

    // Serves until a shutdown signal; returns the process exit code.
    int run();

  private:
    // Accepts on `acceptor`, the listener named `listener`, until it closes.
    asio::awaitable<void> accept_loop(asio::ip::tcp::acceptor& acceptor, std::string listener);
    asio::awaitable<void> shutdown_gracefully();
    void maintenance_loop();
    void stop_maintenance();
    // metrics.listener: starts the HTTP endpoint (metrics/endpoint.h), unless turned off.
    void start_metrics_endpoint();
    // The control API's operations that need the server (control/control_api.h).
    control::ControlActions control_actions();
    // schema.registry.listeners: serves the registry (schema_registry/service/), unless off.
    void start_schema_registry();
    // console.listeners: serves the web console and its API (console/), unless off.
    void start_console();

    // Declaration order is destruction order in reverse: the io_contexts go before the state
    // their pending connections refer to, and the acceptors before the io_contexts.
    config::BrokerConfig config_;
    std::unique_ptr<Broker> broker_;
    RequestRouter router_;
    ConnectionTracker tracker_;
    RequestBudget budget_;  // outlives the connections (destroyed with io_) that hold bytes of it
    IoThreads io_;
    std::vector<std::unique_ptr<asio::ip::tcp::acceptor>> acceptors_;  // config_.listeners' order
    // The TLS context of SSL and SASL_SSL listeners (null without one); reloaded on SIGHUP.
    std::shared_ptr<security::TlsContext> tls_;

    std::unique_ptr<storage::CleanerManager> cleaner_;  // log.cleaner.*: compacted topics
    std::thread maintenance_;
    std::mutex maintenance_mutex_;
    std::condition_variable maintenance_cv_;
    bool maintenance_stop_ = false;
    bool shutting_down_ = false;
    // An essential task failed (accepting, the group timers): run() returns 1. Set from any thread.
    std::atomic<bool> failed_{false};
    std::atomic<bool> accepting_{true};  // false once shutdown starts: accepted sockets are dropped

    // The metrics endpoint's view: read from its own thread.
    std::atomic<Broker*> scrape_broker_{nullptr};  // set once the logs are open
    std::atomic<bool> ready_{false};               // /health/ready
    std::atomic<double> recovery_seconds_{-1};
    std::atomic<uint64_t> retention_deleted_segments_{0};
    // The schema registry's servers, destroyed before the broker whose registry they serve.
    std::unique_ptr<schema_registry_service::RegistryEndpoint> registry_endpoint_;
    std::vector<std::unique_ptr<http::HttpServer>> registry_http_;
    // The console's servers, likewise before the broker they read.
    std::unique_ptr<console::ConsoleEndpoint> console_endpoint_;
    std::vector<std::unique_ptr<http::HttpServer>> console_http_;
    // The test-control API's routes (docs/control-api.md), served by http_.
    std::unique_ptr<control::ControlApi> control_api_;
    std::atomic<control::ControlApi*> control_api_ready_{nullptr};  // read by http_'s thread
    // Last: destroyed first, before anything a scrape reads.
    std::unique_ptr<http::HttpServer> http_;
};

}  // namespace skiff::broker
