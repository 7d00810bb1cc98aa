// The group coordinator (Kafka's GroupCoordinatorService / GroupMetadataManager and
// OffsetMetadataManager): every group this broker coordinates (all of them: skiff is one
// broker), whatever its type. It owns the groups (GroupRegistry), routes each group type's
// requests to that type's protocol (classic/: JoinGroup, SyncGroup, Heartbeat, LeaveGroup), runs
// their timers, and does what every type shares: offset commits and fetches in
// `__consumer_offsets` (OffsetStore), their expiry, DescribeGroups, ListGroups, DeleteGroups and
// OffsetDelete.
//
// Requests that must wait (a JoinGroup until the join phase ends, a follower's SyncGroup until
// the leader's) hand in a callback; it is called exactly once, possibly right away, possibly
// later from another member's request or from tick(). Callbacks run after the coordinator's
// lock is released and must only post work elsewhere (the handlers post to the waiting
// connection's I/O thread), never block.
//
// Time: deadlines (session timeouts, the end of a join phase, pending member ids, the initial
// rebalance delay) are checked by tick(), which start() runs every kTickMs on the io_context;
// unit tests call tick() themselves with a fake clock.
//
// Thread-safety: every public method may be called from any thread. One mutex guards all groups;
// it is held only for in-memory bookkeeping, never across I/O. Offset appends happen outside it
// (the OffsetStore serializes them itself).
#pragma once

#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "broker/group/classic/classic_group.h"
#include "broker/group/classic/classic_protocol.h"
#include "broker/group/consumer/consumer_protocol.h"
#include "broker/group/group.h"
#include "broker/group/group_registry.h"
#include "broker/group/migration.h"
#include "broker/group/offset_store.h"
#include "broker/group/share/share_protocol.h"
#include "broker/share/share_membership.h"
#include "protocol/describe_groups.h"
#include "protocol/list_groups.h"

namespace skiff::broker::group {

class GroupConfigs;

struct CoordinatorConfig {
    int64_t initial_rebalance_delay_ms = 3000;
    int64_t offsets_retention_ms = 10080LL * 60 * 1000;
    int32_t min_session_timeout_ms = 1;
    int32_t max_session_timeout_ms = 1800000;
    consumer::ConsumerConfig consumer;  // group.consumer.*
    share::ShareConfig share;           // group.share.*
    MigrationPolicy migration;          // group.consumer.migration.policy
};

class GroupCoordinator {
  public:
    static constexpr int64_t kTickMs = 100;
    // Monotonic milliseconds for deadlines; wall-clock time for offsets comes from the store.
    using Clock = group::Clock;

    GroupCoordinator(const CoordinatorConfig& config, OffsetStore& offsets, Clock clock = {});

    // Rebuilds the groups whose state the store replayed from __consumer_offsets (classic and
    // consumer groups, see classic/classic_records.h and consumer/consumer_records.h); members'
    // sessions start now, each for its group's session timeout (`configs`: the group configs,
    // null for the broker's). `topics` resolves the topic ids of consumer group records, here
    // and for every record written later. Returns how many groups were restored; a group whose
    // records cannot be read is logged and left out (its offsets stay).
    size_t restore(const TopicView& topics, const GroupConfigs* configs = nullptr);

    // broker/control's reset and restore: forgets every group, without writing anything (the
    // offset store is reopened on another log next, then restore() reads the groups it holds).
    // A JoinGroup or SyncGroup still waiting has its callback dropped uncalled: the caller
    // closed every connection first.
    void clear_groups();

    // Runs tick() every kTickMs on `executor` until its io_context stops. If a tick throws, the
    // error is logged and `on_failure` runs: without ticks sessions never expire.
    void start(const asio::any_io_executor& executor, std::function<void()> on_failure = {});
    void tick();

    // The classic protocol (classic/classic_protocol.h).
    void join(const JoinParams& params, const JoinCallback& done);
    void sync(const SyncParams& params, SyncCallback done);
    protocol::ErrorCode heartbeat(const std::string& group_id, int32_t generation_id,
                                  const std::string& member_id,
                                  const std::optional<std::string>& group_instance_id);
    protocol::ErrorCode leave(const std::string& group_id, const std::string& member_id,
                              const std::optional<std::string>& group_instance_id);

    // The consumer group protocol (consumer/consumer_protocol.h). `topics`: the broker's
    // topics, read under the coordinator's lock.
    consumer::HeartbeatResult consumer_heartbeat(const consumer::HeartbeatParams& params,
                                                 const TopicView& topics);
    consumer::DescribedConsumerGroup consumer_describe(const std::string& group_id) const;
    // The share group protocol (share/share_protocol.h, KIP-932).
    share::HeartbeatResult share_heartbeat(const share::HeartbeatParams& params,
                                           const TopicView& topics);
    share::DescribedShareGroup share_describe(const std::string& group_id) const;
    // ShareFetch / ShareAcknowledge (broker/share/share_membership.h): NONE for a member of the
    // share group, GROUP_ID_NOT_FOUND without such a share group, UNKNOWN_MEMBER_ID otherwise.
    protocol::ErrorCode share_check_member(const std::string& group_id,
                                           const std::string& member_id) const;
    // Told (outside the lock) when a share group's member leaves or is fenced by its session
    // timeout, and when a share group is deleted. Set once, at start-up.
    void set_share_listener(broker::share::ShareMembership::Listener listener);
    // The share groups' ids (group configs' DescribeConfigs of a group needs none of this;
    // metrics do).
    bool is_share_group(const std::string& group_id) const;
    // The share group's member count, nullopt when no (live) share group has this id: the
    // share-offsets admin APIs answer GROUP_ID_NOT_FOUND and NON_EMPTY_GROUP from it.
    std::optional<int32_t> share_group_size(const std::string& group_id) const;

    // OffsetFetch v9+: whether this member of a consumer group may read its offsets (NONE for
    // any other group, and for a fetch without member).
    protocol::ErrorCode validate_offset_fetch(const std::string& group_id,
                                              const std::optional<std::string>& member_id,
                                              int32_t member_epoch) const;

    // Whether this member may commit now (the group's rules, Group::validate_offset_commit).
    // A "simple" commit (generation -1) to an unknown group creates it, an empty classic group
    // as in Kafka; with a generation it is ILLEGAL_GENERATION.
    // `api_version`: the OffsetCommit version (consumer groups refuse v8 and older from their
    // members).
    static constexpr int16_t kNewestOffsetCommitVersion = 10;
    protocol::ErrorCode validate_commit(const std::string& group_id, int32_t generation_id,
                                        const std::string& member_id,
                                        const std::optional<std::string>& group_instance_id,
                                        int16_t api_version = kNewestOffsetCommitVersion);
    OffsetStore& offsets() { return offsets_; }

    // TxnOffsetCommit (Kafka's OffsetMetadataManager.commitTransactionalOffset): validates the
    // group as validate_commit does, except that a commit without generation, member and
    // instance id is accepted in any state and CompletingRebalance does not refuse it; a missing
    // group with generation < 0 becomes an empty simple group. Then `offsets` (already checked
    // per partition by the caller) are written to __consumer_offsets as one transactional batch
    // of the producer and kept pending until complete_transaction. Returns the error every
    // partition of the request gets, or NONE. The producer id is not checked against a
    // transactional id here: AddOffsetsToTxn did that (as in Kafka with transactions V1).
    struct TxnCommitParams {
        std::string group_id;
        int64_t producer_id = -1;
        int16_t producer_epoch = -1;
        int32_t generation_id = -1;
        std::string member_id;
        std::optional<std::string> group_instance_id;
    };
    // `unsynced`, when given, is set to what durable mode appended without syncing: the caller
    // waits for it before it answers (OffsetStore::commit_transactional).
    protocol::ErrorCode txn_offset_commit(const TxnCommitParams& params,
                                          const GroupOffsets& offsets,
                                          OffsetStore::Unsynced* unsynced = nullptr);
    // The transaction marker for __consumer_offsets (called by the transaction coordinator's
    // marker writer): appends the control batch, then applies (commit) or drops (abort) every
    // pending offset of this producer id, in every group. NONE, or the append's error
    // (INVALID_PRODUCER_EPOCH, TRANSACTION_COORDINATOR_FENCED, KAFKA_STORAGE_ERROR, ...).
    // `unsynced` (durable mode): the marker is appended unsynced and its sync handed back there
    // (OffsetStore::complete_transaction); nullptr: flushed on this thread.
    protocol::ErrorCode complete_transaction(int64_t producer_id, int16_t producer_epoch,
                                             int32_t coordinator_epoch, bool commit,
                                             OffsetStore::Unsynced* unsynced = nullptr);
    // Whether a transactional commit of `group` for `tp` awaits its marker (OffsetFetch with
    // require_stable answers UNSTABLE_OFFSET_COMMIT for it).
    bool has_pending(const std::string& group, const storage::TopicPartition& tp) const;

    // Whether a group of any type has this id (one known only from its offsets does not).
    bool contains(const std::string& group_id) const;
    protocol::DescribedGroup describe(const std::string& group_id) const;
    // Members of the group, whatever its type (0 for one known only from its offsets).
    size_t member_count(const std::string& group_id) const;
    std::vector<protocol::ListedGroup> list() const;
    // GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP or NONE (the group and its offsets are gone).
    protocol::ErrorCode delete_group(const std::string& group_id);
    // OffsetDelete (KIP-496). `error` is GROUP_ID_NOT_FOUND for a group neither alive nor with
    // offsets, NON_EMPTY_GROUP for a non-empty group of another protocol type than "consumer";
    // otherwise each partition gets NONE (its offset removed, if it had one) or
    // GROUP_SUBSCRIBED_TO_TOPIC while a member of the group subscribes to its topic.
    struct OffsetDeleteResult {
        protocol::ErrorCode error = protocol::ErrorCode::none;
        std::map<storage::TopicPartition, protocol::ErrorCode> partitions;
    };
    OffsetDeleteResult delete_offsets(const std::string& group_id,
                                      const std::vector<storage::TopicPartition>& partitions);

    // For tests: a classic group's state and generation (nullopt / -1 for none).
    std::optional<ClassicGroupState> state(const std::string& group_id) const;
    int32_t generation(const std::string& group_id) const;

  private:
    // Stages the records of what changed in the group (or in every group, `group_id` empty)
    // since they were last staged; write_staged() appends them once the lock is released.
    void persist_locked(const std::string& group_id);
    void persist_group_locked(Group& g, bool everything);
    // A group that goes (deleted, expired, converted to another type): tombstones for its keys.
    void erase_locked(const std::string& group_id);
    // migration.h: a classic group with members meeting a consumer-protocol join, and a
    // consumer group left with classic members only.
    void maybe_upgrade_locked(const consumer::HeartbeatParams& params, Deferred& deferred);
    void maybe_downgrade_locked(const std::string& group_id, Deferred& deferred);
    void write_staged();
    static int64_t steady_ms();
    static void run(Deferred& deferred);
    void expire_offsets();
    protocol::ErrorCode validate_commit_locked(const std::string& group_id, int32_t generation_id,
                                               const std::string& member_id,
                                               const std::optional<std::string>& group_instance_id,
                                               bool transactional, int16_t api_version);

    CoordinatorConfig config_;
    OffsetStore& offsets_;
    Clock now_;  // the clock given, or steady_ms
    mutable std::mutex mutex_;
    GroupRegistry groups_;
    ClassicProtocol classic_;
    consumer::ConsumerProtocol consumer_;
    share::ShareProtocol share_;
    broker::share::ShareMembership::Listener share_listener_;
    int64_t next_expiry_check_ms_ = 0;
    TopicView topics_;  // from restore(); empty in unit tests that do not call it
    // Set when a write of group records failed: the next persist stages every group's whole
    // state, so the log catches up with memory.
    std::atomic<bool> rewrite_all_{false};
    std::atomic<uint64_t> write_failures_{0};
};

}  // namespace skiff::broker::group
