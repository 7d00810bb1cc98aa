#include "storage/sync_failure.h"

#include <atomic>
#include <utility>

namespace skiff::storage {

namespace {
std::atomic<SyncFailureHandler> handler{nullptr};
}

void set_sync_failure_handler(SyncFailureHandler h) {
    handler.store(h);
}

void report_sync_failure(const StorageError& error) {
    if (auto h = handler.load())
        h(error);
}

Unexpected<StorageError> sync_failed(int err, const std::string& what) {
    auto error = errno_error(err, what);
    report_sync_failure(error);
    return unexpected(std::move(error));
}

}  // namespace skiff::storage
