#include "tests/integration/broker_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <fstream>
#include <future>
#include <mutex>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace skiff::test {
namespace fs = std::filesystem;

namespace {

constexpr auto kStopGrace = std::chrono::seconds(30);

// Between fork and exec only async-signal-safe calls: other threads (librdkafka's) may hold
// locks the child would wait on forever. The child asks to be killed when its parent thread
// ends, so that a test process killed without unwinding takes its brokers with it.
pid_t fork_exec(std::vector<std::string> args, int log_fd) {
    std::vector<char*> argv;
    for (auto& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid == 0) {
        // The parent may have died before prctl: then no signal would come.
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
            _exit(127);
        dup2(log_fd, 1);
        dup2(log_fd, 2);
        execv(argv[0], argv.data());
        _exit(127);
    }
    return pid;
}

// PR_SET_PDEATHSIG fires when the thread that forked ends, not the process: a broker restarted
// from a short-lived std::thread (a restart while producing) would be killed with that thread.
// So every fork happens on one thread that lives as long as the test process.
class Spawner {
  public:
    static pid_t spawn(std::vector<std::string> args, int log_fd) {
        static Spawner* const instance = new Spawner;  // never destroyed: its thread never ends
        std::packaged_task<pid_t()> task(
            [&args, log_fd] { return fork_exec(std::move(args), log_fd); });
        auto pid = task.get_future();
        {
            std::lock_guard lock(instance->mutex_);
            instance->tasks_.push_back(std::move(task));
        }
        instance->wake_.notify_one();
        return pid.get();
    }

  private:
    Spawner() {
        std::thread([this] {
            for (;;) {
                std::unique_lock lock(mutex_);
                wake_.wait(lock, [this] { return !tasks_.empty(); });
                auto task = std::move(tasks_.front());
                tasks_.pop_front();
                lock.unlock();
                task();
            }
        }).detach();
    }

    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<std::packaged_task<pid_t()>> tasks_;
};

// waitpid; `block` false returns 0 while the child runs. The exit status as a shell gives it.
pid_t wait_child(pid_t pid, int& status, bool block) {
    pid_t r;
    do {
        r = waitpid(pid, &status, block ? 0 : WNOHANG);
    } while (r < 0 && errno == EINTR);
    return r;
}

int exit_status(int status) {
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

BrokerProcess::BrokerProcess(std::vector<std::string> overrides)
    : overrides_(std::move(overrides)) {
    std::string tmpl = (fs::temp_directory_path() / "skiff-it-XXXXXX").string();
    if (!mkdtemp(tmpl.data()))
        throw std::runtime_error("mkdtemp failed");
    root_ = tmpl;
    data_dir_ = root_ / "data";
    log_path_ = root_ / "skiff.log";
    try {
        start();
    } catch (...) {  // no destructor for an object whose constructor threw
        std::error_code ec;
        if (!std::getenv("TEST_KEEP_DIRS"))
            fs::remove_all(root_, ec);
        throw;
    }
}

BrokerProcess::~BrokerProcess() {
    if (pid_ > 0)
        kill_hard();
    std::error_code ec;
    if (!std::getenv("TEST_KEEP_DIRS"))
        fs::remove_all(root_, ec);
}

void BrokerProcess::start() {
    if (pid_ > 0)
        throw std::logic_error("BrokerProcess::start: already running (the constructor starts it)");
    std::vector<std::string> args = {
        SKIFF_BINARY, "--override", "listeners=PLAINTEXT://127.0.0.1:0", "--override",
        "log.dirs=" + data_dir_.string(),
        // Brokers started in parallel never race for port 9649.
        "--override", "metrics.listener=", "--override", "schema.registry.listeners=", "--override",
        "console.listeners="};
    for (const auto& o : overrides_) {
        args.push_back("--override");
        args.push_back(o);
    }
    const auto log_size_before = fs::exists(log_path_) ? fs::file_size(log_path_) : 0;
    const int log_fd = ::open(log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log_fd < 0)
        throw std::runtime_error("cannot open " + log_path_.string());
    pid_ = Spawner::spawn(std::move(args), log_fd);
    ::close(log_fd);
    if (pid_ < 0)
        throw std::runtime_error("fork failed");
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
        if (wait_child(pid_, status, false) == pid_) {
            pid_ = -1;
            throw std::runtime_error("skiff exited during start-up:\n" + text);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    kill_hard();
    throw std::runtime_error("skiff did not report its port within 30 s:\n" + log());
}

int BrokerProcess::stop() {
    if (pid_ <= 0)
        return -1;
    ::kill(pid_, SIGTERM);
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() + kStopGrace;
    while (wait_child(pid_, status, false) == 0) {
        if (std::chrono::steady_clock::now() >= deadline) {
            ::kill(pid_, SIGKILL);
            wait_child(pid_, status, true);
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    pid_ = -1;
    return exit_status(status);
}

void BrokerProcess::kill_hard() {
    if (pid_ <= 0)
        return;
    ::kill(pid_, SIGKILL);
    int status = 0;
    wait_child(pid_, status, true);
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
