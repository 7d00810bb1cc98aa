#include "storage/disk_delay.h"

#include <atomic>
#include <thread>

namespace skiff::storage {
namespace {

std::atomic<int64_t> write_us{0};
std::atomic<int64_t> sync_us{0};

void sleep_us(const std::atomic<int64_t>& us) {
    if (const int64_t n = us.load(std::memory_order_relaxed); n > 0) [[unlikely]]
        std::this_thread::sleep_for(std::chrono::microseconds(n));
}

}  // namespace

void set_disk_delay(DiskDelay delay) {
    write_us.store(delay.write.count(), std::memory_order_relaxed);
    sync_us.store(delay.sync.count(), std::memory_order_relaxed);
}

DiskDelay disk_delay() {
    return {std::chrono::microseconds(write_us.load(std::memory_order_relaxed)),
            std::chrono::microseconds(sync_us.load(std::memory_order_relaxed))};
}

void delay_write() {
    sleep_us(write_us);
}

void delay_sync() {
    sleep_us(sync_us);
}

}  // namespace skiff::storage
