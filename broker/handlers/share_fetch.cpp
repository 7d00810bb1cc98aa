// ShareFetch (78): a share consumer's fetch (KIP-932). In order, as Kafka's KafkaApis: the
// request's own checks (group and member ids, v2's acquire mode and renew rules, no
// acknowledgements when opening a session), READ on the group, the member (ShareMembership), the
// share session (share/share_session_cache.h), the topics (UNKNOWN_TOPIC_ID, READ on each), then
// the piggy-backed acknowledgements, and only then the fetch: for each partition of the session
// the share-partition says where to read, the log is read from there as Fetch reads it (file
// ranges sent with sendfile, read_committed up to the last stable offset), the batches read are
// handed to acquire(), and the answer carries the batches up to the last one with acquired
// records, with the acquired offset ranges beside them. Nothing acquired: a long poll, as Fetch's.
#include <unistd.h>

#include <algorithm>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <chrono>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "broker/broker.h"
#include "broker/error_mapping.h"
#include "broker/handlers/client_quota_throttle.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/leader_hints.h"
#include "broker/handlers/share_request.h"
#include "broker/net/use_tuple.h"
#include "broker/security/authorize.h"
#include "protocol/record_batch.h"

namespace skiff::broker {
// Named rather than anonymous: unity builds put this file in one unit with fetch.cpp.
namespace share_fetch_detail {

using protocol::ErrorCode;
using protocol::ShareFetchPartitionData;
using protocol::ShareFetchRequest;
using protocol::ShareFetchResponse;
using share::SessionPartition;

constexpr int32_t kLeaderEpoch = 0;  // one broker, never a leader change
constexpr int8_t kBatchOptimized = 0;
constexpr int8_t kRecordLimit = 1;

ShareFetchResponse failed(ErrorCode error, const char* message = nullptr) {
    ShareFetchResponse resp;
    resp.error_code = error;
    if (message)
        resp.error_message = message;
    return resp;
}

// The response's entry for a partition, made on first use (a share fetch answers only the
// partitions with records, errors or acknowledgements).
ShareFetchPartitionData& slot(ShareFetchResponse& resp, const protocol::Uuid& topic_id,
                              int32_t partition) {
    auto t = std::find_if(resp.responses.begin(), resp.responses.end(),
                          [&](const auto& r) { return r.topic_id == topic_id; });
    if (t == resp.responses.end()) {
        resp.responses.push_back({.topic_id = topic_id, .partitions = {}});
        t = resp.responses.end() - 1;
    }
    auto p = std::find_if(t->partitions.begin(), t->partitions.end(),
                          [&](const auto& d) { return d.partition_index == partition; });
    if (p != t->partitions.end())
        return *p;
    ShareFetchPartitionData& d = t->partitions.emplace_back();
    d.partition_index = partition;
    return d;
}

// One batch of a read: where it is in which slice, and what acquire() sees of it.
struct ReadBatch {
    size_t slice = 0;
    int64_t position = 0;
    int64_t size = 0;
    share::FetchedBatch offsets;
};

// The batch headers of a read, one pread of a header per batch (never per record). With
// read_committed the aborted transactions' batches are marked `skip` as a consumer drops them
// (a producer's batches from its aborted transaction's first offset up to its marker), and
// control batches always are. False when a header cannot be read (a segment truncated since).
bool batches_of(const storage::ReadResult& read, bool read_committed, std::vector<ReadBatch>& out) {
    out.clear();
    thread_local std::vector<int64_t> aborting;  // producers inside an aborted transaction
    aborting.clear();
    size_t next_aborted = 0;
    std::byte header[protocol::kBatchHeaderSize];
    for (size_t s = 0; s < read.slices.size(); ++s) {
        const auto& slice = read.slices[s];
        int64_t pos = slice.position;
        const int64_t end = slice.position + slice.length;
        while (pos + static_cast<int64_t>(sizeof header) <= end) {
            if (::pread(slice.fd, header, sizeof header, static_cast<off_t>(pos)) !=
                static_cast<ssize_t>(sizeof header))
                return false;
            const auto h = protocol::read_batch_header(header);
            const auto size = static_cast<int64_t>(h.size_bytes());
            if (size <= 0 || pos + size > end)
                break;
            ReadBatch b{.slice = s,
                        .position = pos,
                        .size = size,
                        .offsets = {h.base_offset, h.last_offset(), false}};
            if (read_committed) {
                while (next_aborted < read.aborted.size() &&
                       read.aborted[next_aborted].first_offset <= h.last_offset())
                    aborting.push_back(read.aborted[next_aborted++].producer_id);
                const auto p = std::find(aborting.begin(), aborting.end(), h.producer_id);
                if (h.is_control()) {
                    if (p != aborting.end())
                        aborting.erase(p);
                } else if (h.is_transactional() && p != aborting.end()) {
                    b.offsets.skip = true;
                }
            }
            if (h.is_control())
                b.offsets.skip = true;
            out.push_back(b);
            pos += size;
        }
    }
    return true;
}

// What one pass over the session's partitions gave.
struct Pass {
    int64_t bytes = 0;
    int64_t acquired = 0;  // offsets acquired
    bool has_error = false;
};

struct FetchScope {
    RequestContext& ctx;
    const ShareFetchRequest& req;
    const std::string& group_id;
    const std::string& member_id;
    const share::ShareGroupConfig& config;
    share::SharePartitionManager& partitions;
    const std::vector<SessionPartition>& session;
    share::UnsyncedWrites& unsynced;  // durable mode's acquisitions, answered once synced
    bool record_limit = false;
    // The most one answer may hold under the client's consumer_byte_rate (docs/quotas.md).
    int64_t quota_cap = std::numeric_limits<int64_t>::max();
};

// Where a share-partition may read in its log: from the log start to the high watermark (the
// last stable offset for read_committed), and how to find an offset by time for
// share.auto.offset.reset=by_duration.
share::LogBounds bounds_of(storage::PartitionLog& log, const share::ShareGroupConfig& config) {
    return {
        .log_start_offset = log.log_start_offset(),
        .read_end_offset = config.read_committed ? log.last_stable_offset() : log.high_watermark(),
        .offset_for_time = [&log](int64_t ts) -> std::optional<int64_t> {
            auto found = log.offset_for_timestamp(ts);
            if (!found)
                return std::nullopt;
            return found->offset;
        }};
}

// Where one partition of the session stands: its log and the offset its share-partition reads
// next, or why it cannot be read. fetch_all and bytes_waiting both start each partition here.
struct Located {
    ErrorCode error = ErrorCode::none;
    storage::PartitionLog* log = nullptr;
    share::SharePartitionKey key;
    share::LogBounds bounds;
    std::optional<int64_t> next;  // the next offset to acquire; nullopt: none yet

    bool has_records() const { return next && *next < bounds.read_end_offset; }
};

Located locate(const FetchScope& f, const SessionPartition& sp, int64_t now) {
    Located at;
    auto topic = resolve_share_topic(f.ctx, sp.topic_id);
    if (topic.error != ErrorCode::none) {
        at.error = topic.error;
        return at;
    }
    at.log = f.ctx.broker.logs().get({topic.name, sp.partition});
    if (!at.log) {
        at.error = ErrorCode::unknown_topic_or_partition;
        return at;
    }
    at.key = {f.group_id, {topic.name, sp.partition}, sp.topic_id};
    at.bounds = bounds_of(*at.log, f.config);
    at.next = f.partitions.next_fetch_offset(at.key, f.config, at.bounds, now);
    return at;
}

// Reads and acquires for every partition of the session; answers into `resp`.
Pass fetch_all(const FetchScope& f, ShareFetchResponse& resp) {
    Pass pass;
    // Unlike Fetch (KIP-74: the first batch goes whatever the limit), a ShareFetch with
    // max_bytes 0 gets no records, as Kafka answers it (librdkafka 2.15's 0180 pins this).
    if (f.req.max_bytes <= 0)
        return pass;
    int64_t budget = std::min<int64_t>(f.req.max_bytes, f.quota_cap);
    const int32_t max_records = f.req.max_records > 0 ? f.req.max_records : 1;
    const auto isolation = f.config.read_committed ? storage::Isolation::read_committed
                                                   : storage::Isolation::read_uncommitted;
    thread_local std::vector<ReadBatch> batches;
    thread_local std::vector<share::FetchedBatch> offered;
    for (const SessionPartition& sp : f.session) {
        if (pass.acquired >= max_records)
            break;
        const int64_t now = share_now_ms();
        const Located at = locate(f, sp, now);
        if (at.error != ErrorCode::none) {
            slot(resp, sp.topic_id, sp.partition).error_code = at.error;
            pass.has_error = true;
            continue;
        }
        if (!at.has_records())
            continue;
        const int64_t next = *at.next;
        // KIP-74 as Fetch: the first partition with data may exceed max_bytes by one batch.
        auto read = at.log->read(next, budget, pass.bytes == 0, isolation);
        if (!read) {
            slot(resp, sp.topic_id, sp.partition).error_code = to_error_code(read.error().code);
            pass.has_error = true;
            continue;
        }
        if (!batches_of(*read, f.config.read_committed, batches)) {
            slot(resp, sp.topic_id, sp.partition).error_code = ErrorCode::unknown_server_error;
            pass.has_error = true;
            continue;
        }
        const int64_t left = max_records - pass.acquired;
        offered.clear();
        for (const auto& b : batches) {
            share::FetchedBatch o = b.offsets;
            // Record-limit mode (v2): never more offsets offered than may be acquired, so the
            // manager cannot overshoot max_records with a whole batch.
            if (f.record_limit) {
                const int64_t window_end = next + left - 1;
                if (o.base_offset > window_end)
                    break;
                o.last_offset = std::min(o.last_offset, window_end);
            }
            offered.push_back(o);
        }
        auto acquired = f.partitions.acquire(at.key, f.member_id, offered,
                                             static_cast<int32_t>(left), f.config, now, f.unsynced);
        if (acquired.empty())
            continue;
        const int64_t first = acquired.front().first_offset;
        const int64_t last = acquired.back().last_offset;
        auto& out = slot(resp, sp.topic_id, sp.partition);
        // Only the batches holding acquired records; each slice's are contiguous in its file.
        for (const auto& b : batches) {
            if (b.offsets.last_offset < first || b.offsets.base_offset > last)
                continue;
            auto& ranges = out.records.file_ranges;
            const auto& slice = read->slices[b.slice];
            if (!ranges.empty() && ranges.back().fd == slice.fd &&
                ranges.back().position + ranges.back().length == b.position) {
                ranges.back().length += b.size;
            } else {
                ranges.push_back({slice.fd, b.position, b.size, slice.keepalive});
            }
        }
        // batch_size: the acquired ranges in pieces of at most that many offsets, the
        // granularity the client acknowledges in (Kafka's acquired batches).
        const int64_t piece =
            f.req.batch_size > 0 ? f.req.batch_size : std::numeric_limits<int64_t>::max();
        int64_t acquired_here = 0;
        for (const auto& a : acquired) {
            acquired_here += a.last_offset - a.first_offset + 1;
            for (int64_t from = a.first_offset; from <= a.last_offset;) {
                const int64_t to = std::min(a.last_offset, from + piece - 1);
                out.acquired_records.push_back({from, to, a.delivery_count});
                from = to + 1;
            }
        }
        const int64_t size = out.records.size_bytes();
        // /metrics' fetched records and bytes count share consumers too (the records acquired).
        auto& traffic = at.log->traffic();
        storage::PartitionTraffic::add(traffic.records_fetched,
                                       static_cast<uint64_t>(acquired_here));
        storage::PartitionTraffic::add(traffic.bytes_fetched, static_cast<uint64_t>(size));
        pass.acquired += acquired_here;
        pass.bytes += size;
        budget = std::max<int64_t>(budget - size, 0);
    }
    return pass;
}

// The log bytes the session's partitions hold past where each share-partition reads next, up to
// `enough`: Kafka's DelayedShareFetch counts them, not the records it could acquire, to decide
// whether min_bytes is met. Reads no record and acquires nothing; a partition that cannot be
// read counts as enough, so that the fetch answers its error at once.
int64_t bytes_waiting(const FetchScope& f, int64_t enough) {
    const auto isolation = f.config.read_committed ? storage::Isolation::read_committed
                                                   : storage::Isolation::read_uncommitted;
    int64_t total = 0;
    for (const SessionPartition& sp : f.session) {
        const Located at = locate(f, sp, share_now_ms());
        if (at.error != ErrorCode::none)
            return enough;
        if (!at.has_records())
            continue;
        auto read = at.log->read(*at.next, enough - total, true, isolation);
        if (!read)
            return enough;
        total += read->total_bytes;
        // A read ends early only at a batch that would not fit: then the rest is enough.
        if (total >= enough ||
            (read->next_offset >= 0 && read->next_offset < at.bounds.read_end_offset))
            return enough;
    }
    return total;
}

void add_leader_hints(const RequestContext& ctx, ShareFetchResponse& resp) {
    bool named = false;
    for (auto& t : resp.responses)
        for (auto& p : t.partitions)
            if (names_current_leader(p.error_code)) {
                p.current_leader = {ctx.broker.node_id(), kLeaderEpoch};
                named = true;
            }
    if (named && resp.node_endpoints.empty()) {
        const auto& advertised = ctx.broker.advertised(ctx.listener);
        resp.node_endpoints.push_back(
            {ctx.broker.node_id(), advertised.host, advertised.port, std::nullopt});
    }
}

bool has_acknowledgements(const ShareFetchRequest& req) {
    for (const auto& t : req.topics)
        for (const auto& p : t.partitions)
            if (!p.acknowledgement_batches.empty())
                return true;
    return false;
}

}  // namespace share_fetch_detail

asio::awaitable<protocol::ShareFetchResponse> handle_share_fetch(
    RequestContext& ctx, const protocol::ShareFetchRequest& req) {
    using namespace share_fetch_detail;  // NOLINT(google-build-using-namespace)
    const int16_t version = ctx.header.api_version;
    if (!req.group_id || req.group_id->empty())
        co_return failed(ErrorCode::invalid_request, "Invalid group id in the request.");
    if (!req.member_id || req.member_id->empty())
        co_return failed(ErrorCode::invalid_request, "Invalid member id in the request.");
    const std::string& group_id = *req.group_id;
    const std::string& member_id = *req.member_id;
    const bool renew = version >= 2 && req.is_renew_ack;
    if (version >= 2 && req.share_acquire_mode != kBatchOptimized &&
        req.share_acquire_mode != kRecordLimit)
        co_return failed(ErrorCode::invalid_request, "Unknown share acquire mode.");
    // KIP-1222: a renew request only acknowledges; it must ask for nothing.
    if (renew &&
        (req.max_wait_ms != 0 || req.min_bytes != 0 || req.max_bytes != 0 || req.max_records != 0))
        co_return failed(ErrorCode::invalid_request,
                         "A renew acknowledgement fetches nothing: max_wait_ms, min_bytes, "
                         "max_bytes and max_records must be 0.");
    const int32_t epoch = req.share_session_epoch;
    if (epoch == share::kInitialShareSessionEpoch && has_acknowledgements(req))
        co_return failed(ErrorCode::invalid_request,
                         "Acknowledge data present in the initial share fetch request.");
    if (!authorized(ctx, AclOperation::read, ResourceType::group, group_id))
        co_return failed(ErrorCode::group_authorization_failed);
    auto* membership = ctx.broker.share_membership();
    auto* partitions = ctx.broker.share_partitions();
    if (!membership || !partitions)  // as Kafka with share groups off
        co_return failed(ErrorCode::unsupported_version,
                         "Share groups are not enabled on this broker.");
    if (auto e = membership->check_member(group_id, member_id); e != ErrorCode::none) {
        // A member that has just left on its own may still close its session with its final
        // acknowledgements (epoch -1), sent beside the leave (ShareSessionCache::member_leaving).
        const bool closing = e == ErrorCode::unknown_member_id &&
                             epoch == share::kFinalShareSessionEpoch &&
                             ctx.broker.share_sessions().has_session(group_id, member_id);
        if (!closing)
            co_return failed(e);
    }
    const share::ShareGroupConfig config = membership->config(group_id);

    ShareFetchResponse resp;
    resp.acquisition_lock_timeout_ms = config.record_lock_duration_ms;

    // The topics the request names: their partitions join the session when the topic is known
    // and readable; the others are answered with their error and left out of it.
    thread_local std::vector<SessionPartition> added;
    thread_local std::vector<SessionPartition> forgotten;
    thread_local std::vector<ShareTopicRef> refs;
    added.clear();
    forgotten.clear();
    refs.clear();
    bool topic_errors = false;
    for (const auto& t : req.topics) {
        refs.push_back(resolve_share_topic(ctx, t.topic_id));
        for (const auto& p : t.partitions) {
            if (refs.back().error == ErrorCode::none) {
                added.push_back({t.topic_id, p.partition_index});
            } else {
                auto& out = slot(resp, t.topic_id, p.partition_index);
                out.error_code = refs.back().error;
                if (!p.acknowledgement_batches.empty())
                    out.acknowledge_error_code = refs.back().error;
                topic_errors = true;
            }
        }
    }
    for (const auto& t : req.forgotten_topics_data)
        for (int32_t p : t.partitions)
            forgotten.push_back({t.topic_id, p});

    auto& sessions = ctx.broker.share_sessions();
    thread_local std::vector<SessionPartition> session;
    const bool final_fetch = epoch == share::kFinalShareSessionEpoch;
    if (epoch == share::kInitialShareSessionEpoch) {
        bool replaced = false;
        const uint64_t connection = ctx.session ? ctx.session->connection_id : 0;
        if (auto e = sessions.open(group_id, member_id, added, replaced, connection);
            e != ErrorCode::none)
            co_return failed(e);
        if (ctx.session)
            ctx.session->opened_share_session = true;
        // A new session replaces the member's old one: what it held goes back to the others.
        if (replaced)
            partitions->release_member(group_id, member_id, share_now_ms());
        session.assign(added.begin(), added.end());
    } else if (final_fetch) {
        // The session is closed only once its acknowledgements are applied and what the member
        // holds is released (below): a leave served meanwhile must find it, or it would release
        // the records these acknowledgements are about (ShareSessionCache::member_leaving).
        if (!sessions.has_session(group_id, member_id))
            co_return failed(ErrorCode::share_session_not_found);
        session.clear();
    } else if (auto e = sessions.update(group_id, member_id, epoch, added, forgotten, session);
               e != ErrorCode::none) {
        co_return failed(e);
    }

    // Durable mode: the share-state writes of this request (acknowledgements, acquisitions),
    // appended without a sync; the answer waits until they are on disk (await_synced).
    share::UnsyncedWrites unsynced;
    // The piggy-backed acknowledgements, before anything is fetched.
    for (size_t i = 0; i < req.topics.size(); ++i) {
        if (refs[i].error != ErrorCode::none)
            continue;
        for (const auto& p : req.topics[i].partitions) {
            if (p.acknowledgement_batches.empty())
                continue;
            auto& out = slot(resp, req.topics[i].topic_id, p.partition_index);
            if (!ctx.broker.logs().get({refs[i].name, p.partition_index})) {
                out.error_code = ErrorCode::unknown_topic_or_partition;
                out.acknowledge_error_code = ErrorCode::unknown_topic_or_partition;
                continue;
            }
            const share::SharePartitionKey key{
                group_id, {refs[i].name, p.partition_index}, req.topics[i].topic_id};
            out.acknowledge_error_code =
                apply_acknowledgements(*partitions, key, member_id, p.acknowledgement_batches,
                                       renew, config, share_now_ms(), unsynced);
        }
    }
    // Their syncs start now, not after a long poll: the answer waits for them in any case.
    for (const auto& write : unsynced)
        ctx.broker.logs().group_commit().request(write.log);
    if (final_fetch) {
        // The member's last word: whatever it still holds is released, then its session goes.
        partitions->release_member(group_id, member_id, share_now_ms());
        sessions.close(group_id, member_id);
        if (!co_await await_synced(ctx, unsynced))
            co_return failed(ErrorCode::unknown_server_error);
        add_leader_hints(ctx, resp);
        co_return resp;
    }
    if (renew) {
        if (!co_await await_synced(ctx, unsynced))
            co_return failed(ErrorCode::unknown_server_error);
        add_leader_hints(ctx, resp);
        co_return resp;
    }

    const FetchScope scope{.ctx = ctx,
                           .req = req,
                           .group_id = group_id,
                           .member_id = member_id,
                           .config = config,
                           .partitions = *partitions,
                           .session = session,
                           .unsynced = unsynced,
                           .record_limit = version >= 2 && req.share_acquire_mode == kRecordLimit,
                           .quota_cap = quota_max_bytes(ctx, quotas::QuotaKind::fetch)
                                            .value_or(std::numeric_limits<int64_t>::max())};
    // min_bytes as Kafka's DelayedShareFetch reads it: the fetch completes when the log bytes
    // waiting past the share-partitions' next offsets reach it (or at max_wait_ms). Up to 1 it
    // means "anything acquired".
    const int64_t min_bytes = req.min_bytes;
    const auto enough_waiting = [&](const FetchScope& f) {
        return min_bytes <= 1 || bytes_waiting(f, min_bytes) >= min_bytes;
    };
    const bool answer_now =
        topic_errors || req.max_wait_ms <= 0 || session.empty() || enough_waiting(scope);
    // The records answered count against the client's consumer_byte_rate, in the same sensor
    // as Fetch's (as Kafka's ShareFetch). Over it, the answer keeps its records (they are
    // acquired for this member; Fetch's empty answer would leave them locked until their
    // acquisition lock ran out) and says how long to wait, and the connection reads nothing
    // more for that long.
    const auto apply_quota = [&](const Pass& answered) {
        resp.throttle_time_ms = record_quota(ctx, quotas::QuotaKind::fetch, answered.bytes);
    };
    Pass pass;
    if (answer_now) {
        pass = fetch_all(scope, resp);
        if (topic_errors || pass.has_error || pass.acquired > 0 || req.max_wait_ms <= 0 ||
            session.empty()) {
            if (!co_await await_synced(ctx, unsynced))
                co_return failed(ErrorCode::unknown_server_error);
            apply_quota(pass);
            add_leader_hints(ctx, resp);
            co_return resp;
        }
    }

    // Long poll, as Fetch's: park until a produce lands on one of the session's partitions or
    // max_wait_ms passes. Records are acquired only when they are answered, so a pass that
    // acquired nothing leaves nothing to undo. The session is copied: `session` is this
    // thread's and another request may run on it while this one waits.
    const std::vector<SessionPartition> waiting(session.begin(), session.end());
    const FetchScope waiting_scope{.ctx = ctx,
                                   .req = req,
                                   .group_id = group_id,
                                   .member_id = member_id,
                                   .config = config,
                                   .partitions = *partitions,
                                   .session = waiting,
                                   .unsynced = unsynced,
                                   .record_limit = scope.record_limit,
                                   .quota_cap = scope.quota_cap};
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(req.max_wait_ms);
    auto waiter = std::make_shared<PartitionWaiters::Waiter>(co_await asio::this_coro::executor);
    std::vector<std::string> keys;
    for (const auto& sp : waiting)
        if (auto name = resolve_share_topic(ctx, sp.topic_id); name.error == ErrorCode::none)
            keys.push_back(PartitionWaiters::key(name.name, sp.partition));
    auto& waiters = ctx.broker.waiters();
    const uint64_t releases = waiters.releases();
    waiters.add(keys, waiter);
    // Each wake-up (a produce to one of the partitions) checks again; at the deadline the fetch
    // answers whatever it can acquire. Released (a control-API reset is coming): it answers at
    // once, reading nothing more.
    while (waiters.releases() == releases) {
        const bool last_pass = std::chrono::steady_clock::now() >= deadline;
        if (last_pass || enough_waiting(waiting_scope)) {
            pass = fetch_all(waiting_scope, resp);
            if (last_pass || pass.has_error || pass.acquired > 0)
                break;
        }
        ctx.long_poll = true;
        if (!waiter->woken) {
            waiter->timer.expires_at(deadline);
            co_await waiter->timer.async_wait(use_tuple);
        }
        waiter->woken = false;
    }
    waiters.remove(keys, waiter);
    if (!co_await await_synced(ctx, unsynced))
        co_return failed(ErrorCode::unknown_server_error);
    apply_quota(pass);
    add_leader_hints(ctx, resp);
    co_return resp;
}

}  // namespace skiff::broker
