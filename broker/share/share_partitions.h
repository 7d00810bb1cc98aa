// The broker's SharePartitionManager (share_partition_manager.h): every share-partition's state
// (share_partition.h) in memory, each behind its own lock so that fetches of different
// share-partitions never wait for each other, made durable in __share_group_state through the
// persister (share_state_store.h).
//
// Durability: every call that changes a share-partition writes one record for it before it
// returns: a ShareUpdate with the state batches the change touched and the start offset, or,
// every `snapshot_update_records` updates, a ShareSnapshot with the whole state. Acquisitions
// are written too (their delivery counts, the records as available), so a crash while records
// are acquired still counts those deliveries, and the records are available again after it.
// Lock renewals are not written (locks do not survive the broker). The first read of a
// share-partition writes its initial snapshot (Kafka's InitializeShareGroupState).
//
// A failed write leaves the memory ahead of the log: acquire() then returns nothing (the records
// stay locked until their lock expires, then go back, as if the consumer had vanished),
// acknowledge() returns UNKNOWN_SERVER_ERROR, and the share-partition's next write is a whole
// snapshot, which catches the log up.
//
// Thread-safety: every method may be called from any thread. The map of share-partitions has one
// mutex, held only to find, add or remove an entry; each share-partition has its own, held for
// its operation and its write (so its records are in the log in the order of its changes). Lock
// order: a share-partition's mutex before the map's (removal happens under both).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "broker/share/share_partition.h"
#include "broker/share/share_partition_manager.h"
#include "broker/share/share_state_store.h"
#include "protocol/expected.h"

namespace skiff::broker::share {

// Topics by name and by id, and a partition's high watermark (for lag): the broker's topic
// registry and logs, or a test's fakes.
struct ShareTopicLookup {
    std::function<std::optional<protocol::Uuid>(const std::string& topic)> id;
    std::function<std::optional<std::string>(const protocol::Uuid& id)> name;
    std::function<std::optional<int64_t>(const storage::TopicPartition& tp)> high_watermark;
};

struct SharePartitionsConfig {
    // share.coordinator.snapshot.update.records.per.snapshot
    int32_t snapshot_update_records = 500;
    // How often tick() prunes __share_group_state (Kafka's
    // share.coordinator.state.topic.prune.interval.ms default, 5 minutes).
    int64_t prune_interval_ms = int64_t{5} * 60 * 1000;
    std::function<int64_t()> clock_ms;  // for record timestamps; wall clock when empty
};

class SharePartitions final : public SharePartitionManager {
  public:
    // Replays the existing partitions of __share_group_state.
    static Expected<std::unique_ptr<SharePartitions>, std::string> open(
        ShareStateLogs logs, SharePartitionsConfig config, ShareTopicLookup topics);
    // broker/control's reset and restore: forgets everything and replays `logs` instead.
    Expected<void, std::string> reopen(ShareStateLogs logs);

    std::optional<int64_t> next_fetch_offset(const SharePartitionKey& key,
                                             const ShareGroupConfig& config,
                                             const LogBounds& bounds, int64_t now_ms) override;
    std::vector<AcquiredRecords> acquire(const SharePartitionKey& key, const std::string& member_id,
                                         std::span<const FetchedBatch> batches, int32_t max_records,
                                         const ShareGroupConfig& config, int64_t now_ms,
                                         UnsyncedWrites& unsynced) override;
    protocol::ErrorCode acknowledge(const SharePartitionKey& key, const std::string& member_id,
                                    std::span<const AcknowledgementBatch> batches,
                                    const ShareGroupConfig& config, int64_t now_ms,
                                    UnsyncedWrites& unsynced) override;
    void release_member(const std::string& group_id, const std::string& member_id,
                        int64_t now_ms) override;
    void delete_group(const std::string& group_id) override;
    void tick(int64_t now_ms) override;
    std::vector<PartitionStats> stats() const override;

    std::map<storage::TopicPartition, PartitionOffset> describe_offsets(
        const std::string& group_id,
        const std::vector<storage::TopicPartition>& partitions) override;
    std::vector<storage::TopicPartition> partitions_with_state(
        const std::string& group_id) override;
    std::map<storage::TopicPartition, protocol::ErrorCode> alter_offsets(
        const std::string& group_id,
        const std::map<storage::TopicPartition, int64_t>& offsets) override;
    std::map<storage::TopicPartition, protocol::ErrorCode> delete_offsets(
        const std::string& group_id,
        const std::vector<storage::TopicPartition>& partitions) override;

    // For tests and tooling.
    int64_t records_written() const;
    int64_t snapshots_written() const;
    size_t share_partition_count() const;

  private:
    SharePartitions(ShareStateLogs logs, SharePartitionsConfig config, ShareTopicLookup topics)
        : store_(std::move(logs)), config_(std::move(config)), topics_(std::move(topics)) {}

    struct Entry {
        explicit Entry(int64_t start) : state(start) {}
        mutable std::mutex mutex;
        std::string group_id;
        storage::TopicPartition tp;  // topic empty when the id's name is not known
        protocol::Uuid topic_id;
        int32_t log_partition = -1;  // of __share_group_state; -1 until the first write
        SharePartition state;
        int32_t state_epoch = 0;
        int32_t snapshot_epoch = 0;
        int64_t create_timestamp_ms = 0;
        int32_t updates_since_snapshot = 0;
        int64_t snapshot_offset = -1;      // of the latest snapshot in its log partition
        bool snapshot_due = false;         // after a failed write
        bool deleted = false;              // removed from the map: a late caller must look again
        int16_t delivery_count_limit = 5;  // the group's, as last seen (for tick())
        int64_t read_end_offset = -1;      // as last seen (lag, when no high watermark)
    };
    struct Id {
        std::string group_id;
        protocol::Uuid topic_id;
        int32_t partition = 0;
    };
    struct IdView {
        std::string_view group_id;
        const protocol::Uuid* topic_id;
        int32_t partition;
    };
    struct IdLess {
        using is_transparent = void;
        static IdView view(const Id& id) { return {id.group_id, &id.topic_id, id.partition}; }
        static IdView view(const IdView& v) { return v; }
        template <class A, class B>
        bool operator()(const A& a, const B& b) const {
            const IdView x = view(a), y = view(b);
            if (x.group_id != y.group_id)
                return x.group_id < y.group_id;
            if (x.topic_id->bytes != y.topic_id->bytes)
                return x.topic_id->bytes < y.topic_id->bytes;
            return x.partition < y.partition;
        }
    };
    using EntryMap = std::map<Id, std::shared_ptr<Entry>, IdLess>;

    int64_t now_ms() const;
    Expected<void, std::string> replay();
    Expected<void, std::string> replay_locked();  // map_mutex_ held
    std::shared_ptr<Entry> find(const SharePartitionKey& key) const;
    std::shared_ptr<Entry> find(const std::string& group, const protocol::Uuid& topic_id,
                                int32_t partition) const;
    // The entry, created (not yet written) with `start` when missing.
    std::shared_ptr<Entry> find_or_add(const std::string& group, const storage::TopicPartition& tp,
                                       const protocol::Uuid& topic_id, int64_t start, bool& added);
    void erase(const Entry& e);
    std::vector<std::shared_ptr<Entry>> entries_of(const std::string& group) const;
    MemberRef member_ref(const std::string& member_id, bool add);

    // The one record of a change (entry locked). `window`: the offsets it touched.
    // `unsynced`: see UnsyncedWrites; null for the writes that sync as they go (ticks, releases,
    // the initial snapshot).
    Expected<void, std::string> persist(Entry& e, const Window& window, int64_t now_ms,
                                        UnsyncedWrites* unsynced = nullptr);
    Expected<void, std::string> write_snapshot(Entry& e, int64_t now_ms,
                                               UnsyncedWrites* unsynced = nullptr);
    Expected<void, std::string> resolve_log_partition(Entry& e);
    int64_t start_offset_for(const ShareGroupConfig& config, const LogBounds& bounds,
                             int64_t now_ms) const;
    void prune();

    ShareStateStore store_;
    SharePartitionsConfig config_;
    ShareTopicLookup topics_;
    mutable std::mutex map_mutex_;
    EntryMap entries_;
    std::mutex members_mutex_;
    std::unordered_map<std::string, MemberRef> members_;
    MemberRef last_member_ref_ = 0;
    std::mutex tick_mutex_;
    std::vector<std::shared_ptr<Entry>> tick_entries_;  // reused by tick()
    int64_t next_prune_ms_ = 0;
    std::atomic<int64_t> records_written_{0};
    std::atomic<int64_t> snapshots_written_{0};
};

}  // namespace skiff::broker::share
