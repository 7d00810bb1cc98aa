// Durable mode's acknowledgements (Produce, OffsetCommit, TxnOffsetCommit): waits, without
// holding the I/O thread, until a request's appends are on disk (storage/group_commit.h).
#pragma once

#include <asio/awaitable.hpp>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "storage/log_manager.h"

namespace skiff::broker {

using storage::PendingSync;

// Asks the group committer to sync each log and returns when every append is durable: one entry
// per `pending`, empty when it is on disk, else the error that kept it from the disk. Never on
// the calling (network) thread, even when no sync is running: a sync can take as long as the
// disk likes, and every other connection of that thread would wait for it.
asio::awaitable<std::vector<std::optional<storage::StorageError>>> wait_until_durable(
    storage::GroupCommitter& committer, std::span<const PendingSync> pending);

// The same for appends answered as one (a commit, a transaction's records): empty when every
// one is durable, else the first error.
asio::awaitable<std::optional<storage::StorageError>> wait_until_all_durable(
    storage::GroupCommitter& committer, std::span<const PendingSync> pending);

}  // namespace skiff::broker
