// The machine's limits that bound any broker on it, measured in the benchmark's own run.
//
//   machine_limits pagecache FILE MIB   write MIB MiB to FILE in 1 MiB writes, no fsync
//   machine_limits loopback FILE SECONDS
//       sendfile(2) the (cached) FILE over a 127.0.0.1 TCP connection to a reader thread that
//       discards what it reads, again and again for SECONDS
//
// Each prints one line "result limit=... mb_per_s=..." (MB = 10^6 bytes); loopback also gives the
// sending thread's CPU seconds per GB sent, the least a broker's sendfile path can cost here
// (on loopback the sender's system call also runs the receiving side of TCP). The loopback figure
// is what a broker serving a fetch from the page cache with sendfile could reach at best with one
// connection; page-cache write bandwidth bounds what it can append.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void die(const char* what) {
    std::fprintf(stderr, "machine_limits: %s: %s\n", what, std::strerror(errno));
    std::exit(1);
}

// CPU seconds (user + system) of the calling thread.
double thread_cpu_seconds() {
    rusage u{};
    ::getrusage(RUSAGE_THREAD, &u);
    auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
    return s(u.ru_utime) + s(u.ru_stime);
}

double seconds_since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

int run_pagecache(const char* path, long mib) {
    std::vector<char> chunk(1 << 20);
    for (size_t i = 0; i < chunk.size(); ++i)
        chunk[i] = static_cast<char>(i * 31);
    int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        die("open");
    const auto start = Clock::now();
    for (long i = 0; i < mib; ++i)
        if (::write(fd, chunk.data(), chunk.size()) != static_cast<ssize_t>(chunk.size()))
            die("write");
    const double elapsed = seconds_since(start);
    ::close(fd);
    std::printf("result limit=pagecache_write bytes=%ld seconds=%.4f mb_per_s=%.1f\n", mib << 20,
                elapsed, static_cast<double>(mib << 20) / elapsed / 1e6);
    return 0;
}

int run_loopback(const char* path, double seconds) {
    int file = ::open(path, O_RDONLY | O_CLOEXEC);
    if (file < 0)
        die("open");
    struct stat st {};
    ::fstat(file, &st);
    int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(listener, 1) != 0 ||
        ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
        die("listen");
    std::thread reader([&] {
        int c = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (::connect(c, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
            die("connect");
        std::vector<char> buf(256 * 1024);
        while (::read(c, buf.data(), buf.size()) > 0) {
        }
        ::close(c);
    });
    int out = ::accept(listener, nullptr, nullptr);
    if (out < 0)
        die("accept");
    int one = 1;
    ::setsockopt(out, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    long long sent = 0;
    const double cpu0 = thread_cpu_seconds();
    const auto start = Clock::now();
    while (seconds_since(start) < seconds) {
        off_t offset = 0;
        while (offset < st.st_size) {
            ssize_t n = ::sendfile(out, file, &offset, static_cast<size_t>(st.st_size - offset));
            if (n <= 0)
                die("sendfile");
            sent += n;
        }
    }
    const double elapsed = seconds_since(start);
    const double cpu = thread_cpu_seconds() - cpu0;
    ::shutdown(out, SHUT_WR);
    reader.join();
    ::close(out);
    ::close(listener);
    ::close(file);
    std::printf(
        "result limit=loopback_sendfile bytes=%lld seconds=%.4f mb_per_s=%.1f "
        "sender_cpu_s_per_gb=%.3f\n",
        sent, elapsed, static_cast<double>(sent) / elapsed / 1e6,
        cpu / (static_cast<double>(sent) / 1e9));
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 4 && std::string(argv[1]) == "pagecache")
        return run_pagecache(argv[2], std::atol(argv[3]));
    if (argc == 4 && std::string(argv[1]) == "loopback")
        return run_loopback(argv[2], std::atof(argv[3]));
    std::fprintf(stderr, "usage: machine_limits pagecache FILE MIB | loopback FILE SECONDS\n");
    return 2;
}
