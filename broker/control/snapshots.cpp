#include "broker/control/snapshots.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "broker/control/state_reset.h"
#include "broker/group/group_configs.h"
#include "broker/quotas/client_quota_store.h"
#include "broker/security/acl_store.h"
#include "broker/topics/topic_config.h"
#include "storage/checkpoint_file.h"
#include "storage/durable_file.h"
#include "storage/log_manager.h"

namespace skiff::broker::control {

namespace fs = std::filesystem;

std::function<void(std::string_view point)> restore_crash_hook;

namespace {

void crash_point(std::string_view point) {
    if (restore_crash_hook)
        restore_crash_hook(point);
}

constexpr const char* kTmpPrefix = "~tmp-";          // '~': never a valid snapshot name
constexpr const char* kRestoreStaging = "~restore";  // the tree a restore moves in
constexpr const char* kRestoreJournal = "restore-journal";
constexpr const char* kInfoFile = "snapshot.properties";
constexpr const char* kAclFile = security::kAclBindingsFile;
constexpr const char* kUsersFile = security::kScramCredentialsFileName;
constexpr const char* kQuotasFile = quotas::kClientQuotasFileName;
constexpr const char* kGroupConfigsFile = group::kGroupConfigsFile;

// A failure, as the message to return.
struct Failure {
    std::string message;
};

fs::path snapshots_root(const fs::path& log_dir) {
    return log_dir / kSnapshotsDir;
}

// The base offset of a segment file "<20 digits>.<ext>", or nullopt for any other file.
std::optional<int64_t> segment_base(const fs::path& file) {
    static const std::vector<std::string> kExtensions = {".log", ".index", ".timeindex",
                                                         ".txnindex"};
    const std::string ext = file.extension().string();
    if (std::find(kExtensions.begin(), kExtensions.end(), ext) == kExtensions.end())
        return std::nullopt;
    const std::string stem = file.stem().string();
    int64_t base = 0;
    auto [end, ec] = std::from_chars(stem.data(), stem.data() + stem.size(), base);
    if (ec != std::errc() || end != stem.data() + stem.size() || stem.size() != 20)
        return std::nullopt;
    return base;
}

// Leftovers of an interrupted cleaner swap or write: never part of a snapshot.
bool is_transient(const fs::path& file) {
    const std::string ext = file.extension().string();
    return ext == ".deleted" || ext == ".cleaned" || ext == ".swap" || ext == ".tmp";
}

void fsync_dir(const fs::path& dir) {
    if (auto synced = storage::fsync_directory(dir); !synced)
        throw Failure{synced.error().message};
}

// Copies the first `length` bytes of `from` (all of it when -1) to the new file `to`, fsynced.
void copy_durably(const fs::path& from, const fs::path& to, int64_t length = -1) {
    const int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
    if (in < 0)
        throw Failure{"open " + from.string() + ": " + std::strerror(errno)};
    const int out = ::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (out < 0) {
        const int err = errno;
        ::close(in);
        throw Failure{"create " + to.string() + ": " + std::strerror(err)};
    }
    std::string error;
    std::vector<char> buffer(1 << 20);
    int64_t left = length < 0 ? INT64_MAX : length;
    while (left > 0 && error.empty()) {
        const ssize_t n =
            ::read(in, buffer.data(), static_cast<size_t>(std::min<int64_t>(left, 1 << 20)));
        if (n < 0) {
            error = "read " + from.string() + ": " + std::strerror(errno);
            break;
        }
        if (n == 0)
            break;
        for (ssize_t done = 0; done < n;) {
            const ssize_t w = ::write(out, buffer.data() + done, static_cast<size_t>(n - done));
            if (w < 0) {
                error = "write " + to.string() + ": " + std::strerror(errno);
                break;
            }
            done += w;
        }
        left -= n;
    }
    if (error.empty() && ::fsync(out) != 0)
        error = "fsync " + to.string() + ": " + std::strerror(errno);
    ::close(in);
    ::close(out);
    if (!error.empty())
        throw Failure{error};
}

void link_into(const fs::path& from, const fs::path& to) {
    std::error_code ec;
    fs::create_hard_link(from, to, ec);
    if (ec)
        throw Failure{"link " + from.string() + " to " + to.string() + ": " + ec.message()};
}

void make_dir(const fs::path& dir) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec)
        throw Failure{"create " + dir.string() + ": " + ec.message()};
}

void rename_path(const fs::path& from, const fs::path& to) {
    std::error_code ec;
    fs::rename(from, to, ec);
    if (ec)
        throw Failure{"rename " + from.string() + " to " + to.string() + ": " + ec.message()};
}

void write_text(const fs::path& file, const std::string& text) {
    if (auto written = storage::write_file_atomically(file, text); !written)
        throw Failure{written.error().message};
}

std::string read_text(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// One log's files into `to` (a new dir), under its append lock (PartitionLog::freeze).
void snapshot_log(storage::PartitionLog& log, const fs::path& to, storage::OffsetCheckpoint& points,
                  storage::OffsetCheckpoint& starts, const storage::TopicPartition& tp) {
    make_dir(to);
    auto frozen = log.freeze([&](const storage::SegmentSet& segments, int64_t leo,
                                 int64_t log_start) -> Expected<void, storage::StorageError> {
        const auto& active = segments.active();
        try {
            for (const auto& entry : fs::directory_iterator(log.dir())) {
                if (!entry.is_regular_file() || is_transient(entry.path()))
                    continue;
                const fs::path target = to / entry.path().filename();
                const auto base = segment_base(entry.path());
                if (base && *base < active->base_offset()) {  // sealed: never changed in place
                    link_into(entry.path(), target);
                } else if (!base || entry.path().extension() == ".txnindex") {
                    // Producer snapshots, partition.metadata, the active .txnindex: small, and
                    // rewritten or appended to in place.
                    copy_durably(entry.path(), target);
                } else if (entry.path().extension() == ".log") {
                    copy_durably(entry.path(), target, active->size_bytes());
                }
                // The active segment's .index and .timeindex are preallocated and written in
                // place: left out, rebuilt from the .log when the log is opened.
            }
        } catch (const Failure& f) {
            return unexpected(storage::StorageError{storage::StorageErrc::io_error, f.message});
        } catch (const std::exception& e) {  // the directory listing's filesystem_error
            return unexpected(storage::StorageError{storage::StorageErrc::io_error, e.what()});
        }
        points[tp] = leo;
        starts[tp] = log_start;
        return {};
    });
    if (!frozen)
        throw Failure{"snapshot of " + tp.topic + "-" + std::to_string(tp.partition) + ": " +
                      frozen.error().message};
    fsync_dir(to);
}

SnapshotInfo describe(const fs::path& dir, const std::string& name) {
    SnapshotInfo info;
    info.name = name;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (!it->is_regular_file())
            continue;
        ++info.files;
        info.bytes += it->file_size();
    }
    // created.ms=<milliseconds since the epoch>
    const std::string text = read_text(dir / kInfoFile);
    int64_t ms = 0;
    if (auto at = text.find("created.ms="); at != std::string::npos)
        std::from_chars(text.data() + at + 11, text.data() + text.size(), ms);
    info.created = std::chrono::system_clock::time_point(std::chrono::milliseconds(ms));
    return info;
}

// Every partition dir of `dir`.
std::vector<fs::path> partition_dirs(const fs::path& dir) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec))
        if (entry.is_directory() &&
            storage::parse_partition_dir_name(entry.path().filename().string()))
            out.push_back(entry.path());
    return out;
}

// The restore's switch, second half: the staged dirs and topic configs moved into the log dir
// (each rename atomic; done again after a crash, it moves what is left). The journal stays:
// end_restore() removes it once the rest of the state is the snapshot's too.
void move_staged_in(const fs::path& log_dir) {
    const fs::path root = snapshots_root(log_dir);
    const fs::path staging = root / kRestoreStaging;
    for (const auto& dir : partition_dirs(staging)) {
        crash_point("moving");
        rename_path(dir, log_dir / dir.filename());
    }
    const fs::path configs = topic_config_dir(log_dir);
    make_dir(configs);
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(staging / "topic-configs", ec))
        rename_path(entry.path(), configs / entry.path().filename());
    fsync_dir(configs);
    fsync_dir(log_dir);
}

// The restore done: the journal, then the staging dir, removed.
void end_restore(const fs::path& log_dir) {
    const fs::path root = snapshots_root(log_dir);
    if (auto removed = storage::remove_file_durably(root / kRestoreJournal); !removed)
        throw Failure{removed.error().message};
    std::error_code ec;
    fs::remove_all(root / kRestoreStaging, ec);
}

// At start-up without a journal: a staging tree (a crash before the journal) and ~tmp-* dirs
// (a take_snapshot or delete_snapshot cut short) are leftovers nothing will finish.
void remove_leftovers(const fs::path& log_dir) {
    const fs::path root = snapshots_root(log_dir);
    std::error_code ec;
    std::vector<fs::path> doomed;
    for (const auto& entry : fs::directory_iterator(root, ec)) {
        const std::string name = entry.path().filename().string();
        if (name == kRestoreStaging || name.starts_with(kTmpPrefix))
            doomed.push_back(entry.path());
    }
    for (const auto& dir : doomed) {
        spdlog::info("removing {}, left by an interrupted snapshot or restore", dir.string());
        fs::remove_all(dir, ec);
    }
}

}  // namespace

std::optional<std::string> invalid_snapshot_name(std::string_view name) {
    if (name.empty() || name.size() > 64)
        return "a snapshot name has 1 to 64 characters";
    if (name == "." || name == "..")
        return "a snapshot name cannot be . or ..";
    for (char c : name)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-'))
            return "a snapshot name has only the characters [A-Za-z0-9._-]";
    return std::nullopt;
}

SnapshotResult take_snapshot(Broker& broker, const std::string& name) {
    SnapshotResult result;
    if (auto invalid = invalid_snapshot_name(name)) {
        result.error = *invalid;
        return result;
    }
    const fs::path log_dir = broker.logs().log_dir();
    const fs::path root = snapshots_root(log_dir);
    const fs::path final_dir = root / name;
    const fs::path tmp = root / (kTmpPrefix + name);
    std::error_code ec;
    if (fs::exists(final_dir, ec)) {
        result.error = "snapshot " + name + " already exists";
        return result;
    }
    const auto started = std::chrono::steady_clock::now();
    try {
        make_dir(root);
        fs::remove_all(tmp, ec);  // a leftover of a crash
        make_dir(tmp);
        auto logs = broker.logs().logs();
        // __transaction_state first (see the header): the snapshot's transaction state is then
        // never ahead of its partitions.
        std::stable_partition(logs.begin(), logs.end(), [](const auto& l) {
            return l.first.topic == txn::kTransactionStateTopic;
        });
        storage::OffsetCheckpoint points;
        storage::OffsetCheckpoint starts;
        for (const auto& [tp, log] : logs)
            snapshot_log(*log, tmp / (tp.topic + "-" + std::to_string(tp.partition)), points,
                         starts, tp);
        const fs::path configs = topic_config_dir(log_dir);
        make_dir(tmp / "topic-configs");
        for (const auto& entry : fs::directory_iterator(configs, ec))
            if (entry.path().extension() == ".properties")
                copy_durably(entry.path(), tmp / "topic-configs" / entry.path().filename());
        fsync_dir(tmp / "topic-configs");
        for (const char* file : {kAclFile, kUsersFile, kGroupConfigsFile, kQuotasFile})
            if (fs::exists(log_dir / file, ec))
                copy_durably(log_dir / file, tmp / file);
        if (auto w = storage::write_checkpoint(tmp / storage::kRecoveryPointCheckpoint, points); !w)
            throw Failure{w.error().message};
        if (auto w = storage::write_checkpoint(tmp / storage::kLogStartOffsetCheckpoint, starts);
            !w)
            throw Failure{w.error().message};
        const auto created = std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count();
        write_text(tmp / kInfoFile, "created.ms=" + std::to_string(created) + "\n");
        fsync_dir(tmp);
        rename_path(tmp, final_dir);
        fsync_dir(root);
    } catch (const Failure& f) {
        fs::remove_all(tmp, ec);
        result.error = f.message;
        return result;
    } catch (const std::exception& e) {
        fs::remove_all(tmp, ec);
        result.error = e.what();
        return result;
    }
    result.info = describe(final_dir, name);
    spdlog::info("snapshot {}: {} file(s), {} byte(s) in {} ms", name, result.info.files,
                 result.info.bytes,
                 std::chrono::duration_cast<std::chrono::milliseconds>(
                     std::chrono::steady_clock::now() - started)
                     .count());
    return result;
}

std::string restore_snapshot(Broker& broker, const std::string& name) {
    if (auto invalid = invalid_snapshot_name(name))
        return *invalid;
    const fs::path log_dir = broker.logs().log_dir();
    const fs::path root = snapshots_root(log_dir);
    const fs::path snap = root / name;
    const fs::path staging = root / kRestoreStaging;
    std::error_code ec;
    if (!fs::is_directory(snap, ec))
        return "no snapshot " + name;
    storage::OffsetCheckpoint points;
    storage::OffsetCheckpoint starts;
    try {
        auto p = storage::read_checkpoint(snap / storage::kRecoveryPointCheckpoint);
        auto s = storage::read_checkpoint(snap / storage::kLogStartOffsetCheckpoint);
        if (!p || !s)
            throw Failure{"snapshot " + name + " has no readable checkpoints"};
        points = *p;
        starts = *s;
        // 1. The new tree, beside the live one: links of the snapshot's files, copies of each
        // log's last segment (it becomes the active one and is appended to).
        fs::remove_all(staging, ec);
        make_dir(staging);
        for (const auto& dir : partition_dirs(snap)) {
            const fs::path to = staging / dir.filename();
            make_dir(to);
            int64_t last = -1;
            for (const auto& entry : fs::directory_iterator(dir))
                if (entry.path().extension() == ".log")
                    last = std::max(last, segment_base(entry.path()).value_or(-1));
            for (const auto& entry : fs::directory_iterator(dir)) {
                const auto base = segment_base(entry.path());
                if (base && *base < last)
                    link_into(entry.path(), to / entry.path().filename());
                else
                    copy_durably(entry.path(), to / entry.path().filename());
            }
            fsync_dir(to);
        }
        make_dir(staging / "topic-configs");
        for (const auto& entry : fs::directory_iterator(snap / "topic-configs", ec))
            copy_durably(entry.path(), staging / "topic-configs" / entry.path().filename());
        fsync_dir(staging / "topic-configs");
        fsync_dir(staging);
        crash_point("staged");
        // 2. The switch, journaled: from here a crash is rolled forward at start-up.
        write_text(root / kRestoreJournal, "snapshot=" + name + "\nphase=switch\n");
        crash_point("switch");
        broker.topics().remove_all();
        write_text(root / kRestoreJournal, "snapshot=" + name + "\nphase=move\n");
        move_staged_in(log_dir);
        crash_point("moved");
    } catch (const std::exception& e) {
        if (!fs::exists(root / kRestoreJournal, ec))
            fs::remove_all(staging, ec);
        return "restoring snapshot " + name + ": " + e.what();
    } catch (const Failure& f) {
        // Before the journal: the live data is untouched. After it: the switch is finished at
        // the next start (finish_interrupted_restore); meanwhile the broker is left as it is.
        if (!fs::exists(root / kRestoreJournal, ec))
            fs::remove_all(staging, ec);
        return "restoring snapshot " + name + ": " + f.message;
    }
    // 3. In memory, as at start-up.
    std::string error;
    if (auto opened = broker.logs().open_new_partitions(points, starts); !opened)
        error = "opening the restored logs: " + opened.error().message;
    broker.topics().reload();
    // Before the groups are restored: their members' sessions start with their own timeouts.
    if (!broker.group_configs().replace_all_from(snap / kGroupConfigsFile))
        error += (error.empty() ? "" : "; ") + std::string("replacing the group configs");
    try {
        broker.reopen_internal_state();
    } catch (const std::exception& e) {
        error += (error.empty() ? "" : "; ") + std::string(e.what());
    }
    if (auto* authorizer = broker.authorizer()) {
        std::set<security::AclBinding> bindings;
        try {
            if (fs::exists(snap / kAclFile, ec))
                bindings = security::parse_acl_bindings(read_text(snap / kAclFile),
                                                        (snap / kAclFile).string());
        } catch (const std::exception& e) {
            error += (error.empty() ? "" : "; ") + std::string(e.what());
        }
        auto removed = authorizer->acls().remove({security::AclBindingFilter{}});
        auto added = authorizer->acls().add({bindings.begin(), bindings.end()});
        if (removed.error || added)
            error += (error.empty() ? "" : "; ") + std::string("replacing the ACLs: ") +
                     removed.error.value_or(added.value_or(""));
    }
    {
        security::CredentialStore::Users users;
        if (fs::exists(snap / kUsersFile, ec)) {
            auto parsed = security::CredentialStore::parse(read_text(snap / kUsersFile),
                                                           (snap / kUsersFile).string());
            if (parsed)
                users = std::move(*parsed);
            else
                error += (error.empty() ? "" : "; ") + parsed.error().message;
        }
        std::vector<security::CredentialStore::Change> changes;
        for (const auto& info : broker.credentials().list())
            for (const auto& [mechanism, iterations] : info.mechanisms)
                changes.push_back({info.user, mechanism, std::nullopt});
        for (const auto& [user, credentials] : users)
            for (const auto& [mechanism, credential] : credentials)
                changes.push_back({user, mechanism, credential});
        if (auto applied = broker.credentials().apply(changes); !applied)
            error += (error.empty() ? "" : "; ") + applied.error().message;
    }
    {
        quotas::QuotaMap restored;
        if (fs::exists(snap / kQuotasFile, ec)) {
            auto parsed = quotas::parse_quotas(read_text(snap / kQuotasFile));
            if (parsed)
                restored = std::move(*parsed);
            else
                error += (error.empty() ? "" : "; ") + (snap / kQuotasFile).string() + ": " +
                         parsed.error();
        }
        if (auto replaced = broker.client_quotas().replace_all(std::move(restored)); !replaced)
            error += (error.empty() ? "" : "; ") + replaced.error();
        broker.quota_manager().forget_rates();  // traffic from before the restore, as a reset
    }
    // The journal goes last, and only when all of the above worked: until the checkpoints are
    // the restored logs' (not the old state's, whose log start offsets would hide or expose the
    // wrong records) and the ACL and SCRAM files the snapshot's, a crash must still be rolled
    // forward at start-up; after an error here, the next start finishes the restore again.
    if (auto written = broker.logs().checkpoint(); !written)
        error += (error.empty() ? "" : "; ") + written.error().message;
    if (error.empty()) {
        try {
            end_restore(log_dir);
        } catch (const Failure& f) {
            error = f.message;
        }
    } else {
        error += " (the restore is finished again at the next start)";
    }
    if (error.empty())
        spdlog::info("restored snapshot {}", name);
    return error;
}

std::vector<SnapshotInfo> list_snapshots(const Broker& broker) {
    std::vector<SnapshotInfo> out;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(snapshots_root(broker.config().log_dir), ec)) {
        const std::string name = entry.path().filename().string();
        if (entry.is_directory() && !invalid_snapshot_name(name))
            out.push_back(describe(entry.path(), name));
    }
    std::sort(out.begin(), out.end(),
              [](const SnapshotInfo& a, const SnapshotInfo& b) { return a.name < b.name; });
    return out;
}

std::string delete_snapshot(Broker& broker, const std::string& name) {
    if (auto invalid = invalid_snapshot_name(name))
        return *invalid;
    const fs::path root = snapshots_root(broker.logs().log_dir());
    std::error_code ec;
    if (!fs::is_directory(root / name, ec))
        return "no snapshot " + name;
    // Renamed first, so a crash in the middle never leaves a partial snapshot under its name.
    const fs::path doomed = root / (kTmpPrefix + name);
    fs::remove_all(doomed, ec);
    fs::rename(root / name, doomed, ec);
    if (ec)
        return "deleting snapshot " + name + ": " + ec.message();
    fs::remove_all(doomed, ec);
    if (ec)
        return "deleting snapshot " + name + ": " + ec.message();
    return {};
}

std::string finish_interrupted_restore(const fs::path& log_dir) {
    const fs::path root = snapshots_root(log_dir);
    std::error_code ec;
    if (!fs::exists(root / kRestoreJournal, ec)) {
        remove_leftovers(log_dir);
        return {};
    }
    const std::string journal = read_text(root / kRestoreJournal);
    std::string name;
    if (auto at = journal.find("snapshot="); at != std::string::npos)
        name = journal.substr(at + 9, journal.find('\n', at) - at - 9);
    try {
        if (journal.find("phase=switch") != std::string::npos) {
            // The old state away (LogManager::open removes *-delete dirs), all of it.
            for (const auto& dir : partition_dirs(log_dir))
                rename_path(dir, fs::path(dir.string() + ".restore-delete"));
            for (auto& [topic, overrides] : read_all_topic_overrides(log_dir))
                remove_topic_overrides(log_dir, topic);
            fsync_dir(log_dir);
            write_text(root / kRestoreJournal, "snapshot=" + name + "\nphase=move\n");
        }
        // The ACLs, users, group configs and client quotas, which the in-process restore
        // replaces through their stores.
        for (const char* file : {kAclFile, kUsersFile, kGroupConfigsFile, kQuotasFile}) {
            const fs::path from = root / name / file;
            if (fs::exists(from, ec))
                write_text(log_dir / file, read_text(from));
            else if (auto removed = storage::remove_file_durably(log_dir / file); !removed)
                throw Failure{removed.error().message};
        }
        move_staged_in(log_dir);
        // The snapshot's checkpoints, not the old state's: LogManager::open would otherwise
        // give a restored log the log start offset its namesake had (hiding records, or
        // showing ones the snapshot had deleted) and its recovery point. (None in the snapshot:
        // none here either, which costs a full recovery, not a mix.)
        for (const char* file :
             {storage::kRecoveryPointCheckpoint, storage::kLogStartOffsetCheckpoint}) {
            if (fs::exists(root / name / file, ec))
                write_text(log_dir / file, read_text(root / name / file));
            else if (auto removed = storage::remove_file_durably(log_dir / file); !removed)
                throw Failure{removed.error().message};
        }
        end_restore(log_dir);
    } catch (const std::exception& e) {
        return "finishing the restore of snapshot " + name + ": " + e.what();
    } catch (const Failure& f) {
        return "finishing the restore of snapshot " + name + ": " + f.message;
    }
    spdlog::warn("finished the restore of snapshot {} that a crash interrupted", name);
    return {};
}

}  // namespace skiff::broker::control
