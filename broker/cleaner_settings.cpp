#include "broker/cleaner_settings.h"

#include <algorithm>

namespace skiff::broker {

storage::CleanerSettings cleaner_settings_from(const config::BrokerConfig& config) {
    storage::CleanerSettings s;
    s.enable = config.log_cleaner_enable && config.log_cleaner_threads > 0;
    s.threads = std::max(config.log_cleaner_threads, 0);
    s.backoff_ms = config.log_cleaner_backoff_ms;
    const int64_t threads = std::max<int64_t>(s.threads, 1);
    s.config.dedupe_buffer_bytes = config.log_cleaner_dedupe_buffer_size / threads;
    s.config.io_buffer_bytes = config.log_cleaner_io_buffer_size / threads;
    s.config.io_buffer_load_factor = config.log_cleaner_io_buffer_load_factor;
    s.config.io_max_bytes_per_second =
        config.log_cleaner_io_max_bytes_per_second / static_cast<double>(threads);
    return s;
}

}  // namespace skiff::broker
