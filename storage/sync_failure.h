// What a failed fsync of a partition's files means, and who decides what happens next.
//
// After fsync or fdatasync reports an error, what was written to that file since its last good
// sync may not be on disk, and nothing says which part: Linux marks the pages whose write-back
// failed clean, so a retry reports success without writing them (PostgreSQL's "fsyncgate",
// 2018). Retrying and carrying on would acknowledge, expose to consumers and move the recovery
// point over bytes that a power cut, or the page cache dropping them, turns into a hole or a
// torn batch. Kafka takes the log directory offline on such an error and halts when its last
// one is gone; skiff has one log directory, so the broker's handler halts the process and the
// next start recovers every log from what is really on disk (broker/halt_on_sync_failure.cpp).
//
// Reported where a segment's .log, offset index, time index or transaction index, or a
// partition's directory, failed to sync. Not for write_file_atomically's small files: a failed
// sync there leaves the old file in place and the next write replaces the whole file.
#pragma once

#include "protocol/expected.h"
#include "storage/storage_error.h"

#include <string>

namespace skiff::storage {

using SyncFailureHandler = void (*)(const StorageError& error);

// Installed once at start-up (nullptr: none, as in tools and unit tests, where the error is only
// returned to the caller).
void set_sync_failure_handler(SyncFailureHandler handler);

// Called with the error before it is returned, on the thread whose sync failed (while it still
// holds the log's locks, so nothing of that log is acknowledged after it). Returns only when no
// handler is installed or the handler returns.
void report_sync_failure(const StorageError& error);

// The error of a sync that failed with errno ERR ("fsync PATH: reason"), reported first: what
// every syncing site returns, so none can forget the report.
Unexpected<StorageError> sync_failed(int err, const std::string& what);

}  // namespace skiff::storage
