// Starts the real skiff binary for a test: an ephemeral port on 127.0.0.1, a fresh temporary
// data directory, its log captured to a file. The port is read back from the startup log line.
//
// The test owns the broker: the destructor kills and reaps it (also when a fatal assertion
// returns from the test early, or a start-up failure throws from the constructor), and the
// kernel kills it if the test process dies without unwinding (SIGKILL, a ctest timeout).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace skiff::test {

class BrokerProcess {
  public:
    // `overrides` are extra `key=value` settings passed with --override. Starts the broker.
    explicit BrokerProcess(std::vector<std::string> overrides = {});
    ~BrokerProcess();
    BrokerProcess(const BrokerProcess&) = delete;
    BrokerProcess& operator=(const BrokerProcess&) = delete;

    // Restarts on the same data dir (the port may change); throws when the broker is running.
    void start();
    // SIGTERM, waits (SIGKILL after a grace); returns the exit status (128 + signal if killed).
    int stop();
    void kill_hard();  // SIGKILL, waits: a crash
    bool running() const { return pid_ > 0; }

    std::string bootstrap() const { return "127.0.0.1:" + std::to_string(port_); }
    int port() const { return port_; }
    const std::filesystem::path& data_dir() const { return data_dir_; }
    std::string log() const;  // everything the broker printed so far

  private:
    std::filesystem::path root_;
    std::filesystem::path data_dir_;
    std::filesystem::path log_path_;
    std::vector<std::string> overrides_;
    pid_t pid_ = -1;
    int port_ = 0;
};

// Runs a command, returns its exit status and (optionally) its stdout.
int run_command(const std::string& command, std::string* output = nullptr);

}  // namespace skiff::test
