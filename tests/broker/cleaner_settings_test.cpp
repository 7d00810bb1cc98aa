// log.cleaner.* broker settings -> the storage cleaner's settings (broker/cleaner_settings.h).
#include "broker/cleaner_settings.h"

#include <gtest/gtest.h>

namespace skiff::broker {
namespace {

TEST(CleanerSettings, KafkasDefaultsGiveOneThreadWithTheWholeBuffers) {
    const auto s = cleaner_settings_from(config::BrokerConfig{});
    EXPECT_TRUE(s.enable);
    EXPECT_EQ(s.threads, 1);
    EXPECT_EQ(s.backoff_ms, 15000);
    EXPECT_EQ(s.config.dedupe_buffer_bytes, 134217728);
    EXPECT_EQ(s.config.io_buffer_bytes, 524288);
    EXPECT_DOUBLE_EQ(s.config.io_buffer_load_factor, 0.9);
}

TEST(CleanerSettings, BuffersAndTheIoLimitAreSharedByTheThreads) {
    config::BrokerConfig c;
    c.log_cleaner_threads = 4;
    c.log_cleaner_dedupe_buffer_size = 64 << 20;
    c.log_cleaner_io_buffer_size = 1 << 20;
    c.log_cleaner_io_max_bytes_per_second = 8e6;
    c.log_cleaner_backoff_ms = 250;
    const auto s = cleaner_settings_from(c);
    EXPECT_EQ(s.threads, 4);
    EXPECT_EQ(s.config.dedupe_buffer_bytes, 16 << 20);
    EXPECT_EQ(s.config.io_buffer_bytes, 256 << 10);
    EXPECT_DOUBLE_EQ(s.config.io_max_bytes_per_second, 2e6);
    EXPECT_EQ(s.backoff_ms, 250);
}

TEST(CleanerSettings, DisabledOrNoThreadsMeansNoCleaning) {
    config::BrokerConfig c;
    c.log_cleaner_enable = false;
    EXPECT_FALSE(cleaner_settings_from(c).enable);
    c.log_cleaner_enable = true;
    c.log_cleaner_threads = 0;
    EXPECT_FALSE(cleaner_settings_from(c).enable);
}

}  // namespace
}  // namespace skiff::broker
