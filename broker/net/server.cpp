#include "broker/net/server.h"

#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <asio/ip/tcp.hpp>
#include <asio/signal_set.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>
#include <cerrno>
#include <csignal>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>

#include "broker/cleaner_settings.h"
#include "broker/cluster_identity.h"
#include "broker/control/snapshots.h"
#include "broker/control/state_reset.h"
#include "broker/halt_on_sync_failure.h"
#include "broker/log_throttle.h"
#include "broker/metrics/collector.h"
#include "broker/metrics/sync_metrics.h"
#include "broker/net/connection.h"
#include "broker/net/heap_trimmer.h"
#include "broker/net/spawn.h"
#include "broker/net/use_tuple.h"

namespace skiff::broker {
namespace {

constexpr auto kShutdownGrace = std::chrono::seconds(10);
// accept(2) failing for want of descriptors or memory leaves the connection in the listen queue,
// so retrying at once fails again at once: the loop would spin a core and write a log line per
// try. It waits instead, from kAcceptBackoffMin doubling to kAcceptBackoffMax, and logs at most
// once per kAcceptLogInterval. Open connections are served meanwhile (other threads, and this
// one between tries).
constexpr auto kAcceptBackoffMin = std::chrono::milliseconds(100);
constexpr auto kAcceptBackoffMax = std::chrono::milliseconds(1000);
constexpr auto kAcceptLogInterval = std::chrono::seconds(10);

bool out_of_resources(const std::error_code& ec) {
    // Asio reports errno values in its own "asio.system" category, which does not compare equal
    // to std::errc conditions: compare the values.
    if (ec.category() != asio::error::get_system_category() &&
        ec.category() != std::system_category())
        return false;
    const int e = ec.value();
    return e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM;
}

// Descriptors kept free of partitions for connections, checkpoints and the like when judging
// whether the descriptor limit suits the partitions found.
constexpr size_t kDescriptorReserve = 1024;

// Warns, before the logs are opened (which fails with "Too many open files" when the limit is
// far too low), when the soft descriptor limit (main raised it to the hard one) leaves less than
// kDescriptorReserve beside one descriptor per partition. One per partition is the least: the
// active segment's .log stays open; sealed segments and indexes may add more.
void warn_if_descriptor_limit_low(const std::string& log_dir) {
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
        return;
    size_t partitions = 0;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(log_dir, ec))
        if (storage::parse_partition_dir_name(entry.path().filename().string()))
            ++partitions;
    if (partitions + kDescriptorReserve > limit.rlim_cur)
        spdlog::warn(
            "{} partition(s) in {} hold at least one file descriptor each, and the descriptor "
            "limit is {} (hard {}): raise it (ulimit -n, systemd LimitNOFILE=, docker --ulimit "
            "nofile=) to at least {}, or loading and creating partitions will fail with \"Too many "
            "open files\"",
            partitions, log_dir, limit.rlim_cur,
            limit.rlim_max == RLIM_INFINITY ? std::string("unlimited")
                                            : std::to_string(limit.rlim_max),
            partitions + kDescriptorReserve);
}

std::unique_ptr<storage::LogManager> open_logs(const config::BrokerConfig& config) {
    std::error_code ec;
    std::filesystem::create_directories(config.log_dir, ec);
    if (ec)
        throw std::runtime_error("cannot create log.dirs " + config.log_dir + ": " + ec.message());
    warn_if_descriptor_limit_low(config.log_dir);
    // A control API restore that a crash interrupted is finished first (control/snapshots.h):
    // the logs then open as the snapshot's, never as a mix of old and restored directories.
    if (auto error = control::finish_interrupted_restore(config.log_dir); !error.empty())
        throw std::runtime_error("cannot finish the interrupted snapshot restore in " +
                                 config.log_dir + ": " + error);
    const auto started = std::chrono::steady_clock::now();
    auto logs = storage::LogManager::open(config.log_dir, log_config_from(config), {},
                                          config.num_recovery_threads_per_data_dir);
    if (!logs)
        throw std::runtime_error("cannot open log.dirs " + config.log_dir + ": " +
                                 logs.error().message);
    const auto& stats = (*logs)->recovery_stats();
    spdlog::info(
        "loaded {} partition(s), {} segment(s) in {} ms on {} thread(s); {} segment(s) "
        "({} bytes) validated",
        (*logs)->partitions().size(), stats.segments,
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                              started)
            .count(),
        config.num_recovery_threads_per_data_dir, stats.segments_validated, stats.bytes_validated);
    return std::move(*logs);
}

// Where a listener binds: an empty host is every interface (as in Kafka); a name (localhost, the
// machine's host name) is resolved to its first address, as Kafka's listeners allow.
asio::ip::tcp::endpoint listen_endpoint(const config::Listener& listener) {
    const auto host = listener.host.empty() ? std::string("0.0.0.0") : listener.host;
    std::error_code ec;
    auto address = asio::ip::make_address(host, ec);
    if (!ec)
        return {address, listener.port};
    asio::io_context io;
    asio::ip::tcp::resolver resolver(io);
    auto results =
        resolver.resolve(host, std::to_string(listener.port), asio::ip::resolver_base::passive, ec);
    if (ec || results.empty())
        throw std::runtime_error("cannot listen on " + listener.to_string() + ": cannot resolve " +
                                 host + (ec ? ": " + ec.message() : std::string()));
    return results.begin()->endpoint();
}

}  // namespace

Server::Server(config::BrokerConfig config)
    : config_(std::move(config)),
      tracker_(static_cast<size_t>(config_.max_connections)),
      budget_(config_.queued_max_request_bytes),
      io_(config_.num_network_threads) {
    // The operations endpoint first: /health/live answers and /health/ready says "not yet"
    // while the logs are recovered, which may take a while after a crash.
    start_metrics_endpoint();
    metrics::observe_storage_syncs();
    halt_on_sync_failure();
    const auto opening = std::chrono::steady_clock::now();
    auto logs = open_logs(config_);
    recovery_seconds_ =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - opening).count();
    if (!logs->recovered_cleanly() && !logs->partitions().empty())
        spdlog::warn("no clean-shutdown marker in {}: logs were recovered and checked",
                     config_.log_dir);
    auto cluster_id = load_or_create_cluster_id(config_.log_dir, config_.node_id);
    broker_ = std::make_unique<Broker>(config_, std::move(logs), std::move(cluster_id));
    scrape_broker_.store(broker_.get());
    if (auto* control = broker_->control())
        control->set_connection_closer([this](const std::optional<std::string>& listener) {
            return tracker_.abort_all(listener);
        });
    control_api_ = std::make_unique<control::ControlApi>(
        broker_->control(), config_.control_api_token, control_actions());
    control_api_ready_.store(control_api_.get());

    // The keystore is read before any port is bound: a broker that cannot serve its TLS
    // listeners does not start (the configuration was checked to name one).
    for (const auto& listener : config_.listeners) {
        const auto protocol = broker_->security_protocol(listener.name);
        if (tls_ || (protocol != config::SecurityProtocol::ssl &&
                     protocol != config::SecurityProtocol::sasl_ssl))
            continue;
        auto tls = security::TlsContext::create(security::tls_settings_from(config_));
        if (!tls)
            throw std::runtime_error("cannot set up TLS for listener " + listener.name + ": " +
                                     tls.error());
        tls_ = std::move(*tls);
    }
    // An https:// schema registry or console listener takes the same keystore (and its SIGHUP
    // reloads).
    for (const auto* setting : {"schema.registry.listeners", "console.listeners"}) {
        const auto& text = std::string_view(setting) == "console.listeners"
                               ? config_.console_listeners
                               : config_.schema_registry_listeners;
        std::vector<config::Listener> web_listeners;
        if (auto parsed = config::parse_web_listeners(text))
            web_listeners = std::move(*parsed);
        for (const auto& listener : web_listeners) {
            if (tls_ || listener.name != "HTTPS")
                continue;
            auto tls = security::TlsContext::create(security::tls_settings_from(config_));
            if (!tls)
                throw std::runtime_error(std::string("cannot set up TLS for ") + setting + " " +
                                         listener.to_string() + ": " + tls.error());
            tls_ = std::move(*tls);
        }
    }
    for (const auto& listener : config_.listeners) {
        auto endpoint = listen_endpoint(listener);
        auto acceptor = std::make_unique<asio::ip::tcp::acceptor>(io_.acceptors());
        std::error_code ec;
        acceptor->open(endpoint.protocol(), ec);
        if (!ec)
            acceptor->set_option(asio::ip::tcp::acceptor::reuse_address(true), ec);
        if (!ec)
            acceptor->bind(endpoint, ec);
        if (!ec)
            acceptor->listen(asio::socket_base::max_listen_connections, ec);
        if (ec)
            throw std::runtime_error("cannot listen on " + listener.to_string() + ": " +
                                     ec.message());
        auto bound = acceptor->local_endpoint();
        broker_->set_bound_port(listener.name, bound.port());
        const auto& advertised = broker_->advertised(listener.name);
        spdlog::info("skiff listening on {}:{} ({}), advertised as {}:{}",
                     bound.address().to_string(), bound.port(), listener.name, advertised.host,
                     advertised.port);
        acceptors_.push_back(std::move(acceptor));
    }
    start_schema_registry();
    start_console();
    spdlog::info("data in {} (cluster id {}, node id {}, {} topic(s))",
                 std::filesystem::absolute(config_.log_dir).lexically_normal().string(),
                 broker_->cluster_id(), config_.node_id, broker_->topics().list().size());
}

Server::~Server() {
    stop_maintenance();
    http_.reset();  // before the state its scrapes read
}

void Server::start_metrics_endpoint() {
    auto listener = config::parse_http_listener(config_.metrics_listener);
    if (!listener || !*listener)
        return;  // turned off (the value was checked when the configuration was loaded)
    metrics::EndpointRoutes routes;
    routes.metrics = [this] {
        metrics::ScrapeSources sources;
        sources.broker = scrape_broker_.load();
        sources.connections = &tracker_;
        sources.budget = &budget_;
        sources.recovery_seconds = recovery_seconds_.load();
        sources.retention_deleted_segments = &retention_deleted_segments_;
        return metrics::collect(sources);
    };
    routes.ready = [this] { return ready_.load(); };
    // The control API exists once the broker does (after recovery); before, its paths say so.
    routes.control = [this](const http::HttpRequest& request) -> std::optional<http::HttpResponse> {
        if (auto* api = control_api_ready_.load())
            return api->answer(request);
        if (request.path != "/control" && request.path.rfind("/control/", 0) != 0)
            return std::nullopt;
        http::HttpResponse r;
        r.status = 503;
        r.content_type = "application/json";
        r.body = "{\"error\":\"the broker is starting (recovering its logs)\"}\n";
        return r;
    };
    try {
        http_ = metrics::start_endpoint(**listener, std::move(routes));
    } catch (const std::exception& e) {
        // The default address is a convenience: a second broker on the same machine (tests, a
        // laptop) runs without it. An address the operator chose must work.
        if (config_.metrics_listener != config::BrokerConfig{}.metrics_listener)
            throw;
        spdlog::warn(
            "{}; running without the metrics endpoint (set metrics.listener to another "
            "address, or to nothing to turn it off)",
            e.what());
        return;
    }
    spdlog::info("metrics on http://{}:{}/metrics", (*listener)->host, http_->port());
    if (config_.control_api_enable)
        spdlog::warn(
            "control API on http://{}:{}/control: for tests only, anyone who reaches this "
            "address can inject faults into and wipe this broker (control.api.enable){}",
            (*listener)->host, http_->port(),
            config_.control_api_token.empty() ? "; no control.api.token is set" : "");
}

control::ControlActions Server::control_actions() {
    control::ControlActions actions;
    actions.emulated_version = [this] { return broker_->emulation().release(); };
    actions.emulate = [this](const std::string& release) {
        return broker_->emulation().set(release);
    };
    actions.releases = [] { return control::known_releases(); };
    actions.listeners = [this] {
        std::vector<std::string> names;
        for (const auto& l : config_.listeners)
            names.push_back(l.name);
        return names;
    };
    using control::ActionResult;
    using nlohmann::json;
    // Reset and restore replace state that requests read: every Kafka connection is closed first
    // and new ones are refused until it is done. A request already in its handler finishes (a
    // long-poll Fetch within its max wait); one waiting in a rebalance is abandoned with its
    // group (its connection is gone anyway). Clients reconnect and see the new state.
    auto quiesced = [this](auto&& work) {
        auto* control = broker_->control();
        control->begin_quiesce();
        broker_->waiters().release_all();
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
        while (tracker_.count() > 0 && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        try {
            auto result = work();
            control->end_quiesce();
            return result;
        } catch (...) {
            control->end_quiesce();
            throw;
        }
    };
    actions.reset = [this, quiesced](const json& options) {
        control::ResetOptions o;
        o.acls = options.value("acls", false);
        o.users = options.value("users", false);
        const auto started = std::chrono::steady_clock::now();
        auto report = quiesced([&] { return control::reset_broker(*broker_, o); });
        const auto total = std::chrono::duration_cast<std::chrono::microseconds>(
            std::chrono::steady_clock::now() - started);
        json body{{"topics", report.topics},
                  {"groups", report.groups},
                  {"transactional_ids", report.transactional_ids},
                  {"acls", report.acls},
                  {"users", report.users},
                  {"client_quotas", report.quota_entities},
                  {"reset_ms", report.took.count() / 1000.0},
                  {"total_ms", total.count() / 1000.0}};
        spdlog::info("control: reset: {}", body.dump());
        if (!report.error.empty()) {
            body["error"] = report.error;
            return ActionResult{500, body};
        }
        return ActionResult{200, body};
    };
    actions.take_snapshot = [this](const std::string& name) {
        if (auto why = control::invalid_snapshot_name(name))
            return ActionResult{400, json{{"error", *why}}};
        const auto started = std::chrono::steady_clock::now();
        auto result = control::take_snapshot(*broker_, name);
        const auto ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
                .count();
        if (!result.error.empty())
            return ActionResult{409, json{{"error", result.error}}};
        spdlog::info("control: snapshot '{}' taken: {} files, {} bytes, {:.1f} ms", name,
                     result.info.files, result.info.bytes, ms);
        return ActionResult{201, json{{"name", name},
                                      {"files", result.info.files},
                                      {"bytes", result.info.bytes},
                                      {"took_ms", ms}}};
    };
    actions.restore_snapshot = [this, quiesced](const std::string& name) {
        if (auto why = control::invalid_snapshot_name(name))
            return ActionResult{400, json{{"error", *why}}};
        const auto started = std::chrono::steady_clock::now();
        auto error = quiesced([&] { return control::restore_snapshot(*broker_, name); });
        const auto ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
                .count();
        if (!error.empty())
            return ActionResult{error.find("no snapshot") != std::string::npos ? 404 : 409,
                                json{{"error", error}}};
        spdlog::info("control: snapshot '{}' restored in {:.1f} ms", name, ms);
        return ActionResult{200, json{{"name", name}, {"took_ms", ms}}};
    };
    actions.delete_snapshot = [this](const std::string& name) {
        if (auto why = control::invalid_snapshot_name(name))
            return ActionResult{400, json{{"error", *why}}};
        auto error = control::delete_snapshot(*broker_, name);
        if (!error.empty())
            return ActionResult{404, json{{"error", error}}};
        spdlog::info("control: snapshot '{}' deleted", name);
        return ActionResult{200, json{{"deleted", name}}};
    };
    actions.list_snapshots = [this] {
        json list = json::array();
        for (const auto& s : control::list_snapshots(*broker_))
            list.push_back({{"name", s.name},
                            {"files", s.files},
                            {"bytes", s.bytes},
                            {"created_ms", std::chrono::duration_cast<std::chrono::milliseconds>(
                                               s.created.time_since_epoch())
                                               .count()}});
        return ActionResult{200, json{{"snapshots", list}}};
    };
    return actions;
}

void Server::start_schema_registry() {
    auto* registry = broker_->schema_registry();
    if (!registry)
        return;  // schema.registry.listeners is empty
    schema_registry_service::EndpointSettings settings;
    settings.basic_auth = config_.schema_registry_authentication == "BASIC";
    settings.max_request_bytes = static_cast<size_t>(config_.schema_registry_max_request_bytes);
    registry_endpoint_ = std::make_unique<schema_registry_service::RegistryEndpoint>(
        *registry, broker_->credentials(), settings);
    const bool is_default =
        config_.schema_registry_listeners == config::BrokerConfig{}.schema_registry_listeners;
    const auto listeners = config::parse_web_listeners(config_.schema_registry_listeners);
    for (const auto& listener : *listeners) {
        try {
            registry_http_.push_back(registry_endpoint_->serve(listener, tls_));
        } catch (const std::exception& e) {
            // As with the metrics endpoint: the default address is a convenience (a second
            // broker on the machine runs without it); an address the operator chose must work.
            if (!is_default)
                throw;
            spdlog::warn(
                "{}; running without the schema registry's HTTP API (set "
                "schema.registry.listeners to another address, or to nothing to turn it off)",
                e.what());
            continue;
        }
        spdlog::info("schema registry on {}://{}:{}", listener.name == "HTTPS" ? "https" : "http",
                     listener.host, registry_http_.back()->port());
    }
}

void Server::start_console() {
    if (config_.console_listeners.empty())
        return;
    console::ConsoleSettings settings;
    settings.read_only = config_.console_read_only;
    // With a SASL listener the console asks for a SCRAM user's name and password, and every
    // action runs as that principal; without one it is anonymous, as a PLAINTEXT client is.
    bool basic_auth = false;
    for (const auto& listener : config_.listeners) {
        const auto protocol = broker_->security_protocol(listener.name);
        basic_auth = basic_auth || protocol == config::SecurityProtocol::sasl_plaintext ||
                     protocol == config::SecurityProtocol::sasl_ssl;
    }
    console_endpoint_ =
        std::make_unique<console::ConsoleEndpoint>(*broker_, router_, settings, basic_auth);
    const bool is_default = config_.console_listeners == config::BrokerConfig{}.console_listeners;
    const auto listeners = config::parse_web_listeners(config_.console_listeners);
    for (const auto& listener : *listeners) {
        try {
            console_http_.push_back(console_endpoint_->serve(listener, tls_));
        } catch (const std::exception& e) {
            // As with the registry: the default address is a convenience, a chosen one must work.
            if (!is_default)
                throw;
            spdlog::warn(
                "{}; running without the web console (set console.listeners to another "
                "address, or to nothing to turn it off)",
                e.what());
            continue;
        }
        spdlog::info("console on {}://{}:{}", listener.name == "HTTPS" ? "https" : "http",
                     listener.host, console_http_.back()->port());
    }
}

int Server::run() {
    // sendfile(2) to a socket the client already closed raises SIGPIPE (Asio's own writes use
    // MSG_NOSIGNAL, sendfile has no such flag): a departed client must not kill the broker.
    std::signal(SIGPIPE, SIG_IGN);
    broker_->groups().start(io_.main().get_executor(), [this] {  // session and rebalance timeouts
        spdlog::critical("group sessions no longer expire: stopping the broker");
        failed_ = true;
        io_.stop();
    });
    // Without accepting the broker is useless: a failed accept loop stops it, exit code 1.
    for (size_t i = 0; i < acceptors_.size(); ++i)
        spawn(io_.acceptors(), accept_loop(*acceptors_[i], config_.listeners[i].name),
              "the accept loop", {.on_failure = [this] {
                  spdlog::critical("no longer accepting connections: stopping the broker");
                  failed_ = true;
                  io_.stop();
              }});

    asio::signal_set signals(io_.main(), SIGINT, SIGTERM);
    std::function<void(const std::error_code&, int)> on_signal = [&](const std::error_code& ec,
                                                                     int signo) {
        if (ec)
            return;
        if (shutting_down_) {
            spdlog::warn("second signal ({}): exiting now without a clean shutdown", signo);
            std::_Exit(1);
        }
        shutting_down_ = true;
        spdlog::info("signal {} received: shutting down", signo);
        spawn(io_.main(), shutdown_gracefully(), "the graceful shutdown",
              {.on_failure = [this] { io_.stop(); }});  // stop at once instead
        signals.async_wait(on_signal);
    };
    signals.async_wait(on_signal);
    // SIGHUP re-reads the TLS keystore and truststore (certificate rotation): new connections
    // get the new context, open ones keep theirs; a broken file keeps the old one.
    asio::signal_set hangup(io_.main(), SIGHUP);
    std::function<void(const std::error_code&, int)> on_hangup = [&](const std::error_code& ec,
                                                                     int) {
        if (ec)
            return;
        if (!tls_) {
            spdlog::info("SIGHUP received: no TLS listener, nothing to reload");
        } else if (auto reloaded = tls_->reload(); reloaded) {
            spdlog::info("SIGHUP received: TLS keystore and truststore reloaded");
        } else {
            spdlog::error(
                "SIGHUP received: reloading TLS failed, keeping the previous keystore: {}",
                reloaded.error());
        }
        hangup.async_wait(on_hangup);
    };
    hangup.async_wait(on_hangup);

    maintenance_ = std::thread([this] { maintenance_loop(); });
    auto cleaner_settings = cleaner_settings_from(config_);
    cleaner_settings.on_failure = [](const storage::TopicPartition& tp,
                                     const storage::StorageError& e) {
        LogThrottle::global().log(spdlog::level::err, "log-cleaner:failed",
                                  "cleaning {}-{} failed (retried later): {}", tp.topic,
                                  tp.partition, e.message);
    };
    cleaner_ = std::make_unique<storage::CleanerManager>(broker_->logs(), cleaner_settings);
    cleaner_->start();
    ready_.store(true);  // the logs are open and the acceptors listen (since the constructor)

    io_.run();

    stop_maintenance();
    http_.reset();  // no scrape may read the logs while they close
    auto closed = broker_->logs().close();
    if (!closed) {
        spdlog::error("closing logs failed: {}", closed.error().message);
        return 1;
    }
    spdlog::info("shutdown complete");
    return failed_ ? 1 : 0;
}

asio::awaitable<void> Server::accept_loop(asio::ip::tcp::acceptor& acceptor, std::string listener) {
    using clock = std::chrono::steady_clock;
    asio::steady_timer backoff_timer(acceptor.get_executor());
    auto backoff = kAcceptBackoffMin;
    size_t failures = 0;  // consecutive out-of-resources failures
    size_t failures_unlogged = 0;
    clock::time_point last_log{};
    for (;;) {
        // The connection lives on one I/O thread's context: its coroutines never run
        // concurrently and never migrate between threads.
        auto [ec, socket] = co_await acceptor.async_accept(io_.next_for_connection(), use_tuple);
        if (ec) {
            if (ec == asio::error::operation_aborted || !acceptor.is_open())
                co_return;
            if (!out_of_resources(ec)) {
                spdlog::warn("accept failed: {}", ec.message());
                continue;  // the peer gave up (ECONNABORTED, ...): nothing to wait for
            }
            ++failures;
            ++failures_unlogged;
            if (clock::now() - last_log >= kAcceptLogInterval) {
                spdlog::warn(
                    "accept failed: {} ({} time(s) since the last report, {} connection(s) "
                    "open); retrying with back-off up to {} ms",
                    ec.message(), failures_unlogged, tracker_.count(), kAcceptBackoffMax.count());
                last_log = clock::now();
                failures_unlogged = 0;
            }
            backoff_timer.expires_after(backoff);
            co_await backoff_timer.async_wait(use_tuple);
            backoff = std::min(backoff * 2, kAcceptBackoffMax);
            continue;
        }
        if (failures > 0) {
            spdlog::info("accepting connections again after {} failed attempt(s)", failures);
            failures = failures_unlogged = 0;
            backoff = kAcceptBackoffMin;
            last_log = {};
        }
        // The connection is built and started on its own thread, so that everything it
        // allocates (the Connection, its coroutine frames, buffers) comes from that thread's
        // malloc arena, not from the acceptor thread's (see io_threads.h): built here, it was
        // interleaved with Asio's pooled per-socket state, and after 10,000 connections closed
        // those few live bytes per page kept 43 MB of freed memory resident.
        auto ex = socket.get_executor();
        asio::post(ex, [this, socket = std::move(socket), listener]() mutable {
            if (!accepting_.load())
                return;  // shutting down: the socket closes as it goes out of scope
            if (auto* control = broker_->control(); control && control->refuses(listener)) {
                control->count_connection_refused();
                return;  // an outage from the control API: closed as soon as accepted
            }
            const auto protocol = broker_->security_protocol(listener);
            security::SslContextPtr tls;
            if (tls_ && (protocol == config::SecurityProtocol::ssl ||
                         protocol == config::SecurityProtocol::sasl_ssl))
                tls = tls_->current();
            auto connection =
                std::make_shared<Connection>(std::move(socket), std::move(listener), *broker_,
                                             router_, tracker_, budget_, std::move(tls));
            if (!tracker_.try_add(connection)) {
                broker_->connection_metrics().refused();
                spdlog::warn("refusing connection from {}: max.connections ({}) reached",
                             connection->peer(), config_.max_connections);
                return;  // the connection's socket closes as it goes out of scope
            }
            broker_->connection_metrics().accepted();
            connection->start();
        });
    }
}

asio::awaitable<void> Server::shutdown_gracefully() {
    ready_.store(false);
    accepting_.store(false);
    // The acceptors belong to their own thread: close them there.
    asio::post(io_.acceptors(), [this] {
        for (auto& acceptor : acceptors_) {
            std::error_code ec;
            acceptor->close(ec);
        }
    });
    tracker_.shutdown_all();
    asio::steady_timer timer(io_.main());
    const auto deadline = std::chrono::steady_clock::now() + kShutdownGrace;
    while (tracker_.count() > 0 && std::chrono::steady_clock::now() < deadline) {
        timer.expires_after(std::chrono::milliseconds(20));
        co_await timer.async_wait(use_tuple);
    }
    if (tracker_.count() > 0)
        spdlog::warn("{} connection(s) still open after the grace period", tracker_.count());
    io_.stop();
}

void Server::maintenance_loop() {
    using clock = std::chrono::steady_clock;
    using std::chrono::milliseconds;
    const auto retention_every = milliseconds(config_.log_retention_check_interval_ms);
    const auto points_every = milliseconds(config_.log_flush_offset_checkpoint_interval_ms);
    const auto starts_every = milliseconds(config_.log_flush_start_offset_checkpoint_interval_ms);
    const auto txn_abort_every =
        milliseconds(config_.transaction_abort_timed_out_transaction_cleanup_interval_ms);
    const auto txn_expire_every =
        milliseconds(config_.transaction_remove_expired_transaction_cleanup_interval_ms);
    // Also how long a rolled segment may wait for its background flush: whatever a crash finds
    // not yet flushed is validated at the next start.
    constexpr auto kTick = std::chrono::milliseconds(100);
    // A recovery point moved by the background flush is written at most this often.
    constexpr auto kPromptCheckpoint = std::chrono::seconds(1);
    auto next_retention = clock::now() + retention_every;
    // Memory that malloc keeps after a burst (many connections closed, large requests done)
    // goes back to the OS.
    HeapTrimmer heap_trimmer(
        [this](const std::function<void()>& task) { return io_.post_to_each(task); });
    auto next_points = clock::now() + points_every;
    auto next_prompt_point = clock::now();
    bool points_moved = false;
    auto next_starts = clock::now() + starts_every;
    auto next_txn_abort = clock::now() + txn_abort_every;
    auto next_txn_expire = clock::now() + txn_expire_every;
    auto& logs = broker_->logs();
    std::unique_lock lock(maintenance_mutex_);
    while (!maintenance_stop_) {
        auto wake = std::min({next_retention, next_points, next_starts, next_txn_abort,
                              next_txn_expire, clock::now() + kTick});
        maintenance_cv_.wait_until(lock, wake, [&] { return maintenance_stop_; });
        if (maintenance_stop_)
            break;
        lock.unlock();
        LogThrottle::global().flush();  // repeat counts of errors that have stopped
        // Rolled segments first: until they are on disk a crash re-validates them.
        auto flushed = logs.flush_rolled();
        for (const auto& error : flushed.errors)
            LogThrottle::global().log(spdlog::level::err, "flush-rolled:failed",
                                      "flushing rolled segments failed (retried): {}", error);
        logs.flush_due();
        logs.delete_removed();  // deleted topics' files, off the request threads
        if (clock::now() >= next_retention) {
            size_t deleted = logs.run_retention();
            retention_deleted_segments_ += deleted;
            if (deleted > 0)
                spdlog::info("retention deleted {} segment(s)", deleted);
            next_retention = clock::now() + retention_every;
        }
        heap_trimmer.maybe_trim();
        // A moved recovery point is written soon (at most once a second), not only every
        // log.flush.offset.checkpoint.interval.ms: it is what bounds the work of the next start
        // after a crash, and the file is small.
        points_moved = points_moved || flushed.advanced > 0;
        const auto now = clock::now();
        if ((points_moved && now >= next_prompt_point) || now >= next_points) {
            if (auto r = logs.checkpoint_recovery_points(); !r)
                LogThrottle::global().log(spdlog::level::err, "checkpoint:recovery-points",
                                          "writing {} failed: {}",
                                          storage::kRecoveryPointCheckpoint, r.error().message);
            points_moved = false;
            next_points = now + points_every;
            next_prompt_point = now + kPromptCheckpoint;
        }
        if (clock::now() >= next_starts) {
            if (auto r = logs.checkpoint_log_start_offsets(); !r)
                LogThrottle::global().log(spdlog::level::err, "checkpoint:log-start-offsets",
                                          "writing {} failed: {}",
                                          storage::kLogStartOffsetCheckpoint, r.error().message);
            next_starts = clock::now() + starts_every;
        }
        // Transactions open past their timeout are aborted (their producers fenced), and ids
        // idle past transactional.id.expiration.ms forgotten, as Kafka's coordinator does.
        if (clock::now() >= next_txn_abort) {
            broker_->transactions().abort_timed_out();
            next_txn_abort = clock::now() + txn_abort_every;
        }
        // Expired acquisition locks of share groups: their records go back (or are archived at
        // the delivery count limit). Cheap when none is due (one comparison per share-partition).
        if (auto* shares = broker_->share_partitions()) {
            const int64_t now_ms = storage::wall_clock_ms();
            shares->tick(now_ms);
            // Members that left without closing their share session: what they hold goes back.
            for (const auto& [group_id, member_id] :
                 broker_->share_sessions().expire_closing(now_ms))
                shares->release_member(group_id, member_id, now_ms);
        }
        if (clock::now() >= next_txn_expire) {
            if (size_t expired = broker_->transactions().expire_transactional_ids(); expired > 0)
                spdlog::info("expired {} transactional id(s)", expired);
            next_txn_expire = clock::now() + txn_expire_every;
        }
        lock.lock();
    }
}

void Server::stop_maintenance() {
    if (cleaner_)
        cleaner_->stop();  // a pass in progress ends at its next batch, its files removed
    {
        std::lock_guard lock(maintenance_mutex_);
        maintenance_stop_ = true;
    }
    maintenance_cv_.notify_all();
    if (maintenance_.joinable())
        maintenance_.join();
}

}  // namespace skiff::broker
