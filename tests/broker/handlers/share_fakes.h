// Fakes of the share-group seams (broker/share/*.h) for the ShareFetch, ShareAcknowledge and
// share-offsets admin handler tests: the real ones (the membership, the share-partition state
// machine) are tested in their own folders. The fake manager hands out offsets in order from
// the log start (share.auto.offset.reset=earliest), acquires whole batches (overshooting
// max_records by at most one batch, as batch-optimized mode may), and accepts an
// acknowledgement only of offsets the member holds (else INVALID_RECORD_STATE, nothing
// changed), which is the contract the handlers rely on.
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "broker/share/share_membership.h"
#include "broker/share/share_partition_manager.h"
#include "protocol/error_code.h"
#include "protocol/record_batch.h"
#include "protocol/record_builder.h"
#include "storage/partition_log.h"

namespace skiff::broker::test {

class FakeShareMembership : public share::ShareMembership {
  public:
    protocol::ErrorCode check_member(const std::string& group_id,
                                     const std::string& member_id) const override {
        auto g = groups.find(group_id);
        if (g == groups.end())
            return protocol::ErrorCode::group_id_not_found;
        return g->second.contains(member_id) ? protocol::ErrorCode::none
                                             : protocol::ErrorCode::unknown_member_id;
    }
    share::ShareGroupConfig config(const std::string&) const override { return group_config; }
    void set_listener(Listener l) override { listener = std::move(l); }
    std::optional<int32_t> share_group_size(const std::string& group_id) const override {
        auto g = groups.find(group_id);
        if (g == groups.end())
            return std::nullopt;
        return static_cast<int32_t>(g->second.size());
    }

    std::map<std::string, std::set<std::string>> groups;
    share::ShareGroupConfig group_config;
    Listener listener;
};

class FakeSharePartitionManager : public share::SharePartitionManager {
  public:
    struct State {
        int64_t next = 0;
        std::map<int64_t, std::string> acquired;  // offset -> member
        std::map<int64_t, int8_t> acknowledged;   // offset -> type
    };
    using Key = std::tuple<std::string, std::string, int32_t>;
    static Key key_of(const share::SharePartitionKey& k) {
        return {k.group_id, k.tp.topic, k.tp.partition};
    }

    std::optional<int64_t> next_fetch_offset(const share::SharePartitionKey& key,
                                             const share::ShareGroupConfig&,
                                             const share::LogBounds& bounds, int64_t) override {
        auto [it, created] = states.try_emplace(key_of(key));
        if (created)
            it->second.next = bounds.log_start_offset;
        if (it->second.next >= bounds.read_end_offset)
            return std::nullopt;
        return it->second.next;
    }

    std::vector<share::AcquiredRecords> acquire(const share::SharePartitionKey& key,
                                                const std::string& member_id,
                                                std::span<const share::FetchedBatch> batches,
                                                int32_t max_records, const share::ShareGroupConfig&,
                                                int64_t, share::UnsyncedWrites& unsynced) override {
        write_state(unsynced);
        offered.assign(batches.begin(), batches.end());
        last_max_records = max_records;
        auto& s = states[key_of(key)];
        std::vector<share::AcquiredRecords> out;
        int64_t count = 0;
        for (const auto& b : batches) {
            if (count >= max_records)
                break;
            if (b.skip) {
                s.next = std::max(s.next, b.last_offset + 1);
                continue;
            }
            for (int64_t o = std::max(b.base_offset, s.next); o <= b.last_offset; ++o) {
                s.acquired[o] = member_id;
                ++count;
                if (!out.empty() && out.back().last_offset + 1 == o)
                    out.back().last_offset = o;
                else
                    out.push_back({o, o, 1});
            }
            s.next = std::max(s.next, b.last_offset + 1);
        }
        return out;
    }

    protocol::ErrorCode acknowledge(const share::SharePartitionKey& key,
                                    const std::string& member_id,
                                    std::span<const share::AcknowledgementBatch> batches,
                                    const share::ShareGroupConfig&, int64_t,
                                    share::UnsyncedWrites& unsynced) override {
        ++acknowledge_calls;
        write_state(unsynced);
        auto& s = states[key_of(key)];
        for (const auto& b : batches)
            for (int64_t o = b.first_offset; o <= b.last_offset; ++o) {
                auto a = s.acquired.find(o);
                if (a == s.acquired.end() || a->second != member_id)
                    return protocol::ErrorCode::invalid_record_state;
            }
        for (const auto& b : batches)
            for (int64_t o = b.first_offset; o <= b.last_offset; ++o) {
                s.acquired.erase(o);
                s.acknowledged[o] = b.types.size() == 1
                                        ? b.types[0]
                                        : b.types.at(static_cast<size_t>(o - b.first_offset));
            }
        return protocol::ErrorCode::none;
    }

    void release_member(const std::string& group_id, const std::string& member_id,
                        int64_t) override {
        released.push_back(group_id + "/" + member_id);
        for (auto& [k, s] : states) {
            if (std::get<0>(k) != group_id)
                continue;
            for (auto it = s.acquired.begin(); it != s.acquired.end();) {
                if (it->second == member_id) {
                    s.next = std::min(s.next, it->first);
                    it = s.acquired.erase(it);
                } else {
                    ++it;
                }
            }
        }
    }
    void delete_group(const std::string&) override {}
    void tick(int64_t) override {}
    std::vector<PartitionStats> stats() const override { return {}; }

    std::map<storage::TopicPartition, PartitionOffset> describe_offsets(
        const std::string& group_id,
        const std::vector<storage::TopicPartition>& partitions) override {
        std::map<storage::TopicPartition, PartitionOffset> out;
        for (const auto& tp : partitions) {
            auto s = states.find({group_id, tp.topic, tp.partition});
            if (s != states.end())
                out[tp] = {protocol::ErrorCode::none, s->second.next, -1, 0};
        }
        return out;
    }
    std::vector<storage::TopicPartition> partitions_with_state(
        const std::string& group_id) override {
        std::vector<storage::TopicPartition> out;
        for (const auto& [k, s] : states)
            if (std::get<0>(k) == group_id)
                out.push_back({std::get<1>(k), std::get<2>(k)});
        return out;
    }
    std::map<storage::TopicPartition, protocol::ErrorCode> alter_offsets(
        const std::string& group_id,
        const std::map<storage::TopicPartition, int64_t>& offsets) override {
        std::map<storage::TopicPartition, protocol::ErrorCode> out;
        for (const auto& [tp, o] : offsets) {
            State fresh;
            fresh.next = o;
            states[{group_id, tp.topic, tp.partition}] = std::move(fresh);
            out[tp] = protocol::ErrorCode::none;
        }
        return out;
    }
    std::map<storage::TopicPartition, protocol::ErrorCode> delete_offsets(
        const std::string& group_id,
        const std::vector<storage::TopicPartition>& partitions) override {
        std::map<storage::TopicPartition, protocol::ErrorCode> out;
        for (const auto& tp : partitions) {
            states.erase({group_id, tp.topic, tp.partition});
            out[tp] = protocol::ErrorCode::none;
        }
        return out;
    }

    // The state of one share-partition (made empty if none): a call without braces, so that
    // it can stand in a gtest macro.
    State& state(const std::string& group, const std::string& topic, int32_t partition) {
        return states[Key{group, topic, partition}];
    }

    std::map<Key, State> states;
    std::vector<std::string> released;  // "group/member", in order
    // Durable mode's writes, as the real manager's: with a log set, acquire() and acknowledge()
    // append one record to it without a sync and hand it back for the request to wait for.
    storage::PartitionLog* state_log = nullptr;
    void write_state(share::UnsyncedWrites& unsynced) {
        if (!state_log)
            return;
        const auto batch = protocol::build_record_batch({}, {{std::nullopt, std::string("s")}});
        auto summaries = protocol::validate_batches(batch);
        auto appended = state_log->append(batch, *summaries, storage::AppendOrigin::client,
                                          storage::Durability::group_commit);
        if (appended && appended->sync_pending)
            unsynced.push_back({state_log, appended->last_offset + 1});
    }
    std::vector<share::FetchedBatch> offered;  // the batches of the last acquire()
    int32_t last_max_records = 0;
    int acknowledge_calls = 0;
};

}  // namespace skiff::broker::test
