// Fetch: records come back as file ranges of whole batches, with the high watermark, last stable
// offset and log start offset; OFFSET_OUT_OF_RANGE below the log start and beyond the end; the
// response and partition byte limits (KIP-74: the first batch is returned whole even when it is
// larger); long polls that time out or are woken by a produce; the current leader epoch check
// (KIP-320) and KIP-951's leader hints.
#include <gtest/gtest.h>

#include <chrono>
#include <map>

#include "broker/handlers/leader_hints.h"
#include "handler_fixture.h"
#include "protocol/fetch.h"
#include "protocol/produce.h"

namespace skiff::broker::test {
namespace {

using protocol::FetchRequest;
using protocol::FetchResponse;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

constexpr int16_t kLatestFetch = 12;

struct PartitionAsk {
    int32_t partition = 0;
    int64_t offset = 0;
    int32_t max_bytes = 1 << 20;
};

FetchRequest request_for(const std::string& topic, std::vector<PartitionAsk> asks,
                         int32_t max_wait_ms = 0, int32_t min_bytes = 0,
                         int32_t max_bytes = 50 << 20) {
    FetchRequest req;
    req.max_wait_ms = max_wait_ms;
    req.min_bytes = min_bytes;
    req.max_bytes = max_bytes;
    protocol::FetchTopic t;
    t.topic = topic;
    for (const auto& a : asks) {
        protocol::FetchPartition p;
        p.partition = a.partition;
        p.fetch_offset = a.offset;
        p.partition_max_bytes = a.max_bytes;
        t.partitions.push_back(p);
    }
    req.topics.push_back(std::move(t));
    return req;
}

std::vector<int64_t> base_offsets(const protocol::PartitionData& p) {
    std::vector<int64_t> out;
    for (const auto& h : batches_in(p.records))
        out.push_back(h.base_offset);
    return out;
}

class FetchTest : public HandlerTest {
  protected:
    void produce(const std::string& topic, int32_t partition, int records) {
        auto batch = make_batch(records);
        protocol::ProduceRequest req;
        req.acks = -1;
        req.topic_data.push_back({topic, {}, {{partition, std::span<const std::byte>(batch)}}});
        auto resp = run(handle_produce, req, 9);
        ASSERT_EQ(resp.responses[0].partition_responses[0].error_code, ErrorCode::none);
    }
    protocol::PartitionData fetch_one(const std::string& topic, PartitionAsk ask,
                                      int16_t version = kLatestFetch) {
        auto resp = run(handle_fetch, request_for(topic, {ask}), version);
        EXPECT_EQ(resp.error_code, ErrorCode::none);
        if (resp.responses.size() != 1 || resp.responses[0].partitions.size() != 1)
            throw std::runtime_error("expected one topic with one partition");
        return resp.responses[0].partitions[0];
    }
    // Offsets 0-1, 2-4 and 5 in three batches.
    void three_batches(const std::string& topic) {
        create_topic(topic);
        produce(topic, 0, 2);
        produce(topic, 0, 3);
        produce(topic, 0, 1);
    }
};

TEST_F(FetchTest, ReturnsWholeBatchesFromTheOffsetAsFileRanges) {
    three_batches("t");
    auto p = fetch_one("t", {0, 0});
    EXPECT_EQ(p.error_code, ErrorCode::none);
    EXPECT_EQ(p.partition_index, 0);
    EXPECT_EQ(p.high_watermark, 6);
    EXPECT_EQ(p.last_stable_offset, 6);
    EXPECT_EQ(p.log_start_offset, 0);
    EXPECT_EQ(p.preferred_read_replica, -1);
    EXPECT_FALSE(p.aborted_transactions.has_value());
    EXPECT_TRUE(p.records.inline_bytes.empty());  // zero copy: only file ranges
    EXPECT_FALSE(p.records.file_ranges.empty());
    EXPECT_EQ(base_offsets(p), (std::vector<int64_t>{0, 2, 5}));

    EXPECT_EQ(base_offsets(fetch_one("t", {0, 2})), (std::vector<int64_t>{2, 5}));
    // An offset inside a batch returns that whole batch; the client skips what it did not ask for.
    EXPECT_EQ(base_offsets(fetch_one("t", {0, 3})), (std::vector<int64_t>{2, 5}));
    EXPECT_EQ(base_offsets(fetch_one("t", {0, 5})), (std::vector<int64_t>{5}));
}

TEST_F(FetchTest, AtTheHighWatermarkIsEmptyWithoutError) {
    three_batches("t");
    auto p = fetch_one("t", {0, 6});
    EXPECT_EQ(p.error_code, ErrorCode::none);
    EXPECT_EQ(p.high_watermark, 6);
    EXPECT_EQ(p.records.size_bytes(), 0);

    create_topic("empty");
    auto e = fetch_one("empty", {0, 0});
    EXPECT_EQ(e.error_code, ErrorCode::none);
    EXPECT_EQ(e.high_watermark, 0);
    EXPECT_EQ(e.log_start_offset, 0);
    EXPECT_EQ(e.records.size_bytes(), 0);
}

TEST_F(FetchTest, BeyondTheEndIsOffsetOutOfRange) {
    three_batches("t");
    auto p = fetch_one("t", {0, 7});
    EXPECT_EQ(p.error_code, ErrorCode::offset_out_of_range);
    // The client resets from these.
    EXPECT_EQ(p.high_watermark, 6);
    EXPECT_EQ(p.log_start_offset, 0);
    EXPECT_EQ(p.records.size_bytes(), 0);
    EXPECT_EQ(fetch_one("t", {0, -1}).error_code, ErrorCode::offset_out_of_range);
}

TEST_F(FetchTest, BelowTheLogStartIsOffsetOutOfRange) {
    // One batch per segment, and retention keeps only the active segment.
    create_topic("t", 1, {{"segment.bytes", "100"}, {"retention.bytes", "1"}});
    produce("t", 0, 2);
    produce("t", 0, 2);
    produce("t", 0, 2);
    broker().logs().run_retention();
    const int64_t log_start = broker().logs().get({"t", 0})->log_start_offset();
    ASSERT_EQ(log_start, 4);

    auto p = fetch_one("t", {0, 0});
    EXPECT_EQ(p.error_code, ErrorCode::offset_out_of_range);
    EXPECT_EQ(p.log_start_offset, 4);
    EXPECT_EQ(p.high_watermark, 6);

    auto ok = fetch_one("t", {0, 4});
    EXPECT_EQ(ok.error_code, ErrorCode::none);
    EXPECT_EQ(ok.log_start_offset, 4);
    EXPECT_EQ(base_offsets(ok), (std::vector<int64_t>{4}));
}

TEST_F(FetchTest, UnknownTopicOrPartition) {
    create_topic("t", 1);
    for (auto [topic, partition] : {std::pair<std::string, int32_t>{"missing", 0}, {"t", 1}}) {
        auto p = fetch_one(topic, {partition, 0});
        EXPECT_EQ(p.error_code, ErrorCode::unknown_topic_or_partition) << topic << partition;
        EXPECT_EQ(p.high_watermark, -1);
        EXPECT_EQ(p.log_start_offset, -1);
    }
}

TEST_F(FetchTest, PartitionMaxBytesStopsAtWholeBatchesButReturnsTheFirstOneWhole) {
    three_batches("t");
    auto all = fetch_one("t", {0, 0});
    auto sizes = batches_in(all.records);
    ASSERT_EQ(sizes.size(), 3u);
    const auto first = static_cast<int32_t>(sizes[0].size_bytes());
    const auto second = static_cast<int32_t>(sizes[1].size_bytes());

    // Smaller than one batch: the first batch anyway (KIP-74), nothing more.
    EXPECT_EQ(base_offsets(fetch_one("t", {0, 0, 1})), (std::vector<int64_t>{0}));
    // Room for two batches and a bit: exactly two, never a partial third.
    EXPECT_EQ(base_offsets(fetch_one("t", {0, 0, first + second + 10})),
              (std::vector<int64_t>{0, 2}));
}

TEST_F(FetchTest, ResponseMaxBytesIsSharedAcrossPartitions) {
    create_topic("t", 2);
    produce("t", 0, 2);
    produce("t", 1, 2);
    auto resp =
        run(handle_fetch, request_for("t", {{0, 0}, {1, 0}}, 0, 0, /*max_bytes=*/1), kLatestFetch);
    ASSERT_EQ(resp.responses.size(), 1u);
    ASSERT_EQ(resp.responses[0].partitions.size(), 2u);
    const auto& p0 = resp.responses[0].partitions[0];
    const auto& p1 = resp.responses[0].partitions[1];
    // The first partition with data gets its first batch whole; the budget is then spent.
    EXPECT_EQ(base_offsets(p0), (std::vector<int64_t>{0}));
    EXPECT_EQ(p1.error_code, ErrorCode::none);
    EXPECT_EQ(p1.high_watermark, 2);
    EXPECT_EQ(p1.records.size_bytes(), 0);
}

TEST_F(FetchTest, LongPollWithoutDataReturnsEmptyAfterMaxWait) {
    create_topic("t");
    const auto started = steady_clock::now();
    auto resp = run(handle_fetch, request_for("t", {{0, 0}}, /*max_wait_ms=*/150, /*min_bytes=*/1),
                    kLatestFetch);
    const auto waited = steady_clock::now() - started;
    EXPECT_GE(waited, milliseconds(140));
    EXPECT_LT(waited, milliseconds(5000));
    const auto& p = resp.responses[0].partitions[0];
    EXPECT_EQ(p.error_code, ErrorCode::none);
    EXPECT_EQ(p.records.size_bytes(), 0);
}

TEST_F(FetchTest, LongPollIsWokenByAProduce) {
    create_topic("t");
    const auto started = steady_clock::now();
    auto fetch =
        start(handle_fetch, request_for("t", {{0, 0}}, /*max_wait_ms=*/10000, /*min_bytes=*/1),
              kLatestFetch);
    auto batch = make_batch(3);
    protocol::ProduceRequest produce_req;
    produce_req.acks = 1;
    produce_req.topic_data.push_back({"t", {}, {{0, std::span<const std::byte>(batch)}}});
    auto produced = start(handle_produce, produce_req, 9);
    drive();
    EXPECT_LT(steady_clock::now() - started, milliseconds(5000));
    ASSERT_TRUE(produced->response);
    ASSERT_TRUE(fetch->response);
    const auto& p = fetch->response->responses[0].partitions[0];
    EXPECT_EQ(p.error_code, ErrorCode::none);
    EXPECT_EQ(p.high_watermark, 3);
    EXPECT_EQ(base_offsets(p), (std::vector<int64_t>{0}));
}

TEST_F(FetchTest, AnErrorIsAnsweredAtOnceWithoutWaiting) {
    const auto started = steady_clock::now();
    auto resp = run(handle_fetch, request_for("missing", {{0, 0}}, 10000, 1), kLatestFetch);
    EXPECT_LT(steady_clock::now() - started, milliseconds(5000));
    EXPECT_EQ(resp.responses[0].partitions[0].error_code, ErrorCode::unknown_topic_or_partition);
}

// skiff's leader epoch is 0 for good: a newer one is UNKNOWN_LEADER_EPOCH; 0 and negative ones
// (no epoch, as Kafka's FetchRequest.optionalEpoch reads them) are served.
TEST_F(FetchTest, ANewerCurrentLeaderEpochIsUnknown) {
    three_batches("t");
    auto req = request_for("t", {{0, 0}});
    for (int32_t epoch : {0, -1, -7}) {
        req.topics[0].partitions[0].current_leader_epoch = epoch;
        auto resp = run(handle_fetch, req, kLatestFetch);
        EXPECT_EQ(resp.responses.at(0).partitions.at(0).error_code, ErrorCode::none) << epoch;
    }
    req.topics[0].partitions[0].current_leader_epoch = 1;
    auto resp = run(handle_fetch, req, kLatestFetch);
    const auto& p = resp.responses.at(0).partitions.at(0);
    EXPECT_EQ(p.error_code, ErrorCode::unknown_leader_epoch);
    EXPECT_EQ(p.records.size_bytes(), 0);
    EXPECT_FALSE(p.current_leader);  // KIP-951 hints only for a leader that moved
    EXPECT_TRUE(resp.node_endpoints.empty());
    // Before v9 there is no epoch to check.
    EXPECT_EQ(fetch_one("t", {0, 0}, 8).error_code, ErrorCode::none);
}

// KIP-951: v16+ partitions answered NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH (on skiff, from
// the control API's fault rules) name this broker as the leader at epoch 0, and the response
// carries its endpoint, once; on the wire as the tagged fields.
TEST_F(FetchTest, LeaderHintsNameThisBrokerFromV16) {
    FetchResponse resp;
    protocol::FetchableTopicResponse t;
    t.topic = "t";
    for (auto error :
         {ErrorCode::not_leader_or_follower, ErrorCode::none, ErrorCode::fenced_leader_epoch}) {
        protocol::PartitionData p;
        p.partition_index = static_cast<int32_t>(t.partitions.size());
        p.error_code = error;
        t.partitions.push_back(std::move(p));
    }
    resp.responses.push_back(std::move(t));
    protocol::RequestHeader header;
    header.api_version = 15;
    const std::string peer = "127.0.0.1:1";
    RequestContext old_ctx{.broker = broker(), .header = header, .peer = peer};
    auto v15 = resp;
    add_leader_hints(old_ctx, v15);
    EXPECT_FALSE(v15.responses[0].partitions[0].current_leader);
    EXPECT_TRUE(v15.node_endpoints.empty());

    header.api_version = 16;
    RequestContext ctx{.broker = broker(), .header = header, .peer = peer};
    add_leader_hints(ctx, resp);
    add_leader_hints(ctx, resp);  // the fault path runs it after the handler did
    protocol::OutBuffer out;
    protocol::encode_message(resp, 16, out);
    auto decoded = protocol::decode_message<FetchResponse>(out.bytes(), 16);
    ASSERT_TRUE(decoded);
    const auto& parts = decoded->responses.at(0).partitions;
    ASSERT_EQ(parts.size(), 3u);
    const protocol::LeaderIdAndEpoch self{broker().node_id(), 0};
    EXPECT_EQ(parts[0].current_leader, self);
    EXPECT_FALSE(parts[1].current_leader);
    EXPECT_EQ(parts[2].current_leader, self);
    ASSERT_EQ(decoded->node_endpoints.size(), 1u);
    EXPECT_EQ(decoded->node_endpoints[0].node_id, broker().node_id());
    EXPECT_EQ(decoded->node_endpoints[0].host, broker().advertised("").host);
    EXPECT_EQ(decoded->node_endpoints[0].port, broker().advertised("").port);
}

TEST_F(FetchTest, EverySupportedVersion) {
    three_batches("t");
    for (int16_t v = 4; v <= kLatestFetch; ++v) {
        auto p = fetch_one("t", {0, 2}, v);
        EXPECT_EQ(p.error_code, ErrorCode::none) << "v" << v;
        EXPECT_EQ(base_offsets(p), (std::vector<int64_t>{2, 5})) << "v" << v;
    }
}

// read_committed (isolation_level 1, v4+): only below the last stable offset, with the aborted
// transactions of the returned range; read_uncommitted reads to the high watermark and gets a
// null list. The batches go straight into the log: the produce handler's transaction checks
// are the coordinator's business (txn handler tests).
class FetchIsolationTest : public FetchTest {
  protected:
    void append_txn(int64_t pid, int records) {
        protocol::BatchSpec spec;
        spec.producer_id = pid;
        spec.producer_epoch = 0;
        spec.base_sequence = sequences_[pid];
        spec.attributes = 0x10;  // transactional
        sequences_[pid] += records;
        auto batch = make_batch(records, spec);
        auto summaries = protocol::validate_batches(batch);
        ASSERT_TRUE(summaries);
        ASSERT_TRUE(log().append(batch, *summaries));
    }
    void end_txn(int64_t pid, bool commit) {
        ASSERT_TRUE(log().append_marker({pid, 0, 0, commit, -1}));
    }
    storage::PartitionLog& log() { return *broker().logs().get({"t", 0}); }
    protocol::PartitionData fetch(int64_t offset, int8_t isolation,
                                  int16_t version = kLatestFetch) {
        auto req = request_for("t", {{0, offset}});
        req.isolation_level = isolation;
        auto resp = run(handle_fetch, req, version);
        return resp.responses.at(0).partitions.at(0);
    }
    std::map<int64_t, int32_t> sequences_;
};

TEST_F(FetchIsolationTest, ReadCommittedStopsAtTheLastStableOffset) {
    create_topic("t");
    produce("t", 0, 2);  // 0-1, not transactional
    append_txn(7, 3);    // 2-4, open
    auto committed = fetch(0, 1);
    EXPECT_EQ(committed.error_code, ErrorCode::none);
    EXPECT_EQ(committed.high_watermark, 5);
    EXPECT_EQ(committed.last_stable_offset, 2);
    EXPECT_EQ(base_offsets(committed), (std::vector<int64_t>{0}));
    ASSERT_TRUE(committed.aborted_transactions.has_value());
    EXPECT_TRUE(committed.aborted_transactions->empty());
    // At the last stable offset: nothing yet, no error.
    auto waiting = fetch(2, 1);
    EXPECT_EQ(waiting.error_code, ErrorCode::none);
    EXPECT_EQ(waiting.records.size_bytes(), 0);

    auto uncommitted = fetch(0, 0);
    EXPECT_EQ(base_offsets(uncommitted), (std::vector<int64_t>{0, 2}));
    EXPECT_EQ(uncommitted.last_stable_offset, 2);
    EXPECT_FALSE(uncommitted.aborted_transactions.has_value());

    end_txn(7, true);  // marker at 5
    auto after = fetch(0, 1);
    EXPECT_EQ(after.last_stable_offset, 6);
    EXPECT_EQ(base_offsets(after), (std::vector<int64_t>{0, 2, 5}));
    EXPECT_TRUE(after.aborted_transactions->empty());
}

TEST_F(FetchIsolationTest, AbortedTransactionsAreListedForReadCommitted) {
    create_topic("t");
    append_txn(7, 2);   // 0-1
    append_txn(8, 2);   // 2-3
    end_txn(7, false);  // 4: abort of 7
    end_txn(8, true);   // 5: commit of 8
    auto p = fetch(0, 1);
    EXPECT_EQ(p.last_stable_offset, 6);
    EXPECT_EQ(base_offsets(p), (std::vector<int64_t>{0, 2, 4, 5}));
    ASSERT_TRUE(p.aborted_transactions.has_value());
    ASSERT_EQ(p.aborted_transactions->size(), 1u);
    EXPECT_EQ((*p.aborted_transactions)[0].producer_id, 7);
    EXPECT_EQ((*p.aborted_transactions)[0].first_offset, 0);
    // Fetch v0-v3 has no isolation level: everything up to the high watermark, markers dropped
    // by the down-conversion.
    auto v3 = fetch(0, 1, 3);
    EXPECT_EQ(v3.error_code, ErrorCode::none);
    EXPECT_EQ(v3.high_watermark, 6);
}

}  // namespace
}  // namespace skiff::broker::test
