#include <spdlog/spdlog.h>

#include <algorithm>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <chrono>
#include <limits>

#include "broker/broker.h"
#include "broker/error_mapping.h"
#include "broker/handlers/client_quota_throttle.h"
#include "broker/handlers/fetch_down_convert.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/leader_hints.h"
#include "broker/log_throttle.h"
#include "broker/net/use_tuple.h"
#include "broker/security/authorize.h"
#include "broker/topics/topic_ids.h"

namespace skiff::broker {
namespace {

// The partitions the last read_all returned data from, with how many records and bytes: a
// response is counted once, after the last read (a long poll reads several times). Per I/O
// thread and reused: read_all and the count that follows it run without a suspension between.
struct Fetched {
    storage::PartitionLog* log;
    int64_t records;  // offsets spanned by the batches returned (storage::ReadResult)
    int64_t bytes;
};

std::vector<Fetched>& fetched_logs() {
    thread_local std::vector<Fetched> logs;
    return logs;
}

void count_fetched() {
    for (const auto& f : fetched_logs()) {
        auto& traffic = f.log->traffic();
        storage::PartitionTraffic::add(traffic.records_fetched, static_cast<uint64_t>(f.records));
        storage::PartitionTraffic::add(traffic.bytes_fetched, static_cast<uint64_t>(f.bytes));
    }
    fetched_logs().clear();
}

using protocol::ErrorCode;

// The leader epoch of every partition: one broker, never a leader change (Metadata says 0).
constexpr int32_t kLeaderEpoch = 0;

// One pass over every requested partition. Returns the record bytes gathered and whether any
// partition answered with an error (errors are returned at once, without waiting).
struct Pass {
    int64_t bytes = 0;
    bool has_error = false;
};

Pass read_all(Broker& broker, const protocol::FetchRequest& req,
              const std::vector<FetchTopicRef>& refs, int16_t version, int64_t quota_cap,
              protocol::FetchResponse& resp) {
    Pass pass;
    fetched_logs().clear();
    // v3+ has a response-wide limit; before that only per-partition limits existed. A client
    // quota caps it further (quota_cap).
    int64_t budget = std::min(quota_cap, version >= 3 ? std::max<int64_t>(req.max_bytes, 0)
                                                      : std::numeric_limits<int32_t>::max());
    // v4+ read_committed (isolation_level 1): only below the last stable offset.
    const auto isolation = version >= 4 && req.isolation_level == 1
                               ? storage::Isolation::read_committed
                               : storage::Isolation::read_uncommitted;
    resp.responses.clear();
    resp.responses.reserve(req.topics.size());
    for (size_t i = 0; i < req.topics.size(); ++i) {
        const auto& topic = req.topics[i];
        const FetchTopicRef& ref = refs[i];
        protocol::FetchableTopicResponse t;
        t.topic = ref.name;
        t.topic_id = ref.topic_id;
        // v13+: the topic read must still be the one the id named (deleted since: the id is
        // unknown; deleted and re-created in between: Kafka's INCONSISTENT_TOPIC_ID).
        ErrorCode topic_error = ref.error;
        if (version >= 13 && topic_error == ErrorCode::none) {
            auto now = broker.logs().topic_id(ref.name);
            if (!now)
                topic_error = ErrorCode::unknown_topic_id;
            else if (to_uuid(*now) != ref.topic_id)
                topic_error = ErrorCode::inconsistent_topic_id;
        }
        t.partitions.reserve(topic.partitions.size());
        for (const auto& p : topic.partitions) {
            protocol::PartitionData out;
            out.partition_index = p.partition;
            out.high_watermark = -1;
            out.last_stable_offset = -1;
            out.log_start_offset = -1;
            out.preferred_read_replica = -1;
            if (topic_error != ErrorCode::none) {
                out.error_code = topic_error;
                pass.has_error = true;
                t.partitions.push_back(std::move(out));
                continue;
            }
            auto* log = broker.logs().get({ref.name, p.partition});
            if (!log) {
                out.error_code = ErrorCode::unknown_topic_or_partition;
                pass.has_error = true;
                t.partitions.push_back(std::move(out));
                continue;
            }
            // v9+ (KIP-320), as Kafka's Partition.checkCurrentLeaderEpoch against skiff's one
            // epoch, 0: a negative epoch skips the check (FetchRequest.optionalEpoch), so none
            // is ever older (FENCED_LEADER_EPOCH); a newer one is UNKNOWN_LEADER_EPOCH.
            if (version >= 9 && p.current_leader_epoch > kLeaderEpoch) {
                out.error_code = ErrorCode::unknown_leader_epoch;
                pass.has_error = true;
                t.partitions.push_back(std::move(out));
                continue;
            }
            // KIP-74: the first partition that returns data may exceed the limits by one whole
            // batch, so a consumer is never stuck behind a batch bigger than its limits.
            // Fetch v0-v2 have no response-wide limit: each partition returns at least one.
            const bool first_data = pass.bytes == 0 || version < 3;
            const int64_t limit =
                std::min<int64_t>(std::max<int64_t>(p.partition_max_bytes, 0), budget);
            auto read = log->read(p.fetch_offset, limit, first_data, isolation);
            if (!read) {
                out.error_code = to_error_code(read.error().code);
                out.high_watermark = log->high_watermark();
                out.last_stable_offset = log->last_stable_offset();
                out.log_start_offset = log->log_start_offset();
                pass.has_error = true;
                t.partitions.push_back(std::move(out));
                continue;
            }
            out.error_code = ErrorCode::none;
            out.high_watermark = read->high_watermark;
            out.last_stable_offset = read->last_stable_offset;
            out.log_start_offset = read->log_start_offset;
            // read_committed: the consumer drops the records of these producers from their
            // first offset up to the producer's ABORT marker. read_uncommitted: null (Kafka).
            if (isolation == storage::Isolation::read_committed) {
                out.aborted_transactions.emplace();
                out.aborted_transactions->reserve(read->aborted.size());
                for (const auto& a : read->aborted)
                    out.aborted_transactions->push_back({a.producer_id, a.first_offset});
            }
            if (version < 4) {  // message format v0/v1: converted in memory, no sendfile
                std::string error;
                if (!down_convert_fetch(*read, version, p.fetch_offset, limit, out.records,
                                        error)) {
                    LogThrottle::global().log(spdlog::level::err, "fetch:down-convert",
                                              "fetch v{} of {}-{}: {}", version, topic.topic,
                                              p.partition, error);
                    out.error_code = ErrorCode::unknown_server_error;
                    pass.has_error = true;
                }
            } else {
                out.records.file_ranges.reserve(read->slices.size());
                for (auto& s : read->slices)
                    out.records.file_ranges.push_back(
                        {s.fd, s.position, s.length, std::move(s.keepalive)});
            }
            pass.bytes += out.records.size_bytes();
            if (out.records.size_bytes() > 0)
                fetched_logs().push_back({.log = log,
                                          .records = read->next_offset - read->first_offset,
                                          .bytes = out.records.size_bytes()});
            budget = std::max<int64_t>(budget - out.records.size_bytes(), 0);
            t.partitions.push_back(std::move(out));
        }
        resp.responses.push_back(std::move(t));
    }
    return pass;
}

}  // namespace

void add_leader_hints(const RequestContext& ctx, protocol::FetchResponse& resp) {
    if (ctx.header.api_version < 16)
        return;
    bool named = false;
    for (auto& t : resp.responses)
        for (auto& p : t.partitions)
            if (names_current_leader(p.error_code)) {
                p.current_leader = protocol::LeaderIdAndEpoch{ctx.broker.node_id(), kLeaderEpoch};
                named = true;
            }
    if (named && resp.node_endpoints.empty()) {
        const auto& advertised = ctx.broker.advertised(ctx.listener);
        resp.node_endpoints.push_back(
            {ctx.broker.node_id(), advertised.host, advertised.port, std::nullopt});
    }
}

asio::awaitable<protocol::FetchResponse> handle_fetch(RequestContext& ctx,
                                                      const protocol::FetchRequest& req) {
    const int16_t version = ctx.header.api_version;
    protocol::FetchResponse resp;
    resp.error_code = ErrorCode::none;
    resp.session_id = 0;  // sessionless: every fetch names its partitions in full

    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(std::max(req.max_wait_ms, 0));
    auto refs = resolve_fetch_topics(ctx.broker.topics(), req, version);
    // A consumer needs READ on each topic (docs/acls.md), else TOPIC_AUTHORIZATION_FAILED.
    for (auto& ref : refs)
        if (ref.error == ErrorCode::none &&
            !authorized(ctx, AclOperation::read, ResourceType::topic, ref.name))
            ref.error = ErrorCode::topic_authorization_failed;
    // Client quotas (docs/quotas.md): no response holds more than the client's quota allows in
    // one measuring span (Kafka's getMaxValueInQuotaWindow), and its record bytes count against
    // consumer_byte_rate; over it, the answer holds no partitions and says how long to wait
    // (Kafka takes the bytes back and answers a throttled fetch empty).
    const int64_t quota_cap = quota_max_bytes(ctx, quotas::QuotaKind::fetch)
                                  .value_or(std::numeric_limits<int64_t>::max());
    const int64_t min_bytes = std::min<int64_t>(req.min_bytes, quota_cap);
    Pass pass;
    const auto apply_quota = [&] {
        const int32_t t = record_quota(ctx, quotas::QuotaKind::fetch, pass.bytes);
        if (t <= 0)
            return;
        unrecord_quota(ctx, quotas::QuotaKind::fetch, pass.bytes);
        resp.responses.clear();
        fetched_logs().clear();
        resp.throttle_time_ms = t;
    };
    pass = read_all(ctx.broker, req, refs, version, quota_cap, resp);
    if (pass.has_error || pass.bytes >= min_bytes || req.max_wait_ms <= 0) {
        apply_quota();
        count_fetched();
        add_leader_hints(ctx, resp);
        co_return resp;
    }

    // Long poll: park until a produce lands on one of these partitions or max_wait_ms passes.
    // The waiter is registered before the next read, so a produce between the read and the
    // wait still wakes it.
    auto waiter = std::make_shared<PartitionWaiters::Waiter>(co_await asio::this_coro::executor);
    std::vector<std::string> keys;
    for (size_t i = 0; i < req.topics.size(); ++i)
        for (const auto& p : req.topics[i].partitions)
            keys.push_back(PartitionWaiters::key(refs[i].name, p.partition));
    auto& waiters = ctx.broker.waiters();
    const uint64_t releases = waiters.releases();
    waiters.add(keys, waiter);
    pass = read_all(ctx.broker, req, refs, version, quota_cap, resp);
    while (!pass.has_error && pass.bytes < min_bytes &&
           std::chrono::steady_clock::now() < deadline && waiters.releases() == releases) {
        ctx.long_poll = true;
        if (!waiter->woken) {
            waiter->timer.expires_at(deadline);
            co_await waiter->timer.async_wait(use_tuple);
        }
        waiter->woken = false;
        pass = read_all(ctx.broker, req, refs, version, quota_cap, resp);
    }
    waiters.remove(keys, waiter);
    apply_quota();
    count_fetched();
    add_leader_hints(ctx, resp);
    co_return resp;
}

}  // namespace skiff::broker
