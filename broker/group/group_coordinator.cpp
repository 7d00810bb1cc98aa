#include "broker/group/group_coordinator.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>
#include <chrono>
#include <memory>
#include <set>

#include "broker/error_mapping.h"
#include "broker/group/classic/classic_records.h"
#include "broker/group/consumer/consumer_records.h"
#include "broker/group/group_configs.h"
#include "broker/group/share/share_records.h"
#include "broker/net/spawn.h"
#include "broker/net/use_tuple.h"
#include "storage/log_config.h"

namespace skiff::broker::group {
namespace {

using protocol::ErrorCode;
constexpr int64_t kOffsetExpiryCheckMs = 60000;
// How long a group without members or offsets stays before it is deleted: Kafka deletes such a
// group at its next cleanup, every offsets.retention.check.interval.ms (600000 by default), so
// this is that interval; a DeleteGroups or a new member within it finds the group.
constexpr int64_t kEmptyGroupLingerMs = 600000;

// What a TxnOffsetCommit answers when its append failed: a stale producer epoch as such, any
// other failure as the coordinator being unavailable (retriable, like a plain commit's).
ErrorCode store_error(storage::StorageErrc e) {
    return e == storage::StorageErrc::invalid_producer_epoch ? ErrorCode::invalid_producer_epoch
                                                             : ErrorCode::coordinator_not_available;
}

ClassicConfig classic_config(const CoordinatorConfig& c) {
    return {.initial_rebalance_delay_ms = c.initial_rebalance_delay_ms,
            .min_session_timeout_ms = c.min_session_timeout_ms,
            .max_session_timeout_ms = c.max_session_timeout_ms};
}

}  // namespace

GroupCoordinator::GroupCoordinator(const CoordinatorConfig& config, OffsetStore& offsets,
                                   Clock clock)
    : config_(config),
      offsets_(offsets),
      now_(clock ? std::move(clock) : Clock(&GroupCoordinator::steady_ms)),
      classic_(classic_config(config), groups_, now_),
      consumer_(config.consumer, groups_, now_),
      share_(config.share, groups_, now_) {}

size_t GroupCoordinator::restore(const TopicView& topics, const GroupConfigs* configs) {
    const GroupRecordMap records = offsets_.group_records();
    std::lock_guard lock(mutex_);
    topics_ = topics;
    const int64_t now = now_();
    auto session_timeout = [&](const std::string& group_id, std::string_view name,
                               int32_t broker_default) {
        auto own = configs ? configs->int_value(group_id, name) : std::nullopt;
        return own.value_or(broker_default);
    };
    size_t restored = 0;
    for (const auto& [group_id, keys] : records) {
        const std::string* classic_value = nullptr;
        bool consumer_records = false;
        bool share_records = false;
        for (const auto& [key, value] : keys) {
            auto type = record_version(record_bytes(key));
            if (!type)
                continue;
            if (*type == GroupMetadataKey::kVersion)
                classic_value = &value;
            else if (consumer::is_consumer_group_record(*type))
                consumer_records = true;
            else if (share::is_share_group_record(*type))
                share_records = true;
        }
        if (groups_.contains(group_id))
            continue;
        if (share_records) {
            auto g = share::restore_share_group(
                group_id, keys, topics,
                session_timeout(group_id, kShareSessionTimeoutMs, config_.share.session_timeout_ms),
                now);
            if (!g) {
                spdlog::error("not restoring share group {}: {}", group_id, g.error());
                continue;
            }
            groups_.add(std::move(*g));
        } else if (consumer_records) {
            auto g = consumer::restore_consumer_group(
                group_id, keys, topics,
                session_timeout(group_id, kConsumerSessionTimeoutMs,
                                config_.consumer.session_timeout_ms),
                now);
            if (!g) {
                spdlog::error("not restoring consumer group {}: {}", group_id, g.error());
                continue;
            }
            groups_.add(std::move(*g));
        } else if (classic_value) {
            auto g = restore_classic_group(group_id, record_bytes(*classic_value), now);
            if (!g) {
                spdlog::error("not restoring group {}: {}", group_id, g.error());
                continue;
            }
            groups_.add(std::move(*g));
        } else {
            continue;  // records of a type skiff does not have (streams groups)
        }
        ++restored;
    }
    if (restored > 0)
        spdlog::info("restored {} group(s) from {}", restored, kOffsetsTopic);
    return restored;
}

void GroupCoordinator::persist_group_locked(Group& g, bool everything) {
    if (g.is_dead())
        return;
    GroupRecords out;
    g.take_records(out, topics_, everything);
    offsets_.stage(g.group_id(), std::move(out));
}

void GroupCoordinator::persist_locked(const std::string& group_id) {
    if (rewrite_all_.exchange(false)) {
        groups_.for_each_mutable([&](Group& g) { persist_group_locked(g, true); });
        return;
    }
    if (group_id.empty()) {
        groups_.for_each_mutable([&](Group& g) { persist_group_locked(g, false); });
        return;
    }
    if (Group* g = groups_.find(group_id))
        persist_group_locked(*g, false);
}

void GroupCoordinator::erase_locked(const std::string& group_id) {
    groups_.erase(group_id);
    offsets_.stage(group_id, {}, /*erase_group=*/true);
}

void GroupCoordinator::maybe_upgrade_locked(const consumer::HeartbeatParams& params,
                                            Deferred& deferred) {
    auto* g = groups_.find_as<ClassicGroup>(params.group_id);
    if (!g || g->is_empty() || g->is_dead() || params.member_epoch != 0 ||
        !config_.migration.upgrade || g->protocol_type != "consumer" ||
        static_cast<int64_t>(g->members.size()) >= config_.consumer.max_size)
        return;  // ConsumerProtocol answers GROUP_ID_NOT_FOUND for a classic group it finds
    auto converted = to_consumer_group(*g, topics_, now_(), deferred);
    if (!converted) {
        spdlog::warn("group {} stays classic: {}", params.group_id, converted.error());
        return;
    }
    spdlog::info(
        "group {}: upgraded from classic (generation {}, {} member(s)) to the consumer "
        "protocol as member {} joins",
        params.group_id, g->generation_id, g->members.size(), params.member_id);
    erase_locked(params.group_id);
    groups_.add(std::move(*converted));
    persist_locked(params.group_id);
}

void GroupCoordinator::maybe_downgrade_locked(const std::string& group_id, Deferred& deferred) {
    auto* g = groups_.find_as<consumer::ConsumerGroup>(group_id);
    if (!g || !config_.migration.downgrade || !only_classic_members(*g))
        return;
    auto classic = to_classic_group(*g, now_());
    spdlog::info(
        "group {}: downgraded to classic at generation {} with {} member(s): its last "
        "consumer-protocol member left",
        group_id, classic->generation_id, classic->members.size());
    erase_locked(group_id);
    ClassicGroup& added = groups_.add(std::move(classic));
    persist_locked(group_id);
    classic_.rebalance(added, "downgraded from the consumer protocol", deferred);
}

void GroupCoordinator::write_staged() {
    auto written = offsets_.write_staged();
    if (written)
        return;
    // Memory stays as it is (the members' answers are right); the log catches up at the next
    // change, when every group's whole state is staged again.
    rewrite_all_ = true;
    if (write_failures_.fetch_add(1) % 1000 == 0)
        spdlog::warn(
            "writing group state to {} failed: {} (membership is served from memory; "
            "a restart now would restore the state written last)",
            kOffsetsTopic, written.error());
}

int64_t GroupCoordinator::steady_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

void GroupCoordinator::run(Deferred& deferred) {
    for (auto& f : deferred)
        f();
}

void GroupCoordinator::clear_groups() {
    Deferred deferred;
    {
        std::lock_guard lock(mutex_);
        // A JoinGroup or SyncGroup waiting in a rebalance is answered, not dropped: its request
        // coroutine would otherwise never resume and keep its connection (closed by the caller)
        // alive for good. COORDINATOR_NOT_AVAILABLE sends a client that still listens back to
        // FindCoordinator, as when a coordinator moves.
        groups_.for_each_mutable([&](Group& g) {
            if (g.type() != ClassicGroup::kType)
                return;
            for (auto& [id, member] : static_cast<ClassicGroup&>(g).members) {
                if (auto join = std::move(member.awaiting_join))
                    deferred.push_back([join = std::move(join)] {
                        JoinResult r;
                        r.error = protocol::ErrorCode::coordinator_not_available;
                        join(std::move(r));
                    });
                if (auto sync = std::move(member.awaiting_sync))
                    deferred.push_back([sync = std::move(sync)] {
                        SyncResult r;
                        r.error = protocol::ErrorCode::coordinator_not_available;
                        sync(std::move(r));
                    });
            }
        });
        groups_.clear();
        rewrite_all_ = false;  // nothing of the old groups is to be written again
    }
    run(deferred);
}

void GroupCoordinator::start(const asio::any_io_executor& executor,
                             std::function<void()> on_failure) {
    auto loop = [this, executor]() -> asio::awaitable<void> {
        asio::steady_timer timer(executor);
        for (;;) {
            timer.expires_after(std::chrono::milliseconds(kTickMs));
            auto [ec] = co_await timer.async_wait(use_tuple);
            if (ec == asio::error::operation_aborted)
                co_return;
            tick();
        }
    };
    // A tick that throws would stop session and rebalance expiry for good: stop the broker.
    spawn(executor, loop, "the group coordinator's timer loop",
          {.on_failure = std::move(on_failure)});
}

void GroupCoordinator::join(const JoinParams& params, const JoinCallback& done) {
    Deferred deferred;
    {
        std::lock_guard lock(mutex_);
        const Group* g = groups_.find(params.group_id);
        if (g && g->type() == GroupType::consumer && g->is_empty()) {
            // An empty consumer group (its members all left) becomes a classic group again, its
            // committed offsets kept, as Kafka converts an empty group. A share group is never
            // converted: it has no offsets, and its share-partitions' state is its own.
            erase_locked(params.group_id);
            g = nullptr;
        }
        if (auto* c = groups_.find_as<consumer::ConsumerGroup>(params.group_id)) {
            // A classic member of a consumer group (online migration, migration.h).
            if (params.session_timeout_ms < config_.min_session_timeout_ms ||
                params.session_timeout_ms > config_.max_session_timeout_ms) {
                JoinResult refused;
                refused.error = ErrorCode::invalid_session_timeout;
                refused.member_id = params.member_id;
                deferred.push_back([done, refused] { done(refused); });
            } else {
                consumer_.classic_join(*c, params, topics_, done, deferred);
                persist_locked(params.group_id);
            }
        } else if (g && g->type() != GroupType::classic) {
            JoinResult refused;
            refused.error = ErrorCode::inconsistent_group_protocol;
            refused.member_id = params.member_id;
            deferred.push_back([done, refused] { done(refused); });
        } else {
            classic_.join(params, done, deferred);
            persist_locked(params.group_id);
        }
    }
    write_staged();
    run(deferred);
}

consumer::HeartbeatResult GroupCoordinator::consumer_heartbeat(
    const consumer::HeartbeatParams& params, const TopicView& topics) {
    consumer::HeartbeatResult result;
    Deferred deferred;
    {
        std::lock_guard lock(mutex_);
        maybe_upgrade_locked(params, deferred);
        const Group* before = groups_.find(params.group_id);
        const bool was_other_type = before && before->type() != GroupType::consumer;
        result = consumer_.heartbeat(params, topics);
        if (was_other_type && groups_.find_as<consumer::ConsumerGroup>(params.group_id))
            offsets_.stage(params.group_id, {}, /*erase_group=*/true);  // converted
        persist_locked(params.group_id);
        maybe_downgrade_locked(params.group_id, deferred);
    }
    write_staged();
    run(deferred);
    return result;
}

consumer::DescribedConsumerGroup GroupCoordinator::consumer_describe(
    const std::string& group_id) const {
    std::lock_guard lock(mutex_);
    return consumer_.describe(group_id);
}

share::HeartbeatResult GroupCoordinator::share_heartbeat(const share::HeartbeatParams& params,
                                                         const TopicView& topics) {
    share::HeartbeatResult result;
    {
        std::lock_guard lock(mutex_);
        result = share_.heartbeat(params, topics);
        persist_locked(params.group_id);
    }
    write_staged();
    if (result.left && share_listener_.member_left)
        share_listener_.member_left(params.group_id, params.member_id);
    return result;
}

share::DescribedShareGroup GroupCoordinator::share_describe(const std::string& group_id) const {
    std::lock_guard lock(mutex_);
    return share_.describe(group_id);
}

ErrorCode GroupCoordinator::share_check_member(const std::string& group_id,
                                               const std::string& member_id) const {
    std::lock_guard lock(mutex_);
    const auto* g = groups_.find_as<share::ShareGroup>(group_id);
    if (!g || g->is_dead())
        return ErrorCode::group_id_not_found;
    return g->member(member_id) ? ErrorCode::none : ErrorCode::unknown_member_id;
}

void GroupCoordinator::set_share_listener(broker::share::ShareMembership::Listener listener) {
    std::lock_guard lock(mutex_);
    share_listener_ = std::move(listener);
}

bool GroupCoordinator::is_share_group(const std::string& group_id) const {
    std::lock_guard lock(mutex_);
    return groups_.find_as<share::ShareGroup>(group_id) != nullptr;
}

std::optional<int32_t> GroupCoordinator::share_group_size(const std::string& group_id) const {
    std::lock_guard lock(mutex_);
    const auto* g = groups_.find_as<share::ShareGroup>(group_id);
    if (!g || g->is_dead())
        return std::nullopt;
    return static_cast<int32_t>(g->member_count());
}

ErrorCode GroupCoordinator::validate_offset_fetch(const std::string& group_id,
                                                  const std::optional<std::string>& member_id,
                                                  int32_t member_epoch) const {
    std::lock_guard lock(mutex_);
    const auto* g = groups_.find_as<consumer::ConsumerGroup>(group_id);
    return g ? g->validate_offset_fetch(member_id, member_epoch) : ErrorCode::none;
}

void GroupCoordinator::sync(const SyncParams& params, SyncCallback done) {
    Deferred deferred;
    {
        std::lock_guard lock(mutex_);
        if (auto* c = groups_.find_as<consumer::ConsumerGroup>(params.group_id)) {
            SyncResult r = consumer_.classic_sync(*c, params);
            deferred.push_back([done = std::move(done), r = std::move(r)] { done(r); });
        } else {
            classic_.sync(params, std::move(done), deferred);
        }
        persist_locked(params.group_id);
    }
    write_staged();
    run(deferred);
}

ErrorCode GroupCoordinator::heartbeat(const std::string& group_id, int32_t generation_id,
                                      const std::string& member_id,
                                      const std::optional<std::string>& group_instance_id) {
    std::lock_guard lock(mutex_);
    if (auto* c = groups_.find_as<consumer::ConsumerGroup>(group_id))
        return consumer_.classic_heartbeat(*c, generation_id, member_id, group_instance_id);
    return classic_.heartbeat(group_id, generation_id, member_id, group_instance_id);
}

ErrorCode GroupCoordinator::leave(const std::string& group_id, const std::string& member_id,
                                  const std::optional<std::string>& group_instance_id) {
    Deferred deferred;
    ErrorCode result = ErrorCode::none;
    {
        std::lock_guard lock(mutex_);
        if (auto* c = groups_.find_as<consumer::ConsumerGroup>(group_id))
            result = consumer_.classic_leave(*c, member_id, group_instance_id);
        else
            result = classic_.leave(group_id, member_id, group_instance_id, deferred);
        persist_locked(group_id);
    }
    write_staged();
    run(deferred);
    return result;
}

void GroupCoordinator::tick() {
    Deferred deferred;
    bool check_offsets = false;
    {
        std::lock_guard lock(mutex_);
        const int64_t t = now_();
        classic_.tick(t, deferred);
        consumer_.tick(t);
        std::vector<std::pair<std::string, std::string>> expired;
        share_.tick(t, expired);
        const auto& fenced = share_listener_.member_fenced ? share_listener_.member_fenced
                                                           : share_listener_.member_left;
        if (fenced)
            for (auto& member : expired)  // (clang 14 cannot capture structured bindings)
                deferred.push_back(
                    [f = fenced, member = std::move(member)] { f(member.first, member.second); });
        std::vector<std::string> consumer_groups;
        groups_.for_each_of<consumer::ConsumerGroup>(
            [&](consumer::ConsumerGroup& g) { consumer_groups.push_back(g.group_id()); });
        persist_locked({});
        for (const auto& id : consumer_groups)
            maybe_downgrade_locked(id, deferred);
        if (t >= next_expiry_check_ms_) {
            next_expiry_check_ms_ = t + kOffsetExpiryCheckMs;
            check_offsets = true;
        }
    }
    write_staged();
    run(deferred);
    if (check_offsets)
        expire_offsets();
}

ErrorCode GroupCoordinator::validate_commit(const std::string& group_id, int32_t generation_id,
                                            const std::string& member_id,
                                            const std::optional<std::string>& group_instance_id,
                                            int16_t api_version) {
    std::lock_guard lock(mutex_);
    return validate_commit_locked(group_id, generation_id, member_id, group_instance_id, false,
                                  api_version);
}

ErrorCode GroupCoordinator::validate_commit_locked(
    const std::string& group_id, int32_t generation_id, const std::string& member_id,
    const std::optional<std::string>& group_instance_id, bool transactional, int16_t api_version) {
    if (group_id.empty())
        return ErrorCode::invalid_group_id;
    Group* g = groups_.find(group_id);
    if (!g) {
        if (generation_id >= 0)
            return ErrorCode::illegal_generation;
        groups_.add(std::make_unique<ClassicGroup>(group_id, storage::wall_clock_ms()));
        return ErrorCode::none;
    }
    return g->validate_offset_commit(generation_id, member_id, group_instance_id, transactional,
                                     api_version, now_());
}

ErrorCode GroupCoordinator::txn_offset_commit(const TxnCommitParams& params,
                                              const GroupOffsets& offsets,
                                              OffsetStore::Unsynced* unsynced) {
    {
        std::lock_guard lock(mutex_);
        ErrorCode e =
            validate_commit_locked(params.group_id, params.generation_id, params.member_id,
                                   params.group_instance_id, true, kNewestOffsetCommitVersion);
        if (e != ErrorCode::none)
            return e;
    }
    if (offsets.empty())
        return ErrorCode::none;
    auto written = offsets_.commit_transactional(params.group_id, params.producer_id,
                                                 params.producer_epoch, offsets);
    if (!written) {
        spdlog::warn("transactional offset commit of group {} (producer {} epoch {}) failed: {}",
                     params.group_id, params.producer_id, params.producer_epoch,
                     written.error().message);
        return store_error(written.error().code);
    }
    if (unsynced)
        *unsynced = *written;
    return ErrorCode::none;
}

ErrorCode GroupCoordinator::complete_transaction(int64_t producer_id, int16_t producer_epoch,
                                                 int32_t coordinator_epoch, bool commit,
                                                 OffsetStore::Unsynced* unsynced) {
    auto done = offsets_.complete_transaction(
        producer_id, producer_epoch, coordinator_epoch, commit,
        unsynced ? storage::Durability::group_commit : storage::Durability::flush_settings);
    if (!done) {
        spdlog::warn("{} marker of producer {} epoch {} on {} failed: {}",
                     commit ? "COMMIT" : "ABORT", producer_id, producer_epoch, kOffsetsTopic,
                     done.error().message);
        return to_error_code(done.error().code);
    }
    if (unsynced)
        *unsynced = *done;
    return ErrorCode::none;
}

bool GroupCoordinator::has_pending(const std::string& group,
                                   const storage::TopicPartition& tp) const {
    return offsets_.has_pending(group, tp);
}

void GroupCoordinator::expire_offsets() {
    std::map<std::string, int64_t> empty_since;
    std::vector<std::string> active;
    {
        std::lock_guard lock(mutex_);
        groups_.for_each([&](const Group& g) {
            if (auto since = g.empty_since())
                empty_since[g.group_id()] = *since;
            else
                active.push_back(g.group_id());
        });
    }
    const int64_t wall = storage::wall_clock_ms();
    size_t n = offsets_.expire([&](const std::string& group, const CommittedOffset& c) {
        if (std::find(active.begin(), active.end(), group) != active.end())
            return false;
        int64_t since = c.commit_timestamp_ms;
        if (auto e = empty_since.find(group); e != empty_since.end())
            since = std::max(since, e->second);
        return wall - since > config_.offsets_retention_ms;
    });
    if (n > 0)
        spdlog::info("expired {} committed offset(s) of empty groups (offsets.retention.minutes)",
                     n);
    // An empty group with no offsets left is deleted, its records with it (Kafka's
    // cleanupGroupMetadata), so that what a restart restores does not grow without bound.
    std::vector<std::string> gone;
    {
        std::lock_guard lock(mutex_);
        groups_.for_each([&](const Group& g) {
            auto since = g.empty_since();
            // A share group has no offsets: its state is its share-partitions', and it goes
            // only by DeleteGroups, as in Kafka.
            if (since && g.type() != GroupType::share && wall - *since >= kEmptyGroupLingerMs &&
                offsets_.group_offsets(g.group_id()).empty())
                gone.push_back(g.group_id());
        });
        for (const auto& id : gone)
            erase_locked(id);
    }
    write_staged();
    if (!gone.empty())
        spdlog::info("deleted {} empty group(s) without committed offsets", gone.size());
}

bool GroupCoordinator::contains(const std::string& group_id) const {
    std::lock_guard lock(mutex_);
    return groups_.contains(group_id);
}

protocol::DescribedGroup GroupCoordinator::describe(const std::string& group_id) const {
    std::lock_guard lock(mutex_);
    if (const Group* g = groups_.find(group_id))
        return g->described();
    protocol::DescribedGroup d;
    d.group_id = group_id;
    d.group_state = offsets_.group_offsets(group_id).empty() ? "Dead" : "Empty";
    return d;
}

size_t GroupCoordinator::member_count(const std::string& group_id) const {
    std::lock_guard lock(mutex_);
    const Group* g = groups_.find(group_id);
    return g ? g->member_count() : 0;
}

std::vector<protocol::ListedGroup> GroupCoordinator::list() const {
    std::vector<protocol::ListedGroup> out;
    auto with_offsets = offsets_.groups();
    std::lock_guard lock(mutex_);
    groups_.for_each([&](const Group& g) {
        if (!g.is_dead())
            out.push_back(g.listed());
    });
    // A group known only from its offsets is what a simple commit leaves: an empty classic group.
    for (const auto& id : with_offsets)
        if (!groups_.contains(id))
            out.push_back({id, "", state_name(ClassicGroupState::empty),
                           std::string(type_name(GroupType::classic))});
    return out;
}

ErrorCode GroupCoordinator::delete_group(const std::string& group_id) {
    // Kafka expires each member at its session deadline; the periodic tick may come up to
    // kTickMs later. A deletion that arrives after the last member's deadline (librdkafka's
    // 0081_admin deletes a group of static members exactly one session timeout after closing
    // them) must find the group empty, so the deadlines are checked first.
    tick();
    std::function<void(const std::string&)> share_deleted;
    {
        std::lock_guard lock(mutex_);
        if (const Group* g = groups_.find(group_id)) {
            if (ErrorCode e = g->validate_delete(); e != ErrorCode::none)
                return e;
            if (g->type() == GroupType::share)
                share_deleted = share_listener_.group_deleted;
            erase_locked(group_id);
        } else if (offsets_.group_offsets(group_id).empty()) {
            return ErrorCode::group_id_not_found;
        }
    }
    write_staged();
    // Its share-partitions' state goes with a share group (Kafka's DeleteShareGroupState).
    if (share_deleted)
        share_deleted(group_id);
    auto removed = offsets_.remove(group_id);
    if (!removed) {
        spdlog::error("deleting the offsets of group {} failed: {}", group_id, removed.error());
        return ErrorCode::kafka_storage_error;
    }
    spdlog::info("group {} deleted with {} committed offset(s)", group_id, *removed);
    return ErrorCode::none;
}

GroupCoordinator::OffsetDeleteResult GroupCoordinator::delete_offsets(
    const std::string& group_id, const std::vector<storage::TopicPartition>& partitions) {
    OffsetDeleteResult result;
    std::vector<storage::TopicPartition> eligible;
    {
        std::lock_guard lock(mutex_);
        const Group* g = groups_.find(group_id);
        if (!g || g->is_empty()) {
            if (!g && offsets_.group_offsets(group_id).empty()) {
                result.error = ErrorCode::group_id_not_found;
                return result;
            }
            eligible = partitions;
        } else if (ErrorCode e = g->validate_offset_delete(); e != ErrorCode::none) {
            result.error = e;
            return result;
        } else {
            const std::set<std::string> subscribed = g->subscribed_topics();
            for (const auto& tp : partitions) {
                if (subscribed.contains(tp.topic))
                    result.partitions[tp] = ErrorCode::group_subscribed_to_topic;
                else
                    eligible.push_back(tp);
            }
        }
    }
    if (!eligible.empty()) {
        auto removed = offsets_.remove(group_id, eligible);
        const ErrorCode outcome = removed ? ErrorCode::none : ErrorCode::kafka_storage_error;
        if (!removed)
            spdlog::error("deleting offsets of group {} failed: {}", group_id, removed.error());
        for (const auto& tp : eligible)
            result.partitions[tp] = outcome;
    }
    return result;
}

std::optional<ClassicGroupState> GroupCoordinator::state(const std::string& group_id) const {
    std::lock_guard lock(mutex_);
    const auto* g = groups_.find_as<ClassicGroup>(group_id);
    if (!g)
        return std::nullopt;
    return g->state;
}

int32_t GroupCoordinator::generation(const std::string& group_id) const {
    std::lock_guard lock(mutex_);
    const auto* g = groups_.find_as<ClassicGroup>(group_id);
    return g ? g->generation_id : -1;
}

}  // namespace skiff::broker::group
