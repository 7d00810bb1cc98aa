#include "storage/log_manager.h"

#include <atomic>
#include <charconv>
#include <thread>

namespace skiff::storage {

namespace fs = std::filesystem;

bool is_valid_topic_name(std::string_view topic) {
    if (topic.empty() || topic.size() > 249 || topic == "." || topic == "..")
        return false;
    for (char c : topic) {
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '_' || c == '-';
        if (!ok)
            return false;
    }
    return true;
}

std::optional<TopicPartition> parse_partition_dir_name(std::string_view name) {
    auto dash = name.rfind('-');
    if (dash == std::string_view::npos || dash == 0 || dash + 1 == name.size())
        return std::nullopt;
    std::string_view number = name.substr(dash + 1);
    int32_t partition = 0;
    auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), partition);
    if (ec != std::errc() || end != number.data() + number.size() || partition < 0)
        return std::nullopt;
    TopicPartition tp{std::string(name.substr(0, dash)), partition};
    if (!is_valid_topic_name(tp.topic))
        return std::nullopt;
    return tp;
}

namespace {

// Runs fn(0) .. fn(count - 1) on `threads` threads (the caller's among them), each taking the
// next index not yet taken; fn returning false stops the others early.
template <class Fn>
void for_each_in_parallel(size_t count, int threads, Fn fn) {
    std::atomic<size_t> next{0};
    std::atomic<bool> failed{false};
    auto work = [&] {
        for (size_t i = next++; i < count && !failed; i = next++)
            if (!fn(i))
                failed = true;
    };
    const size_t n = std::min<size_t>(static_cast<size_t>(std::max(threads, 1)), count);
    std::vector<std::thread> pool;
    for (size_t t = 1; t < n; ++t)
        pool.emplace_back(work);
    work();
    for (auto& t : pool)
        t.join();
}

}  // namespace

Expected<std::unique_ptr<LogManager>, StorageError> LogManager::open(const fs::path& log_dir,
                                                                     LogConfig defaults,
                                                                     Clock clock,
                                                                     int recovery_threads) {
    std::error_code ec;
    fs::create_directories(log_dir, ec);
    if (ec)
        return unexpected(StorageError{StorageErrc::io_error,
                                       "create " + log_dir.string() + ": " + ec.message()});
    std::unique_ptr<LogManager> manager(
        new LogManager(log_dir, std::move(defaults), std::move(clock)));
    fs::path marker = log_dir / kCleanShutdownMarker;
    manager->recovered_cleanly_ = fs::exists(marker);
    auto recovery_points = read_checkpoint(log_dir / kRecoveryPointCheckpoint);
    auto log_starts = read_checkpoint(log_dir / kLogStartOffsetCheckpoint);
    // A corrupt checkpoint only costs a full recovery (recovery point 0); a corrupt log start
    // checkpoint falls back to the first segment's base offset.
    OffsetCheckpoint points = recovery_points ? *recovery_points : OffsetCheckpoint{};
    OffsetCheckpoint starts = log_starts ? *log_starts : OffsetCheckpoint{};
    // The logs the cleaner has ever cleaned (its checkpoint, storage/cleaner): their segments
    // may end before the next begins, which recovery must not take for lost data. An unreadable
    // checkpoint counts as every log cleaned: cutting a compacted log would lose data.
    // (The name is kCleanerOffsetCheckpoint of cleaner_manager.h, which includes this header.)
    auto cleaned = read_checkpoint(log_dir / "cleaner-offset-checkpoint");
    bool clean = manager->recovered_cleanly_ && recovery_points.has_value();
    struct Job {
        TopicPartition tp;
        fs::path dir;
        int64_t recovery_point = 0;
        int64_t log_start_offset = 0;
        std::unique_ptr<PartitionLog> log;
        std::optional<StorageError> error;
        std::optional<TopicId> topic_id;  // from partition.metadata
    };
    std::vector<Job> jobs;
    for (const auto& entry : fs::directory_iterator(log_dir, ec)) {
        if (!entry.is_directory())
            continue;
        if (entry.path().filename().string().ends_with("-delete")) {  // deletion cut short
            std::error_code ignored;
            fs::remove_all(entry.path(), ignored);
            continue;
        }
        auto tp = parse_partition_dir_name(entry.path().filename().string());
        if (!tp)
            continue;
        auto point = points.find(*tp);
        auto start = starts.find(*tp);
        jobs.push_back(Job{*tp, entry.path(), point == points.end() ? 0 : point->second,
                           start == starts.end() ? 0 : start->second, nullptr, std::nullopt,
                           std::nullopt});
    }
    // Topic ids first, before any log is loaded: a disagreement stops the start at once.
    std::map<std::string, const Job*> id_source;  // per topic, the first dir holding an id
    for (auto& job : jobs) {
        auto id = read_partition_metadata(job.dir);
        if (!id)
            return unexpected(StorageError{
                id.error().code,
                "cannot start on log dir " + log_dir.string() + ": " + id.error().message});
        job.topic_id = *id;
        if (!job.topic_id)
            continue;
        auto [first, added] = id_source.emplace(job.tp.topic, &job);
        if (!added && *first->second->topic_id != *job.topic_id)
            return unexpected(StorageError{
                StorageErrc::corrupt,
                "inconsistent topic id in " + job.dir.string() + ": its " + kPartitionMetadataFile +
                    " holds " + to_string(*job.topic_id) + " but " + first->second->dir.string() +
                    " of the same topic holds " + to_string(*first->second->topic_id) +
                    " (a partition of another topic?)"});
    }
    for (auto& [topic, job] : id_source)
        manager->topic_ids_[topic] = *job->topic_id;
    for (auto& job : jobs) {  // written before topic ids existed
        if (job.topic_id)
            continue;
        auto [it, added] = manager->topic_ids_.try_emplace(job.tp.topic, random_topic_id());
        auto written = write_partition_metadata(job.dir, it->second);
        if (!written)
            return unexpected(written.error());
        job.topic_id = it->second;
    }
    manager->recovery_threads_ = std::max(recovery_threads, 1);
    for_each_in_parallel(jobs.size(), manager->recovery_threads_, [&](size_t i) {
        Job& job = jobs[i];
        auto log = PartitionLog::open(job.dir, manager->defaults_, manager->clock_, clean,
                                      job.recovery_point, job.log_start_offset,
                                      !cleaned || cleaned->contains(job.tp));
        if (!log) {
            job.error = log.error();
            return false;
        }
        job.log = std::move(*log);
        return true;
    });
    for (auto& job : jobs) {
        if (job.error)
            return unexpected(*job.error);
        if (!job.log)
            continue;
        const RecoveryStats& st = job.log->recovery_stats();
        manager->recovery_stats_.segments += st.segments;
        manager->recovery_stats_.segments_validated += st.segments_validated;
        manager->recovery_stats_.bytes_validated += st.bytes_validated;
        manager->logs_.emplace(job.tp, std::move(job.log));
    }
    // Removed only now that every log is loaded: a crash from here on must be detected. Durably:
    // a marker back after a power cut would make the next start trust unflushed segments.
    if (auto removed = remove_file_durably(marker); !removed)
        return unexpected(removed.error());
    return manager;
}

PartitionLog* LogManager::get(const TopicPartition& tp) const {
    std::shared_lock lock(mutex_);
    auto it = logs_.find(tp);
    return it == logs_.end() ? nullptr : it->second.get();
}

Expected<PartitionLog*, StorageError> LogManager::get_or_create(const TopicPartition& tp) {
    if (!is_valid_topic_name(tp.topic) || tp.partition < 0)
        return unexpected(StorageError{
            StorageErrc::invalid_argument,
            "invalid topic partition " + tp.topic + "-" + std::to_string(tp.partition)});
    if (auto* log = get(tp))
        return log;
    std::unique_lock lock(mutex_);
    if (auto it = logs_.find(tp); it != logs_.end())
        return it->second.get();
    auto config = topic_configs_.find(tp.topic);
    const fs::path dir = log_dir_ / (tp.topic + "-" + std::to_string(tp.partition));
    auto log = PartitionLog::open(dir, config == topic_configs_.end() ? defaults_ : config->second,
                                  clock_, true);
    if (!log)
        return unexpected(log.error());
    auto known = topic_ids_.find(tp.topic);
    const TopicId id = known == topic_ids_.end() ? random_topic_id() : known->second;
    if (auto written = write_partition_metadata(dir, id); !written)
        return unexpected(written.error());
    topic_ids_[tp.topic] = id;
    PartitionLog* raw = log->get();
    logs_.emplace(tp, std::move(*log));
    return raw;
}

Expected<void, StorageError> LogManager::create_partitions(const std::string& topic, int32_t from,
                                                           int32_t to) {
    if (!is_valid_topic_name(topic) || from < 0 || to < from)
        return unexpected(StorageError{StorageErrc::invalid_argument,
                                       "invalid partitions " + std::to_string(from) + ".." +
                                           std::to_string(to) + " of topic " + topic});
    LogConfig config;
    {
        std::shared_lock lock(mutex_);
        auto it = topic_configs_.find(topic);
        config = it == topic_configs_.end() ? defaults_ : it->second;
    }
    const TopicId id = topic_id_or_new(topic);
    struct Opened {
        TopicPartition tp;
        fs::path dir;
        bool made_dir = false;  // absent before: this call's to remove on failure
        std::unique_ptr<PartitionLog> log;
    };
    std::vector<Opened> opened;
    opened.reserve(static_cast<size_t>(to - from));
    std::optional<StorageError> failure;
    for (int32_t p = from; p < to; ++p) {
        TopicPartition tp{topic, p};
        if (get(tp))
            continue;
        fs::path dir = log_dir_ / (topic + "-" + std::to_string(p));
        std::error_code ec;
        const bool existed = fs::exists(dir, ec);
        // Recorded before the open: a failed open may leave the directory half made.
        opened.push_back(Opened{tp, dir, !existed, nullptr});
        auto log = PartitionLog::open(dir, config, clock_, true);
        if (!log) {
            failure = StorageError{log.error().code, "cannot create partition " +
                                                         std::to_string(p) + " of topic " + topic +
                                                         ": " + log.error().message};
            break;
        }
        opened.back().log = std::move(*log);
        if (auto written = write_partition_metadata(dir, id); !written) {
            failure = StorageError{written.error().code,
                                   "cannot create partition " + std::to_string(p) + " of topic " +
                                       topic + ": " + written.error().message};
            break;
        }
    }
    if (!failure) {
        std::unique_lock lock(mutex_);
        topic_ids_.try_emplace(topic, id);
        for (auto& o : opened)
            logs_.try_emplace(o.tp, std::move(o.log));  // one already there (a race) wins
        return {};
    }
    // Never visible: destroying the logs closes their files without flushing or snapshotting
    // (nothing was written), which also needs no further descriptor.
    size_t made = 0;
    for (auto& o : opened)
        o.log.reset();
    for (auto& o : opened) {
        if (!o.made_dir)
            continue;
        ++made;
        std::error_code ec;
        fs::remove_all(o.dir, ec);
        if (ec)
            failure->message += "; could not remove " + o.dir.string() + ": " + ec.message();
    }
    failure->message += " (" + std::to_string(made) + " partition director" +
                        (made == 1 ? "y" : "ies") + " created by this call removed)";
    return unexpected(*failure);
}

TopicId LogManager::topic_id_or_new(const std::string& topic) const {
    std::shared_lock lock(mutex_);
    auto it = topic_ids_.find(topic);
    return it == topic_ids_.end() ? random_topic_id() : it->second;
}

std::optional<TopicId> LogManager::topic_id(const std::string& topic) const {
    std::shared_lock lock(mutex_);
    auto it = topic_ids_.find(topic);
    if (it == topic_ids_.end())
        return std::nullopt;
    return it->second;
}

std::map<std::string, TopicId> LogManager::topic_ids() const {
    std::shared_lock lock(mutex_);
    return topic_ids_;
}

void LogManager::clear_topic_config(const std::string& topic) {
    std::unique_lock lock(mutex_);
    topic_configs_.erase(topic);
}

void LogManager::set_topic_config(const std::string& topic, LogConfig config) {
    std::unique_lock lock(mutex_);
    for (auto it = logs_.lower_bound({topic, 0}); it != logs_.end() && it->first.topic == topic;
         ++it)
        it->second->update_config(config);
    topic_configs_[topic] = std::move(config);
}

size_t LogManager::remove(const std::string& topic) {
    std::vector<std::unique_ptr<PartitionLog>> taken;
    {
        std::unique_lock lock(mutex_);
        for (auto it = logs_.lower_bound({topic, 0});
             it != logs_.end() && it->first.topic == topic;) {
            taken.push_back(std::move(it->second));
            it = logs_.erase(it);
        }
        topic_configs_.erase(topic);
        topic_ids_.erase(topic);  // created again, it is another topic with another id
    }
    // Closed logs refuse appends; readers still holding slices keep their files open.
    std::vector<Removed> removed;
    for (auto& log : taken) {
        (void)log->close();
        Removed r;
        r.removed_at_ms = clock_ ? clock_() : wall_clock_ms();
        std::error_code ec;
        {
            std::unique_lock lock(mutex_);
            r.renamed_dir =
                fs::path(log->dir().string() + "." + std::to_string(++removals_) + "-delete");
        }
        fs::rename(log->dir(), r.renamed_dir, ec);
        if (ec)  // still try to delete it in place
            r.renamed_dir = log->dir();
        else  // a deleted topic must not come back after a power cut
            (void)fsync_directory(log_dir_);
        r.log = std::move(log);
        removed.push_back(std::move(r));
    }
    std::unique_lock lock(mutex_);
    for (auto& r : removed)
        removed_.push_back(std::move(r));
    return taken.size();
}

std::vector<std::string> LogManager::remove_all() {
    std::map<TopicPartition, std::unique_ptr<PartitionLog>> taken;
    {
        std::unique_lock lock(mutex_);
        taken.swap(logs_);
        topic_configs_.clear();
        topic_ids_.clear();  // created again, a topic is another topic with another id
    }
    std::vector<std::string> topics;
    std::vector<Removed> removed;
    const int64_t now = clock_ ? clock_() : wall_clock_ms();
    for (auto& [tp, log] : taken) {
        if (topics.empty() || topics.back() != tp.topic)
            topics.push_back(tp.topic);
        log->abandon();
        Removed r;
        r.removed_at_ms = now;
        {
            std::unique_lock lock(mutex_);
            r.renamed_dir =
                fs::path(log->dir().string() + "." + std::to_string(++removals_) + "-delete");
        }
        std::error_code ec;
        fs::rename(log->dir(), r.renamed_dir, ec);
        if (ec)  // still try to delete it in place
            r.renamed_dir = log->dir();
        r.log = std::move(log);
        removed.push_back(std::move(r));
    }
    // Once for every rename: no removed topic comes back after a power cut.
    if (!removed.empty())
        (void)fsync_directory(log_dir_);
    std::unique_lock lock(mutex_);
    for (auto& r : removed)
        removed_.push_back(std::move(r));
    return topics;
}

Expected<void, StorageError> LogManager::open_new_partitions(
    const OffsetCheckpoint& recovery_points, const OffsetCheckpoint& log_start_offsets) {
    std::vector<std::pair<TopicPartition, fs::path>> found;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(log_dir_, ec)) {
        if (!entry.is_directory())
            continue;
        auto tp = parse_partition_dir_name(entry.path().filename().string());
        if (tp && !get(*tp))
            found.emplace_back(*tp, entry.path());
    }
    if (ec)
        return unexpected(
            StorageError{StorageErrc::io_error, "list " + log_dir_.string() + ": " + ec.message()});
    std::map<std::string, TopicId> ids;
    for (const auto& [tp, dir] : found) {
        auto id = read_partition_metadata(dir);
        if (!id)
            return unexpected(id.error());
        auto [it, added] = ids.try_emplace(tp.topic, id->value_or(random_topic_id()));
        if (!*id)  // written before topic ids existed
            if (auto written = write_partition_metadata(dir, it->second); !written)
                return unexpected(written.error());
    }
    std::vector<std::pair<TopicPartition, std::unique_ptr<PartitionLog>>> opened;
    for (const auto& [tp, dir] : found) {
        auto point = recovery_points.find(tp);
        auto start = log_start_offsets.find(tp);
        // Flushed up to the recovery point: trusted below it, validated above (an unclean
        // open), and a cleaned log's gaps are expected (offsets_may_have_gaps).
        auto log = PartitionLog::open(dir, defaults_, clock_, point != recovery_points.end(),
                                      point == recovery_points.end() ? 0 : point->second,
                                      start == log_start_offsets.end() ? 0 : start->second, true);
        if (!log)
            return unexpected(log.error());
        opened.emplace_back(tp, std::move(*log));
    }
    std::unique_lock lock(mutex_);
    for (auto& [topic, id] : ids)
        topic_ids_[topic] = id;
    for (auto& [tp, log] : opened)
        logs_.try_emplace(tp, std::move(log));
    return {};
}

void LogManager::delete_removed() {
    // Handlers use a log pointer only within one synchronous step; a minute is ample.
    constexpr int64_t kGraceMs = 60000;
    const int64_t now = clock_ ? clock_() : wall_clock_ms();
    std::vector<Removed> expired;
    std::vector<fs::path> dirs;
    {
        std::unique_lock lock(mutex_);
        for (auto& r : removed_) {
            if (!r.renamed_dir.empty()) {
                dirs.push_back(r.renamed_dir);
                r.renamed_dir.clear();
            }
        }
        for (auto it = removed_.begin(); it != removed_.end();) {
            if (now - it->removed_at_ms >= kGraceMs) {
                expired.push_back(std::move(*it));
                it = removed_.erase(it);
            } else {
                ++it;
            }
        }
    }
    for (const auto& dir : dirs) {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
    for (const auto& r : expired)
        group_commit_->forget(r.log.get());
}

std::vector<std::pair<TopicPartition, PartitionLog*>> LogManager::logs() const {
    std::shared_lock lock(mutex_);
    std::vector<std::pair<TopicPartition, PartitionLog*>> out;
    for (const auto& [tp, log] : logs_)
        out.emplace_back(tp, log.get());
    return out;
}

std::vector<TopicPartition> LogManager::partitions() const {
    std::vector<TopicPartition> out;
    for (auto& [tp, log] : logs())
        out.push_back(tp);
    return out;
}

size_t LogManager::run_retention() {
    size_t deleted = 0;
    for (auto& [tp, log] : logs())
        deleted += log->apply_retention();
    if (deleted > 0)
        (void)checkpoint();  // so a restart never resurrects a deleted range
    return deleted;
}

void LogManager::flush_due() {
    for (auto& [tp, log] : logs())
        log->flush_if_due();
}

LogManager::FlushReport LogManager::flush_rolled() {
    FlushReport report;
    for (auto& [tp, log] : logs()) {
        if (!log->flush_pending())
            continue;
        auto flushed = log->flush_rolled();
        if (!flushed)
            report.errors.push_back(flushed.error().message);
        else if (*flushed)
            ++report.advanced;
    }
    return report;
}

Expected<void, StorageError> LogManager::checkpoint_recovery_points() {
    std::lock_guard lock(checkpoint_mutex_);
    OffsetCheckpoint points;
    for (auto& [tp, log] : logs())
        points[tp] = log->recovery_point();
    return write_checkpoint(log_dir_ / kRecoveryPointCheckpoint, points);
}

Expected<void, StorageError> LogManager::checkpoint_log_start_offsets() {
    std::lock_guard lock(checkpoint_mutex_);
    OffsetCheckpoint starts;
    for (auto& [tp, log] : logs())
        starts[tp] = log->log_start_offset();
    return write_checkpoint(log_dir_ / kLogStartOffsetCheckpoint, starts);
}

Expected<void, StorageError> LogManager::checkpoint() {
    auto a = checkpoint_recovery_points();
    if (!a)
        return a;
    return checkpoint_log_start_offsets();
}

Expected<void, StorageError> LogManager::close() {
    // On the recovery threads, as Kafka closes its logs: each close waits for a few fsyncs
    // (segment, indexes, producer snapshot), so one at a time took 18 s for 10,000 partitions.
    auto logs_now = logs();
    std::vector<std::optional<StorageError>> errors(logs_now.size());
    for_each_in_parallel(logs_now.size(), recovery_threads_, [&](size_t i) {
        if (auto closed = logs_now[i].second->close(); !closed) {
            errors[i] = closed.error();
            return false;
        }
        return true;
    });
    for (auto& error : errors)
        if (error)
            return unexpected(*error);
    auto written = checkpoint();
    if (!written)
        return written;
    // After everything it vouches for is durable, and durable itself: lost, it only costs a full
    // recovery, but written with the rest it is all the next start relies on.
    return write_file_atomically(log_dir_ / kCleanShutdownMarker, "");
}

}  // namespace skiff::storage
