// The test-control API's named snapshots (broker/control/): the whole state of the broker saved
// under a name and brought back later, in process, without a restart.
//
// On disk: <log dir>/skiff-snapshots/<name>/ holds, per partition, a <topic>-<partition>/ dir
// with hard links of the sealed segments (.log, .index, .timeindex, .txnindex) and copies of the
// active segment's .log and .txnindex (its preallocated indexes are left out and rebuilt from the
// .log when it is opened) and of the other small files (producer .snapshot files,
// partition.metadata); the internal topics (__consumer_offsets, __transaction_state, _schemas)
// included. Beside them: topic-configs/, the ACL, SCRAM and group-configs files (copies), the
// recovery-point
// and log-start-offset checkpoints of the logs as they were frozen, and snapshot.properties.
// "skiff-snapshots" has no -<number> suffix, so LogManager's scan of log.dirs never takes it for
// a partition dir (the topic-configs/ convention); a snapshot is written under <root>/~tmp-<name>
// ('~' is not allowed in names) and renamed to its name once complete and fsynced, so a crash
// leaves no half snapshot under a valid name (the next take_snapshot removes the leftover).
//
// Consistency: each log is frozen in turn (PartitionLog::freeze: flushed, then its files linked
// and copied under its append lock, so no append, roll, retention or cleaner swap changes them
// meanwhile). No request is in flight; what background work may still write is the transaction
// coordinator (timeouts: markers into partitions, then its own records) and the group
// coordinator (group records). __transaction_state is frozen first: whatever a timeout writes
// afterwards, the snapshot's transaction state is at or behind its partitions, and restoring it
// completes or aborts again, which partitions that already hold the marker take as a no-op.
//
// Hard links are safe because skiff never changes a sealed segment's files in place: a roll
// seals the active segment (which is copied, never linked), retention and DeleteRecords unlink
// whole segments, the cleaner writes .cleaned files and renames (old files renamed to .deleted
// and unlinked; the linked inode is untouched). The exception is recovery after a crash, which
// validates segments above the recovery point and may truncate or rebuild them in place; the
// snapshot flushes every log before linking, and restore opens them with that recovery point,
// so only a segment left unflushed by a later crash of the restored broker could be touched,
// and then its linked snapshot file would see the same repair.
//
// Restore (the same "no request in flight" guarantee as reset): the snapshot's tree is first
// built in <root>/~restore (links of the snapshot's files, copies of its active segments so
// the snapshot itself is never appended to), fsynced; then <root>/restore-journal is written
// and the switch happens: every live topic removed (dirs renamed *-delete, fsync), the
// journal moved on to its second phase, the staged dirs renamed into the log dir. In memory: the
// LogManager opens the new dirs, the group configs are replaced, the topic registry and the
// coordinators reload (Broker::reopen_internal_state), the ACLs and users are replaced, the
// checkpoints written; only then is the journal removed, so a crash anywhere before leaves it for
// the roll-forward (the log dir's checkpoints and ACL, SCRAM and group-configs files are still the
// old state's until then). A crash before the journal leaves the live data as it was; after it,
// finish_interrupted_restore(), run before the LogManager opens the log dir, rolls the switch
// forward (the snapshot's checkpoints, ACLs, users and group configs installed too), so the state
// is the snapshot's, never a mix.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/broker.h"

namespace skiff::broker::control {

inline constexpr const char* kSnapshotsDir = "skiff-snapshots";

struct SnapshotInfo {
    std::string name;
    uint64_t bytes = 0;  // what the snapshot's files hold (linked ones included)
    size_t files = 0;
    std::chrono::system_clock::time_point created;
};

struct SnapshotResult {
    SnapshotInfo info;
    std::string error;  // empty on success
};

// [A-Za-z0-9._-]{1,64}, not "." or "..": nullopt, else why not.
std::optional<std::string> invalid_snapshot_name(std::string_view name);

// Errors (in `error`): a bad name, a name already taken, an I/O error (nothing left behind).
SnapshotResult take_snapshot(Broker& broker, const std::string& name);
// The whole state becomes the snapshot's. Empty on success, else what failed.
std::string restore_snapshot(Broker& broker, const std::string& name);
std::vector<SnapshotInfo> list_snapshots(const Broker& broker);
// Empty on success, else what failed (a bad or unknown name).
std::string delete_snapshot(Broker& broker, const std::string& name);

// For start-up, before LogManager::open: completes a restore a crash interrupted after its
// switch began (see above); otherwise removes what an interrupted restore or snapshot left in the
// snapshots dir (~restore, ~tmp-*) and does nothing else. Empty on success, else what failed.
std::string finish_interrupted_restore(const std::filesystem::path& log_dir);

// Tests only (tests/broker/control/snapshots_test.cpp); empty otherwise. restore_snapshot
// calls it at each point where a test simulates a crash: "staged" (the tree built, no journal
// yet), "switch" (journal phase=switch written, no live dir renamed yet), "moving" (phase=move,
// before each staged partition dir is renamed in), "moved" (every one in, nothing done in memory
// yet, the journal still there). A hook that throws something not derived
// from std::exception stops the restore there, past its handlers, with the disk as a crash there
// would leave it.
extern std::function<void(std::string_view point)> restore_crash_hook;

}  // namespace skiff::broker::control
