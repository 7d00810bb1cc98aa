// Durable mode's produce acknowledgement: waits, without holding the I/O thread, until the
// appends of one Produce request are on disk (storage/group_commit.h).
#pragma once

#include <asio/awaitable.hpp>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "storage/log_manager.h"

namespace skiff::broker {

struct PendingSync {
    storage::PartitionLog* log;
    int64_t end;  // the offset after the append's last one
};

// Asks the group committer to sync each log and returns when every append is durable: one entry
// per `pending`, empty when it is on disk, else the error that kept it from the disk. A single
// append is synced on the calling thread instead when no sync of its log is running.
asio::awaitable<std::vector<std::optional<storage::StorageError>>> wait_until_durable(
    storage::GroupCommitter& committer, std::span<const PendingSync> pending);

}  // namespace skiff::broker
