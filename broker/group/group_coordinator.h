// The classic group coordinator (Kafka's GroupCoordinator): JoinGroup, SyncGroup, Heartbeat,
// LeaveGroup, offset commits and the group listing, for every group this broker coordinates
// (all of them: skiff is one broker).
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
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "broker/group/group.h"
#include "broker/group/offset_store.h"
#include "protocol/describe_groups.h"
#include "protocol/list_groups.h"

namespace skiff::broker::group {

struct CoordinatorConfig {
    int64_t initial_rebalance_delay_ms = 3000;
    int64_t offsets_retention_ms = 10080LL * 60 * 1000;
    int32_t min_session_timeout_ms = 1;
    int32_t max_session_timeout_ms = 1800000;
};

struct JoinParams {
    std::string group_id;
    std::string member_id;
    std::optional<std::string> group_instance_id;
    std::string client_id;
    std::string client_host;
    int32_t session_timeout_ms = 0;
    int32_t rebalance_timeout_ms = 0;
    std::string protocol_type;
    ProtocolList protocols;
    bool require_known_member_id = false;   // JoinGroup v4+: MEMBER_ID_REQUIRED round trip
    bool supports_skip_assignment = false;  // JoinGroup v9+ (KIP-814), see replace_static_member
};

struct SyncParams {
    std::string group_id;
    int32_t generation_id = -1;
    std::string member_id;
    std::optional<std::string> group_instance_id;
    std::optional<std::string> protocol_type;
    std::optional<std::string> protocol_name;
    std::map<std::string, std::vector<std::byte>> assignments;  // leader only
};

class GroupCoordinator {
  public:
    static constexpr int64_t kTickMs = 100;
    // Monotonic milliseconds for deadlines; wall-clock time for offsets comes from the store.
    using Clock = std::function<int64_t()>;

    GroupCoordinator(CoordinatorConfig config, OffsetStore& offsets, Clock clock = {});

    // Runs tick() every kTickMs on `executor` until its io_context stops. If a tick throws, the
    // error is logged and `on_failure` runs: without ticks sessions never expire.
    void start(const asio::any_io_executor& executor, std::function<void()> on_failure = {});
    void tick();

    void join(const JoinParams& params, const JoinCallback& done);
    void sync(const SyncParams& params, SyncCallback done);
    protocol::ErrorCode heartbeat(const std::string& group_id, int32_t generation_id,
                                  const std::string& member_id,
                                  const std::optional<std::string>& group_instance_id);
    protocol::ErrorCode leave(const std::string& group_id, const std::string& member_id,
                              const std::optional<std::string>& group_instance_id);

    // Whether this member may commit now (Kafka's rules: a "simple" commit with generation -1
    // only while the group has no members; otherwise a member of the current generation, not
    // during CompletingRebalance). Creates the group for a simple commit to an unknown group.
    protocol::ErrorCode validate_commit(const std::string& group_id, int32_t generation_id,
                                        const std::string& member_id,
                                        const std::optional<std::string>& group_instance_id);
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
    protocol::ErrorCode txn_offset_commit(const TxnCommitParams& params,
                                          const GroupOffsets& offsets);
    // The transaction marker for __consumer_offsets (called by the transaction coordinator's
    // marker writer): appends the control batch, then applies (commit) or drops (abort) every
    // pending offset of this producer id, in every group. NONE, or the append's error
    // (INVALID_PRODUCER_EPOCH, TRANSACTION_COORDINATOR_FENCED, KAFKA_STORAGE_ERROR, ...).
    protocol::ErrorCode complete_transaction(int64_t producer_id, int16_t producer_epoch,
                                             int32_t coordinator_epoch, bool commit);
    // Whether a transactional commit of `group` for `tp` awaits its marker (OffsetFetch with
    // require_stable answers UNSTABLE_OFFSET_COMMIT for it).
    bool has_pending(const std::string& group, const storage::TopicPartition& tp) const;

    protocol::DescribedGroup describe(const std::string& group_id) const;
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

    // For tests.
    std::optional<GroupState> state(const std::string& group_id) const;
    int32_t generation(const std::string& group_id) const;

  private:
    using Deferred = std::vector<std::function<void()>>;
    int64_t now() const { return clock_ ? clock_() : steady_ms(); }
    static int64_t steady_ms();
    std::string new_member_id(const std::string& client_id);

    void join_locked(const JoinParams& p, const JoinCallback& done, Deferred& deferred);
    void join_new_member(Group& g, const JoinParams& p, const JoinCallback& done,
                         Deferred& deferred);
    void join_known_member(Group& g, Member& m, const JoinParams& p, const JoinCallback& done,
                           Deferred& deferred);
    // old_id is a copy on purpose: callers pass an entry of g.static_members, which this rebinds.
    void replace_static_member(Group& g, std::string old_id, const JoinParams& p,
                               const JoinCallback& done, Deferred& deferred);
    void add_member(Group& g, const JoinParams& p, const std::string& member_id, JoinCallback done,
                    Deferred& deferred);
    void update_member(Group& g, Member& m, const JoinParams& p, JoinCallback done);
    // member_id is a copy on purpose: callers pass keys of g's maps, which this erases.
    void remove_member(Group& g, std::string member_id, protocol::ErrorCode why,
                       Deferred& deferred);
    void prepare_rebalance(Group& g, const std::string& reason, Deferred& deferred);
    void maybe_complete_join(Group& g, Deferred& deferred);
    void complete_join(Group& g, Deferred& deferred);
    JoinResult join_result_for(const Group& g, const Member& m) const;
    void expire_offsets();
    protocol::ErrorCode validate_commit_locked(const std::string& group_id, int32_t generation_id,
                                               const std::string& member_id,
                                               const std::optional<std::string>& group_instance_id,
                                               bool transactional);

    CoordinatorConfig config_;
    OffsetStore& offsets_;
    Clock clock_;
    mutable std::mutex mutex_;
    std::map<std::string, Group> groups_;
    std::mt19937_64 random_{std::random_device{}()};
    int64_t next_expiry_check_ms_ = 0;
};

}  // namespace skiff::broker::group
