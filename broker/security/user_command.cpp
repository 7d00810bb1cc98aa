#include "broker/security/user_command.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "broker/security/credential_store.h"
#include "broker/security/scram.h"
#include "config/broker_config.h"

namespace skiff::broker::security {
namespace {

constexpr const char* kUserUsage =
    R"(usage:
  skiff user add NAME (--password PW | --password-file FILE) [--mechanism MECHANISM]...
                 [--iterations N] [--config FILE] [--override KEY=VALUE]...
      Add the user, or replace its credentials, for MECHANISM (SCRAM-SHA-256 or SCRAM-SHA-512;
      both when none is given). N: 4096 (default) to 16384. --password-file - reads stdin; the
      file's first line is the password.
  skiff user remove NAME [--config FILE] [--override KEY=VALUE]...
      Remove every credential of the user; exit 1 when there is no such user.
  skiff user list [--config FILE] [--override KEY=VALUE]...
      Each user and its mechanisms, never a secret.
The data directory is the broker's log.dirs, from the same settings as the broker (--config,
SKIFF_* variables, --override); credentials go to <log.dirs>/scram-credentials. Run it while the
broker is stopped: it does not coordinate with a running broker.
)";

struct UserUsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::string read_password_file(const std::string& path) {
    std::string text;
    if (path == "-") {
        text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    } else {
        std::ifstream in(path, std::ios::binary);
        if (!in)
            throw std::runtime_error("cannot read password file " + path);
        text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    const size_t newline = text.find('\n');
    if (newline != std::string::npos)
        text.resize(newline);
    if (!text.empty() && text.back() == '\r')
        text.pop_back();
    return text;
}

std::string user_mechanism_list(const std::vector<ScramMechanism>& mechanisms) {
    std::string out;
    for (auto m : mechanisms) {
        if (!out.empty())
            out += ", ";
        out += scram_mechanism_name(m);
    }
    return out;
}

}  // namespace

int user_command_main(int argc, char** argv, char** envp) try {
    if (argc < 1) {
        std::fputs(kUserUsage, stderr);
        return 2;
    }
    const std::string_view action = argv[0];
    if (action == "--help" || action == "-h" || action == "help") {
        std::fputs(kUserUsage, stdout);
        return 0;
    }
    if (action != "add" && action != "remove" && action != "list")
        throw UserUsageError("unknown action '" + std::string(action) + "'");

    config::ConfigSources sources;
    std::vector<std::string> positional;
    std::optional<std::string> password;
    std::vector<ScramMechanism> mechanisms;
    int32_t iterations = kScramDefaultIterations;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        auto value = [&](std::string_view flag) -> std::string {
            if (a.size() > flag.size() && a.substr(0, flag.size()) == flag && a[flag.size()] == '=')
                return std::string(a.substr(flag.size() + 1));
            if (a != flag)
                throw UserUsageError("unknown option '" + std::string(a) + "'");
            if (i + 1 >= argc)
                throw UserUsageError(std::string(flag) + " needs a value");
            return argv[++i];
        };
        if (a == "--help" || a == "-h") {
            std::fputs(kUserUsage, stdout);
            return 0;
        } else if (a.starts_with("--config")) {
            sources.file = value("--config");
        } else if (a.starts_with("--override")) {
            sources.overrides.push_back(value("--override"));
        } else if (action == "add" && a.starts_with("--password-file")) {
            if (password)
                throw UserUsageError("give the password once");
            password = read_password_file(value("--password-file"));
        } else if (action == "add" && a.starts_with("--password")) {
            if (password)
                throw UserUsageError("give the password once");
            password = value("--password");
        } else if (action == "add" && a.starts_with("--mechanism")) {
            const std::string name = value("--mechanism");
            auto m = parse_scram_mechanism(name);
            if (!m)
                throw UserUsageError("unknown mechanism '" + name +
                                     "' (SCRAM-SHA-256 or SCRAM-SHA-512)");
            if (std::find(mechanisms.begin(), mechanisms.end(), *m) == mechanisms.end())
                mechanisms.push_back(*m);
        } else if (action == "add" && a.starts_with("--iterations")) {
            const std::string text = value("--iterations");
            size_t used = 0;
            long n = 0;
            try {
                n = std::stol(text, &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (used != text.size() || n < kScramMinIterations || n > kScramMaxIterations)
                throw UserUsageError("--iterations must be a number from " +
                                     std::to_string(kScramMinIterations) + " to " +
                                     std::to_string(kScramMaxIterations));
            iterations = static_cast<int32_t>(n);
        } else if (a.starts_with("-") && a != "-") {
            throw UserUsageError("unknown option '" + std::string(a) + "'");
        } else {
            positional.emplace_back(a);
        }
    }
    const size_t want_names = action == "list" ? 0 : 1;
    if (positional.size() != want_names)
        throw UserUsageError(want_names == 0 ? "list takes no user name"
                                             : "give exactly one user name");
    if (want_names == 1 && positional[0].empty())
        throw UserUsageError("the user name is empty");
    if (action == "add") {
        if (!password)
            throw UserUsageError("add needs --password or --password-file");
        if (password->empty())
            throw UserUsageError("the password is empty");
        if (mechanisms.empty())
            mechanisms = {ScramMechanism::sha256, ScramMechanism::sha512};
    }

    sources.environment = config::environment_from(envp);
    auto loaded = config::load_config(sources);
    if (!loaded) {
        std::fprintf(stderr, "skiff user: configuration error: %s\n",
                     loaded.error().message.c_str());
        return 2;
    }
    for (const auto& w : loaded->warnings)
        std::fprintf(stderr, "skiff user: warning: %s\n", w.c_str());
    auto store = CredentialStore::open(loaded->config.log_dir);
    if (!store) {
        std::fprintf(stderr, "skiff user: %s\n", store.error().message.c_str());
        return 1;
    }

    if (action == "list") {
        for (const auto& info : (*store)->list()) {
            std::string line = info.user + "\t";
            for (size_t k = 0; k < info.mechanisms.size(); ++k) {
                if (k > 0)
                    line += ", ";
                line += std::string(scram_mechanism_name(info.mechanisms[k].first)) +
                        " (iterations " + std::to_string(info.mechanisms[k].second) + ")";
            }
            std::printf("%s\n", line.c_str());
        }
        return 0;
    }
    const std::string& name = positional[0];
    if (action == "remove") {
        auto removed = (*store)->remove_user(name);
        if (!removed) {
            std::fprintf(stderr, "skiff user: %s\n", removed.error().message.c_str());
            return 1;
        }
        if (!*removed) {
            std::fprintf(stderr, "skiff user: no user '%s' in %s\n", name.c_str(),
                         (*store)->file().c_str());
            return 1;
        }
        std::printf("removed user %s\n", name.c_str());
        return 0;
    }
    const bool existed = (*store)->lookup(name, ScramMechanism::sha256) ||
                         (*store)->lookup(name, ScramMechanism::sha512);
    std::vector<std::pair<ScramMechanism, ScramCredential>> credentials;
    credentials.reserve(mechanisms.size());
    for (auto m : mechanisms)
        credentials.emplace_back(m, new_scram_credential(m, *password, iterations));
    auto set = (*store)->set(name, credentials);
    if (!set) {
        std::fprintf(stderr, "skiff user: %s\n", set.error().message.c_str());
        return 1;
    }
    std::printf("%s user %s: %s, %d iterations, in %s\n", existed ? "updated" : "added",
                name.c_str(), user_mechanism_list(mechanisms).c_str(), iterations,
                (*store)->file().c_str());
    return 0;
} catch (const UserUsageError& e) {
    std::fprintf(stderr, "skiff user: %s (see skiff user --help)\n", e.what());
    return 2;
} catch (const std::exception& e) {
    std::fprintf(stderr, "skiff user: %s\n", e.what());
    return 1;
}

}  // namespace skiff::broker::security
