#include "tests/integration/broker_process.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace skiff::test {
namespace fs = std::filesystem;

BrokerProcess::BrokerProcess(std::vector<std::string> overrides)
    : overrides_(std::move(overrides)) {
    std::string tmpl = (fs::temp_directory_path() / "skiff-it-XXXXXX").string();
    if (!mkdtemp(tmpl.data()))
        throw std::runtime_error("mkdtemp failed");
    root_ = tmpl;
    data_dir_ = root_ / "data";
    log_path_ = root_ / "skiff.log";
    start();
}

BrokerProcess::~BrokerProcess() {
    if (pid_ > 0)
        kill_hard();
    std::error_code ec;
    if (!std::getenv("TEST_KEEP_DIRS"))
        fs::remove_all(root_, ec);
}

void BrokerProcess::start() {
    std::vector<std::string> args = {SKIFF_BINARY, "--override",
                                     "listeners=PLAINTEXT://127.0.0.1:0", "--override",
                                     "log.dirs=" + data_dir_.string(),
                                     // Brokers started in parallel never race for port 9649.
                                     "--override", "metrics.listener="};
    for (const auto& o : overrides_) {
        args.push_back("--override");
        args.push_back(o);
    }
    const auto log_size_before = fs::exists(log_path_) ? fs::file_size(log_path_) : 0;
    pid_ = fork();
    if (pid_ < 0)
        throw std::runtime_error("fork failed");
    if (pid_ == 0) {
        FILE* f = std::fopen(log_path_.c_str(), "a");
        if (f) {
            dup2(fileno(f), 1);
            dup2(fileno(f), 2);
        }
        std::vector<char*> argv;
        for (auto& a : args)
            argv.push_back(a.data());
        argv.push_back(nullptr);
        execv(argv[0], argv.data());
        _exit(127);
    }
    // Wait for "skiff listening on 127.0.0.1:PORT" written by this run.
    static const std::regex listening(R"(skiff listening on [0-9.]+:([0-9]+))");
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
        std::string text = log().substr(log_size_before);
        std::smatch m;
        if (std::regex_search(text, m, listening)) {
            port_ = std::stoi(m[1]);
            return;
        }
        int status = 0;
        if (waitpid(pid_, &status, WNOHANG) == pid_) {
            pid_ = -1;
            throw std::runtime_error("skiff exited during start-up:\n" + text);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    throw std::runtime_error("skiff did not report its port within 30 s:\n" + log());
}

int BrokerProcess::stop() {
    if (pid_ <= 0)
        return -1;
    ::kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void BrokerProcess::kill_hard() {
    if (pid_ <= 0)
        return;
    ::kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
}

std::string BrokerProcess::log() const {
    std::ifstream in(log_path_);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

int run_command(const std::string& command, std::string* output) {
    FILE* p = popen(command.c_str(), "r");
    if (!p)
        return -1;
    std::array<char, 4096> buf{};
    size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0)
        if (output)
            output->append(buf.data(), n);
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace skiff::test
