#include "storage/log_config.h"

#include <chrono>

namespace skiff::storage {

int64_t wall_clock_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

}  // namespace skiff::storage
