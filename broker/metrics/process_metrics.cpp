#include "broker/metrics/process_metrics.h"

#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace skiff::broker::metrics {
namespace {

// The fields of /proc/self/stat after the command name (which may hold spaces and parentheses):
// fields[0] is field 3 (state) of proc(5).
std::vector<std::string> stat_fields() {
    std::ifstream in("/proc/self/stat");
    std::string line;
    std::getline(in, line);
    const auto close = line.rfind(')');
    std::vector<std::string> fields;
    if (close == std::string::npos)
        return fields;
    std::istringstream rest(line.substr(close + 1));
    for (std::string f; rest >> f;)
        fields.push_back(f);
    return fields;
}

double boot_time_seconds() {
    std::ifstream in("/proc/stat");
    for (std::string key; in >> key;) {
        if (key == "btime") {
            double t = 0;
            in >> t;
            return t;
        }
        in.ignore(1 << 20, '\n');
    }
    return 0;
}

}  // namespace

void write_process_metrics(Exposition& out) {
    const auto fields = stat_fields();
    const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
    const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
    auto field = [&](size_t proc_index) {  // proc(5) numbering, from 1
        const size_t i = proc_index - 3;
        return i < fields.size() ? std::stod(fields[i]) : 0.0;
    };

    out.family("process_cpu_seconds_total", "counter", "User and system CPU time in seconds.");
    out.sample("process_cpu_seconds_total", {}, (field(14) + field(15)) / ticks);
    out.family("process_resident_memory_bytes", "gauge", "Resident memory in bytes.");
    out.sample("process_resident_memory_bytes", {}, field(24) * page);
    out.family("process_virtual_memory_bytes", "gauge", "Virtual memory in bytes.");
    out.sample("process_virtual_memory_bytes", {}, field(23));
    out.family("process_start_time_seconds", "gauge",
               "Start time of the process since the Unix epoch in seconds.");
    out.sample("process_start_time_seconds", {}, boot_time_seconds() + field(22) / ticks);

    size_t open = 0;
    std::error_code ec;
    for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec);
         !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
        ++open;
    out.family("process_open_fds", "gauge", "Open file descriptors.");
    out.sample("process_open_fds", {}, static_cast<double>(open));
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
        out.family("process_max_fds", "gauge", "Maximum number of open file descriptors.");
        out.sample("process_max_fds", {}, static_cast<double>(limit.rlim_cur));
    }
}

}  // namespace skiff::broker::metrics
