// Storage's flush and fsync reports reach the two histograms once observed.
#include "broker/metrics/sync_metrics.h"

#include <gtest/gtest.h>

#include "storage/sync_timing.h"

namespace skiff::broker::metrics {
namespace {

double count_of(const std::string& text, const std::string& series) {
    const auto at = text.find(series + " ");
    return at == std::string::npos ? -1 : std::stod(text.substr(at + series.size() + 1));
}

TEST(SyncMetrics, StorageReportsLandInTheHistograms) {
    observe_storage_syncs();
    Exposition before;
    write_sync_metrics(before);
    storage::report_sync(storage::SyncKind::fsync, 3'000'000);
    storage::report_sync(storage::SyncKind::fsync, 1'000'000);
    storage::report_sync(storage::SyncKind::log_flush, 5'000'000);
    Exposition after;
    write_sync_metrics(after);
    EXPECT_EQ(count_of(after.text(), "skiff_log_fsync_duration_seconds_count") -
                  count_of(before.text(), "skiff_log_fsync_duration_seconds_count"),
              2);
    EXPECT_EQ(count_of(after.text(), "skiff_log_flush_duration_seconds_count") -
                  count_of(before.text(), "skiff_log_flush_duration_seconds_count"),
              1);
    storage::set_sync_observer(nullptr);
    storage::report_sync(storage::SyncKind::fsync, 1);  // no observer: nothing, no crash
}

}  // namespace
}  // namespace skiff::broker::metrics
