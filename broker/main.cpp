// skiff: a single-binary broker that speaks the Kafka wire protocol. One binary, five commands:
// the broker itself, dump-log (print or check segment files), health (ask a running broker
// whether it answers), user (manage SCRAM users offline) and control (the test-control API). kUsage
// below is the full usage text.
#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>

#include "broker/control/control_command.h"
#include "broker/health_check.h"
#include "broker/net/heap_trimmer.h"
#include "broker/net/server.h"
#include "broker/security/user_command.h"
#include "broker/topics/dynamic_broker_config.h"
#include "config/broker_config.h"
#include "config/config_reference.h"
#include "config/settings.h"
#include "storage/dump_log.h"

extern char** environ;

namespace {

constexpr const char* kUsage = R"(usage:
  skiff [--config FILE] [--override KEY=VALUE]... [--log-level LEVEL]
      Run the broker. Settings use Kafka's names (see config/server.properties). Precedence:
      built-in defaults < --config FILE < SKIFF_<KEY> environment variables (log.dirs ->
      SKIFF_LOG_DIRS) < --override. LEVEL: trace, debug, info (default), warn, error.
  skiff dump-log [--verify] PATH...
      Print what .log, .index, .timeindex and .txnindex files (or partition directories)
      hold, transaction markers included; --verify checks CRCs and index consistency
      (the .txnindex against the markers too) and exits non-zero on any problem.
  skiff health [--bootstrap-server HOST:PORT] [--timeout-ms N]
      Exit 0 when the broker answers ApiVersions, 1 otherwise.
  skiff user add NAME (--password PW | --password-file FILE) [--mechanism MECHANISM]...
                 [--iterations N] [--config FILE] [--override KEY=VALUE]...
  skiff user remove NAME [--config FILE] [--override KEY=VALUE]...
  skiff user list [--config FILE] [--override KEY=VALUE]...
      Manage SCRAM users offline in <log.dirs>/scram-credentials, with the broker's own
      settings to find log.dirs. MECHANISM: SCRAM-SHA-256 or SCRAM-SHA-512 (both when none is
      given); N: 4096 (default) to 16384. Exit 0 done, 1 failed (e.g. no such user to remove),
      2 usage. skiff user --help says more.
  skiff control [--url http://HOST:PORT] [--token TOKEN] COMMAND...
      The test-control API of a broker run with control.api.enable=true: faults, outages, a
      slow disk, version emulation, reset, snapshots, captured requests (docs/control-api.md).
      skiff control --help lists the commands.
  skiff --print-config-reference
      Print the configuration reference (docs/configuration.md): every setting, its other
      spellings, default, meaning and allowed values, as Markdown.
  skiff --help | --version

settings:
)";

std::string limit_text(rlim_t v) {
    return v == RLIM_INFINITY ? std::string("unlimited") : std::to_string(v);
}

// Every partition holds descriptors (its active segment at least) and so does every connection:
// the soft RLIMIT_NOFILE, often 1024, runs out long before the hard one. Raised to the hard
// limit, as the JVM does for Kafka (-XX:+MaxFDLimit); Server warns when it is low for the
// partitions found. An unlimited hard limit cannot be the soft one for descriptors (the kernel
// caps it at fs.nr_open): that soft limit is left as it is.
void raise_descriptor_limit() {
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) {
        spdlog::warn("cannot read the file descriptor limit: {}", std::strerror(errno));
        return;
    }
    const rlim_t was = limit.rlim_cur;
    if (limit.rlim_cur != limit.rlim_max && limit.rlim_max != RLIM_INFINITY) {
        rlimit raised = limit;
        raised.rlim_cur = limit.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &raised) == 0)
            limit = raised;
        else
            spdlog::warn("cannot raise the file descriptor limit from {} to {}: {}",
                         limit_text(was), limit_text(limit.rlim_max), std::strerror(errno));
    }
    spdlog::info("file descriptor limit: soft {} (was {}), hard {}", limit_text(limit.rlim_cur),
                 limit_text(was), limit_text(limit.rlim_max));
}

int run_broker(int argc, char** argv) {
    skiff::config::ConfigSources sources;
    std::string log_level = "info";
    for (int i = 1; i < argc; ++i) {
        std::string_view a = argv[i];
        auto value = [&](std::string_view flag) -> std::string {
            if (a.size() > flag.size() && a.substr(0, flag.size()) == flag && a[flag.size()] == '=')
                return std::string(a.substr(flag.size() + 1));
            if (i + 1 >= argc)
                throw std::invalid_argument(std::string(flag) + " needs a value");
            return argv[++i];
        };
        if (a == "--help" || a == "-h") {
            std::printf("%s%s", kUsage, skiff::config::config_keys_help().c_str());
            return 0;
        } else if (a == "--print-config-reference") {
            std::printf("%s", skiff::config::config_reference_markdown().c_str());
            return 0;
        } else if (a == "--version") {
            std::printf("skiff %s\n", SKIFF_VERSION);
            return 0;
        } else if (a.starts_with("--config")) {
            sources.file = value("--config");
        } else if (a.starts_with("--override")) {
            sources.overrides.push_back(value("--override"));
        } else if (a.starts_with("--log-level")) {
            log_level = value("--log-level");
        } else {
            std::fprintf(stderr, "skiff: unknown argument '%s' (see skiff --help)\n", argv[i]);
            return 2;
        }
    }
    auto level = spdlog::level::from_str(log_level);
    if (level == spdlog::level::off && log_level != "off") {
        std::fprintf(stderr, "skiff: unknown log level '%s'\n", log_level.c_str());
        return 2;
    }
    spdlog::set_level(level);
    spdlog::set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%^%l%$] %v");

    sources.environment = skiff::config::environment_from(environ);
    auto loaded = skiff::config::load_config(sources);
    if (!loaded) {
        spdlog::error("configuration error: {}", loaded.error().message);
        return 2;
    }
    for (const auto& w : loaded->warnings)
        spdlog::warn("{}", w);
    spdlog::info("skiff {} starting", SKIFF_VERSION);
    for (const auto& s : loaded->non_defaults) {
        const auto found = skiff::config::find_setting(s.key);
        const bool secret = found && found->setting->sensitive;
        spdlog::info("setting {}={} (from {})", s.key, secret ? "[hidden]" : s.value, s.source);
    }
    // Dynamic broker configs (AlterConfigs on the broker) win over the static ones, as in Kafka.
    auto dynamic =
        skiff::broker::DynamicBrokerConfigs::load(loaded->config.log_dir, loaded->config.node_id);
    if (!dynamic) {
        spdlog::error("configuration error: {}", dynamic.error());
        return 2;
    }
    for (const auto& applied : dynamic->apply_to(loaded->config))
        spdlog::info("dynamic broker config {}", applied);
    raise_descriptor_limit();

    skiff::broker::configure_malloc();  // broker/net/heap_trimmer.h

    try {
        skiff::broker::Server server(loaded->config);
        return server.run();
    } catch (const std::exception& e) {
        spdlog::error("cannot start: {}", e.what());
        return 1;
    }
}

}  // namespace

// Every exception is caught: one that escapes main would abort (std::terminate) without saying why.
int main(int argc, char** argv) try {
    if (argc >= 2) {
        std::string_view command = argv[1];
        if (command == "dump-log")
            return skiff::storage::dump_log_main(argc - 2, argv + 2);
        if (command == "health")
            return skiff::broker::health_check_main(argc - 2, argv + 2);
        if (command == "control")
            return skiff::broker::control::control_command_main(argc - 2, argv + 2);
        if (command == "user")
            return skiff::broker::security::user_command_main(argc - 2, argv + 2, environ);
    }
    try {
        return run_broker(argc, argv);
    } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "skiff: %s\n", e.what());
        return 2;
    }
} catch (const std::exception& e) {
    std::fprintf(stderr, "skiff: %s\n", e.what());
    return 1;
} catch (...) {
    std::fprintf(stderr, "skiff: unknown exception\n");
    return 1;
}
