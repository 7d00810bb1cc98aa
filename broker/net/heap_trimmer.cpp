#include "broker/net/heap_trimmer.h"

#include <malloc.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <fstream>
#include <string>

namespace skiff::broker {

HeapUsage current_heap_usage() {
    HeapUsage usage;
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("RssAnon:", 0) == 0) {
            usage.resident_anonymous_bytes =
                static_cast<size_t>(std::stoull(line.substr(8))) * 1024;  // "  1234 kB"
            break;
        }
    }
    const struct mallinfo2 info = mallinfo2();
    usage.in_use_bytes = info.uordblks + info.hblkhd;
    return usage;
}

size_t resident_outside_use(const HeapUsage& usage) {
    return usage.resident_anonymous_bytes > usage.in_use_bytes
               ? usage.resident_anonymous_bytes - usage.in_use_bytes
               : 0;
}

bool worth_trimming(const HeapUsage& usage, size_t least_outside_bytes, size_t slack_bytes) {
    const size_t outside = resident_outside_use(usage);
    return outside > least_outside_bytes && outside - least_outside_bytes >= slack_bytes;
}

bool HeapTrimmer::maybe_trim(clock::time_point now) {
    if (now - last_check_ < interval_)
        return false;
    last_check_ = now;
    const HeapUsage before = current_heap_usage();
    least_outside_bytes_ = std::min(least_outside_bytes_, resident_outside_use(before));
    if (!worth_trimming(before, least_outside_bytes_, slack_bytes_))
        return false;
    malloc_trim(0);
    const HeapUsage after = current_heap_usage();
    least_outside_bytes_ = std::min(least_outside_bytes_, resident_outside_use(after));
    spdlog::debug("malloc_trim: resident anonymous memory {} -> {} MiB ({} MiB in use)",
                  before.resident_anonymous_bytes >> 20, after.resident_anonymous_bytes >> 20,
                  before.in_use_bytes >> 20);
    return true;
}

}  // namespace skiff::broker
