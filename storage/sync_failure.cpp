#include "storage/sync_failure.h"

#include <atomic>

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

}  // namespace skiff::storage
