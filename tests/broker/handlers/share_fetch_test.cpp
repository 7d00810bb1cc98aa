// ShareFetch (78) over fakes of the share-group seams (share_fakes.h) and a real log: the records
// come back as the log's own batches in file ranges with the acquired offset ranges beside them;
// the request's checks and their errors (INVALID_REQUEST, GROUP_ID_NOT_FOUND, UNKNOWN_MEMBER_ID,
// UNKNOWN_TOPIC_ID, authorization failures, share groups off); the share session's epochs
// (SHARE_SESSION_NOT_FOUND, INVALID_SHARE_SESSION_EPOCH, SHARE_SESSION_LIMIT_REACHED, a new
// session replacing the old one, -1 closing it and releasing what the member held);
// piggy-backed acknowledgements (INVALID_RECORD_STATE passed through); v2's record-limit mode and
// renew rules; read_committed skipping control batches; a long poll woken by a produce;
// min_bytes waited for up to max_wait_ms; and the client's consumer_byte_rate, shared with Fetch.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "broker/security/acl.h"
#include "broker/topics/topic_ids.h"
#include "handler_fixture.h"
#include "protocol/client_quotas.h"
#include "protocol/produce.h"
#include "protocol/record_batch.h"
#include "protocol/record_builder.h"
#include "protocol/share_fetch.h"
#include "share_fakes.h"

namespace skiff::broker::test {
namespace {

using protocol::ShareFetchRequest;
using protocol::ShareFetchResponse;

constexpr int16_t kShareFetchV1 = 1;
constexpr int16_t kShareFetchV2 = 2;

class ShareFetchTest : public HandlerTest {
  protected:
    void SetUp() override {
        membership.groups["queue"] = {"m1", "m2"};
        membership.group_config.record_lock_duration_ms = 15000;
    }
    // The seams wired, as the broker's start-up will.
    void wire() {
        broker().set_share_membership(&membership);
        broker().set_share_partitions(&partitions);
        broker().set_share_offsets_admin(&partitions);
    }
    protocol::Uuid topic_id(const std::string& topic) {
        return to_uuid(*broker().logs().topic_id(topic));
    }
    void produce(const std::string& topic, int records, int32_t partition = 0) {
        auto batch = make_batch(records);
        protocol::ProduceRequest req;
        req.acks = -1;
        req.topic_data.push_back({topic, {}, {{partition, std::span<const std::byte>(batch)}}});
        auto resp = run(handle_produce, req, 9);
        ASSERT_EQ(resp.responses[0].partition_responses[0].error_code, ErrorCode::none);
    }
    ShareFetchRequest request(const std::string& member, int32_t epoch,
                              const std::string& topic = "t", std::vector<int32_t> parts = {0}) {
        ShareFetchRequest req;
        req.group_id = "queue";
        req.member_id = member;
        req.share_session_epoch = epoch;
        req.max_bytes = 1 << 20;
        req.max_records = 500;
        req.batch_size = 500;
        if (!topic.empty()) {
            protocol::ShareFetchTopic t{topic_id(topic), {}};
            for (int32_t p : parts)
                t.partitions.push_back({p, {}});
            req.topics.push_back(t);
        }
        return req;
    }
    static void ack(ShareFetchRequest& req, int64_t first, int64_t last, int8_t type) {
        req.topics.at(0).partitions.at(0).acknowledgement_batches.push_back({first, last, {type}});
    }
    ShareFetchResponse fetch(const ShareFetchRequest& req, int16_t version = kShareFetchV1) {
        return run(handle_share_fetch, req, version);
    }
    static const protocol::ShareFetchPartitionData& only(const ShareFetchResponse& r) {
        EXPECT_EQ(r.responses.size(), 1u);
        EXPECT_EQ(r.responses.at(0).partitions.size(), 1u);
        return r.responses.at(0).partitions.at(0);
    }

    FakeShareMembership membership;
    FakeSharePartitionManager partitions;
};

TEST_F(ShareFetchTest, AcquiresTheLogsOwnBatchesAndAnswersTheRanges) {
    create_topic("t");
    wire();
    produce("t", 3);
    produce("t", 2);
    auto r = fetch(request("m1", 0));
    ASSERT_EQ(r.error_code, ErrorCode::none);
    EXPECT_EQ(r.acquisition_lock_timeout_ms, 15000);  // the group's lock duration
    const auto& p = only(r);
    EXPECT_EQ(p.error_code, ErrorCode::none);
    EXPECT_TRUE(p.records.inline_bytes.empty());  // file ranges, sent with sendfile
    auto batches = batches_in(p.records);
    ASSERT_EQ(batches.size(), 2u);
    EXPECT_EQ(batches[0].base_offset, 0);
    EXPECT_EQ(batches[1].base_offset, 3);
    ASSERT_EQ(p.acquired_records.size(), 1u);
    EXPECT_EQ(p.acquired_records[0].first_offset, 0);
    EXPECT_EQ(p.acquired_records[0].last_offset, 4);
    EXPECT_EQ(p.acquired_records[0].delivery_count, 1);
    EXPECT_EQ(partitions.state("queue", "t", 0).acquired.size(), 5u);
    // /metrics counts what share consumers were handed, as it counts Fetch's.
    auto& traffic = broker().logs().get({"t", 0})->traffic();
    EXPECT_EQ(traffic.records_fetched.load(), 5u);
    EXPECT_EQ(traffic.bytes_fetched.load(), static_cast<uint64_t>(p.records.size_bytes()));

    // The other member gets nothing of what m1 holds; with nothing new, an empty answer.
    auto other = fetch(request("m2", 0));
    EXPECT_EQ(other.error_code, ErrorCode::none);
    EXPECT_TRUE(other.responses.empty());
}

// Durable mode: the answer comes once the manager's writes for it (the acknowledgements, then
// the acquisition) are synced by the group committer; the network thread never syncs.
TEST_F(ShareFetchTest, DurableModeAnswersOnceTheStateWritesAreSynced) {
    config.log_flush_interval_messages = 1;
    create_topic("t");
    create_topic("state");
    wire();
    produce("t", 4);
    partitions.state_log = broker().logs().get({"state", 0});
    ASSERT_TRUE(partitions.state_log->durable_mode());
    auto r = fetch(request("m1", 0));
    ASSERT_EQ(only(r).acquired_records.size(), 1u);
    EXPECT_EQ(partitions.state_log->log_end_offset(), 1);
    EXPECT_EQ(partitions.state_log->high_watermark(), 1);  // synced before the answer
    auto next = request("m1", 1);
    ack(next, 0, 3, 1);
    next.max_wait_ms = 0;
    EXPECT_EQ(only(fetch(next)).acknowledge_error_code, ErrorCode::none);
    EXPECT_EQ(partitions.state_log->log_end_offset(), 2);
    EXPECT_EQ(partitions.state_log->high_watermark(), 2);
}

TEST_F(ShareFetchTest, MaxBytesZeroGetsNoRecords) {
    // Unlike Fetch's KIP-74 rule, Kafka hands a ShareFetch with max_bytes 0 nothing (librdkafka
    // 2.15's 0180 pins it): nothing is acquired, so nothing waits for a lock to expire.
    create_topic("t");
    wire();
    produce("t", 3);
    auto req = request("m1", 0);
    req.max_bytes = 0;
    auto r = fetch(req);
    EXPECT_EQ(r.error_code, ErrorCode::none);
    EXPECT_TRUE(r.responses.empty());
    EXPECT_TRUE(partitions.state("queue", "t", 0).acquired.empty());
}

TEST_F(ShareFetchTest, AConsumerOverItsQuotaKeepsWhatItAcquiredAndIsToldToWait) {
    create_topic("t");
    wire();
    const auto batch = make_batch(1, {}, std::string(3000, 'x'));
    for (int i = 0; i < 6; ++i)
        run(handle_produce, produce_request("t", 0, batch), 9);
    protocol::AlterClientQuotasRequest quota;
    quota.entries.push_back(
        {{{"client-id", "handler-test"}}, {{"consumer_byte_rate", 1000, false}}});
    auto set = run(handle_alter_client_quotas, quota, 1);
    ASSERT_EQ(set.entries.at(0).error_code, ErrorCode::none);

    // One answer holds no more than 1,000 B/s x 10 s: three of the ~3 KB batches.
    auto first = fetch(request("m1", 0));
    EXPECT_EQ(first.throttle_time_ms, 0);
    EXPECT_EQ(batches_in(only(first).records).size(), 3u);
    // The next three bring the rate to about twice the quota. They are acquired for m1, so they
    // are answered (an empty answer would leave them locked for nobody), with the time to wait,
    // which the connection's mute matches.
    auto second = fetch(request("m1", 1));
    EXPECT_EQ(batches_in(only(second).records).size(), 3u);
    EXPECT_EQ(partitions.state("queue", "t", 0).acquired.size(), 6u);
    EXPECT_GT(second.throttle_time_ms, 5000);
    EXPECT_EQ(second.throttle_time_ms, throttle_ms);
    // Fetch shares the sensor (Kafka's ShareFetch and Fetch both count as consumer bytes): the
    // same client's Fetch is throttled too, and answered empty.
    auto plain = run(handle_fetch, fetch_request("t", 0), 12);
    EXPECT_TRUE(plain.responses.empty());
    EXPECT_GT(plain.throttle_time_ms, 0);
}

TEST_F(ShareFetchTest, BatchSizeSplitsTheAcquiredRanges) {
    create_topic("t");
    wire();
    produce("t", 5);
    auto req = request("m1", 0);
    req.batch_size = 2;
    const auto p_resp = fetch(req);
    const auto& p = only(p_resp);
    ASSERT_EQ(p.acquired_records.size(), 3u);
    EXPECT_EQ(p.acquired_records[0].first_offset, 0);
    EXPECT_EQ(p.acquired_records[0].last_offset, 1);
    EXPECT_EQ(p.acquired_records[2].first_offset, 4);
    EXPECT_EQ(p.acquired_records[2].last_offset, 4);
}

TEST_F(ShareFetchTest, WithoutTheShareGroupSeamsItIsUnsupported) {
    // The broker opens them at start-up; a broker without them (none of its share parts open)
    // must answer, not crash.
    broker().set_share_membership(nullptr);
    broker().set_share_partitions(nullptr);
    broker().set_share_offsets_admin(nullptr);
    create_topic("t");
    auto r = fetch(request("m1", 0));
    EXPECT_EQ(r.error_code, ErrorCode::unsupported_version);
    EXPECT_TRUE(r.error_message.has_value());
    EXPECT_EQ(broker().share_sessions().size(), 0u);
}

TEST_F(ShareFetchTest, MissingGroupOrMemberIdIsInvalidRequest) {
    create_topic("t");
    wire();
    auto req = request("m1", 0);
    req.group_id.reset();
    EXPECT_EQ(fetch(req).error_code, ErrorCode::invalid_request);
    req = request("", 0);
    EXPECT_EQ(fetch(req).error_code, ErrorCode::invalid_request);
    EXPECT_EQ(broker().share_sessions().size(), 0u);
}

TEST_F(ShareFetchTest, UnknownGroupAndUnknownMember) {
    create_topic("t");
    wire();
    produce("t", 1);
    auto req = request("m1", 0);
    req.group_id = "nobody";
    EXPECT_EQ(fetch(req).error_code, ErrorCode::group_id_not_found);
    EXPECT_EQ(fetch(request("stranger", 0)).error_code, ErrorCode::unknown_member_id);
    EXPECT_TRUE(partitions.states.empty());  // nothing read, nothing acquired
    EXPECT_EQ(broker().share_sessions().size(), 0u);
}

TEST_F(ShareFetchTest, UnknownTopicIdIsAnsweredPerPartition) {
    create_topic("t");
    wire();
    auto req = request("m1", 0);
    protocol::Uuid unknown;
    unknown.bytes[0] = 0xee;
    req.topics.push_back({unknown, {{0, {}}, {1, {}}}});
    auto r = fetch(req);
    EXPECT_EQ(r.error_code, ErrorCode::none);
    bool seen = false;
    for (const auto& t : r.responses)
        if (t.topic_id == unknown) {
            seen = true;
            ASSERT_EQ(t.partitions.size(), 2u);
            for (const auto& p : t.partitions)
                EXPECT_EQ(p.error_code, ErrorCode::unknown_topic_id);
        }
    EXPECT_TRUE(seen);
}

TEST_F(ShareFetchTest, SessionEpochs) {
    create_topic("t");
    wire();
    produce("t", 1);
    // No session yet: only epoch 0 may open one.
    EXPECT_EQ(fetch(request("m1", 1)).error_code, ErrorCode::share_session_not_found);
    EXPECT_EQ(fetch(request("m1", -1)).error_code, ErrorCode::share_session_not_found);
    EXPECT_EQ(fetch(request("m1", 0)).error_code, ErrorCode::none);
    EXPECT_EQ(fetch(request("m1", 5)).error_code, ErrorCode::invalid_share_session_epoch);
    // The epoch that failed did not advance the session: 1 then 2 are next.
    EXPECT_EQ(fetch(request("m1", 1, "")).error_code, ErrorCode::none);
    EXPECT_EQ(fetch(request("m1", 1, "")).error_code, ErrorCode::invalid_share_session_epoch);
    EXPECT_EQ(fetch(request("m1", 2, "")).error_code, ErrorCode::none);
}

TEST_F(ShareFetchTest, TheSessionRemembersItsPartitionsUntilForgotten) {
    create_topic("t");
    wire();
    EXPECT_EQ(fetch(request("m1", 0)).error_code, ErrorCode::none);
    produce("t", 2);
    // Epoch 1 names no topic: the session's partition is fetched all the same.
    auto r = fetch(request("m1", 1, ""));
    EXPECT_EQ(only(r).acquired_records.at(0).last_offset, 1);
    produce("t", 1);
    auto req = request("m1", 2, "");
    req.forgotten_topics_data.push_back({topic_id("t"), {0}});
    EXPECT_TRUE(fetch(req).responses.empty());
}

TEST_F(ShareFetchTest, ANewSessionReplacesTheOldAndReleasesWhatItHeld) {
    create_topic("t");
    wire();
    produce("t", 2);
    EXPECT_EQ(only(fetch(request("m1", 0))).acquired_records.size(), 1u);
    EXPECT_TRUE(partitions.released.empty());
    auto again = fetch(request("m1", 0));
    EXPECT_EQ(partitions.released, (std::vector<std::string>{"queue/m1"}));
    // Released, then acquired again by the new session.
    EXPECT_EQ(only(again).acquired_records.at(0).first_offset, 0);
    EXPECT_EQ(broker().share_sessions().size(), 1u);
}

TEST_F(ShareFetchTest, TheSessionLimitIsReached) {
    config.group_share_max_share_sessions = 1;
    create_topic("t");
    wire();
    EXPECT_EQ(fetch(request("m1", 0)).error_code, ErrorCode::none);
    EXPECT_EQ(fetch(request("m2", 0)).error_code, ErrorCode::share_session_limit_reached);
    // The member that holds the one session may open it anew.
    EXPECT_EQ(fetch(request("m1", 0)).error_code, ErrorCode::none);
    // Once it leaves (the membership's listener), the other may open one.
    broker().share_sessions().member_left("queue", "m1");
    EXPECT_EQ(fetch(request("m2", 0)).error_code, ErrorCode::none);
}

TEST_F(ShareFetchTest, PiggyBackedAcknowledgementsComeFirst) {
    create_topic("t");
    wire();
    produce("t", 3);
    EXPECT_EQ(only(fetch(request("m1", 0))).acquired_records.at(0).last_offset, 2);
    produce("t", 1);
    auto req = request("m1", 1);
    ack(req, 0, 2, 1);  // ACCEPT
    auto r = fetch(req);
    const auto& p = only(r);
    EXPECT_EQ(p.acknowledge_error_code, ErrorCode::none);
    EXPECT_EQ(p.acquired_records.at(0).first_offset, 3);
    auto& state = partitions.state("queue", "t", 0);
    EXPECT_EQ(state.acknowledged.size(), 3u);
    EXPECT_EQ(state.acknowledged[1], 1);
}

TEST_F(ShareFetchTest, InvalidRecordStateIsPassedThrough) {
    create_topic("t");
    wire();
    produce("t", 2);
    fetch(request("m1", 0));
    auto req = request("m2", 0);
    EXPECT_EQ(fetch(req).error_code, ErrorCode::none);
    req = request("m2", 1);
    ack(req, 0, 1, 1);  // m1 holds them
    const auto p_resp = fetch(req);
    const auto& p = only(p_resp);
    EXPECT_EQ(p.acknowledge_error_code, ErrorCode::invalid_record_state);
    EXPECT_TRUE(partitions.state("queue", "t", 0).acknowledged.empty());
}

TEST_F(ShareFetchTest, AcknowledgementsCannotOpenASession) {
    create_topic("t");
    wire();
    auto req = request("m1", 0);
    ack(req, 0, 0, 1);
    EXPECT_EQ(fetch(req).error_code, ErrorCode::invalid_request);
    EXPECT_EQ(partitions.acknowledge_calls, 0);
    EXPECT_EQ(broker().share_sessions().size(), 0u);
}

TEST_F(ShareFetchTest, TheFinalEpochClosesTheSessionAndReleases) {
    create_topic("t");
    wire();
    produce("t", 4);
    fetch(request("m1", 0));
    auto req = request("m1", -1);
    ack(req, 0, 1, 1);
    auto r = fetch(req);
    EXPECT_EQ(r.error_code, ErrorCode::none);
    const auto& p = only(r);
    EXPECT_EQ(p.acknowledge_error_code, ErrorCode::none);
    EXPECT_TRUE(p.acquired_records.empty());  // the final fetch fetches nothing
    EXPECT_EQ(partitions.released, (std::vector<std::string>{"queue/m1"}));
    EXPECT_TRUE(partitions.state("queue", "t", 0).acquired.empty());
    EXPECT_EQ(broker().share_sessions().size(), 0u);
    EXPECT_EQ(fetch(request("m1", 1)).error_code, ErrorCode::share_session_not_found);
}

TEST_F(ShareFetchTest, RecordLimitModeAcquiresAtMostMaxRecords) {
    create_topic("t");
    wire();
    produce("t", 10);
    auto req = request("m1", 0);
    req.max_records = 3;
    req.share_acquire_mode = 1;
    const auto p_resp = fetch(req, kShareFetchV2);
    const auto& p = only(p_resp);
    ASSERT_EQ(p.acquired_records.size(), 1u);
    EXPECT_EQ(p.acquired_records[0].first_offset, 0);
    EXPECT_EQ(p.acquired_records[0].last_offset, 2);
    // Batch-optimized (v1's only mode): the whole batch, past max_records.
    req = request("m2", 0);
    req.max_records = 3;
    partitions.states.clear();
    produce("t", 10);
    const auto q_resp = fetch(req, kShareFetchV1);
    const auto& q = only(q_resp);
    EXPECT_GT(q.acquired_records.at(0).last_offset - q.acquired_records.at(0).first_offset + 1, 3);
}

TEST_F(ShareFetchTest, UnknownAcquireModeIsInvalidRequest) {
    create_topic("t");
    wire();
    auto req = request("m1", 0);
    req.share_acquire_mode = 7;
    EXPECT_EQ(fetch(req, kShareFetchV2).error_code, ErrorCode::invalid_request);
}

TEST_F(ShareFetchTest, RenewRules) {
    create_topic("t");
    wire();
    produce("t", 2);
    fetch(request("m1", 0));
    // A renew request asks for nothing (KIP-1222).
    auto req = request("m1", 1);
    req.is_renew_ack = true;
    ack(req, 0, 1, 4);
    EXPECT_EQ(fetch(req, kShareFetchV2).error_code, ErrorCode::invalid_request);
    req.max_bytes = req.max_records = req.max_wait_ms = req.min_bytes = 0;
    auto r = fetch(req, kShareFetchV2);
    EXPECT_EQ(r.error_code, ErrorCode::none);
    EXPECT_EQ(only(r).acknowledge_error_code, ErrorCode::none);
    EXPECT_TRUE(only(r).acquired_records.empty());
    // RENEW outside a renew request (v1 never has one) is refused before the manager sees it.
    produce("t", 1);
    auto plain = request("m1", 2);
    ack(plain, 2, 2, 4);
    const int calls = partitions.acknowledge_calls;
    EXPECT_EQ(only(fetch(plain)).acknowledge_error_code, ErrorCode::invalid_request);
    EXPECT_EQ(partitions.acknowledge_calls, calls);
}

// read_committed: only up to the last stable offset; an aborted transaction's batches and every
// control batch are offered as `skip` (never acquired), committed ones are not. The transactional
// batches go straight into the log, as in fetch_test.cpp's isolation tests.
TEST_F(ShareFetchTest, ReadCommittedSkipsAbortedAndControlBatches) {
    create_topic("t");
    wire();
    membership.group_config.read_committed = true;
    auto& log = *broker().logs().get({"t", 0});
    std::map<int64_t, int32_t> sequences;
    auto append_txn = [&](int64_t pid, int records) {
        protocol::BatchSpec spec;
        spec.producer_id = pid;
        spec.producer_epoch = 0;
        spec.base_sequence = sequences[pid];
        spec.attributes = 0x10;  // transactional
        sequences[pid] += records;
        auto batch = make_batch(records, spec);
        auto summaries = protocol::validate_batches(batch);
        ASSERT_TRUE(summaries);
        ASSERT_TRUE(log.append(batch, *summaries));
    };
    produce("t", 2);                                       // 0-1
    append_txn(7, 3);                                      // 2-4, aborted
    append_txn(8, 2);                                      // 5-6, committed
    ASSERT_TRUE(log.append_marker({7, 0, 0, false, -1}));  // 7: ABORT of 7
    ASSERT_TRUE(log.append_marker({8, 0, 0, true, -1}));   // 8: COMMIT of 8
    append_txn(9, 1);  // 9, still open: beyond the last stable offset
    auto r = fetch(request("m1", 0));
    std::vector<std::pair<int64_t, bool>> offered;
    for (const auto& b : partitions.offered)
        offered.emplace_back(b.base_offset, b.skip);
    EXPECT_EQ(offered, (std::vector<std::pair<int64_t, bool>>{
                           {0, false}, {2, true}, {5, false}, {7, true}, {8, true}}));
    // Acquired: 0-1 and 5-6 only.
    const auto& p = only(r);
    ASSERT_EQ(p.acquired_records.size(), 2u);
    EXPECT_EQ(p.acquired_records[0].first_offset, 0);
    EXPECT_EQ(p.acquired_records[0].last_offset, 1);
    EXPECT_EQ(p.acquired_records[1].first_offset, 5);
    EXPECT_EQ(p.acquired_records[1].last_offset, 6);
}

TEST_F(ShareFetchTest, LongPollIsWokenByAProduce) {
    create_topic("t");
    wire();
    auto req = request("m1", 0);
    req.max_wait_ms = 10000;
    req.min_bytes = 1;
    auto pending = start(handle_share_fetch, req, kShareFetchV1);
    auto batch = make_batch(3);
    protocol::ProduceRequest produce_req;
    produce_req.acks = 1;
    produce_req.topic_data.push_back({"t", {}, {{0, std::span<const std::byte>(batch)}}});
    auto produced = start(handle_produce, produce_req, 9);
    drive();
    ASSERT_TRUE(produced->response);
    ASSERT_TRUE(pending->response);
    const auto& p = only(*pending->response);
    ASSERT_EQ(p.acquired_records.size(), 1u);
    EXPECT_EQ(p.acquired_records[0].last_offset, 2);
}

// min_bytes as Kafka's DelayedShareFetch: the fetch waits until the log holds that many bytes
// past where the share-partition reads next, then acquires them all in one answer.
// min_bytes falls inside the second batch, which a read of min_bytes would not return whole: it
// counts all the same, and the fetch answers long before its max_wait_ms of a minute.
TEST_F(ShareFetchTest, MinBytesWaitsForEnoughBytes) {
    create_topic("t");
    wire();
    produce("t", 1);  // offset 0, one small batch
    auto req = request("m1", 0);
    req.max_wait_ms = 60000;
    req.min_bytes = static_cast<int32_t>(make_batch(1).size()) + 1;
    auto pending = start(handle_share_fetch, req, kShareFetchV1);
    auto batch = make_batch(3);  // offsets 1-3
    protocol::ProduceRequest produce_req;
    produce_req.acks = 1;
    produce_req.topic_data.push_back({"t", {}, {{0, std::span<const std::byte>(batch)}}});
    auto produced = start(handle_produce, produce_req, 9);
    io.restart();
    io.run_for(std::chrono::seconds(10));
    ASSERT_TRUE(produced->response);
    ASSERT_TRUE(pending->response) << "still waiting 10 s after min_bytes was there";
    const auto& p = only(*pending->response);
    ASSERT_EQ(p.acquired_records.size(), 1u);
    EXPECT_EQ(p.acquired_records[0].first_offset, 0);
    EXPECT_EQ(p.acquired_records[0].last_offset, 3);
}

TEST_F(ShareFetchTest, MinBytesNotReachedAnswersWhatThereIsAtMaxWait) {
    create_topic("t");
    wire();
    produce("t", 2);
    auto req = request("m1", 0);
    req.max_wait_ms = 50;
    req.min_bytes = 1 << 20;
    auto pending = start(handle_share_fetch, req, kShareFetchV1);
    drive();
    ASSERT_TRUE(pending->response);
    const auto& p = only(*pending->response);
    ASSERT_EQ(p.acquired_records.size(), 1u);
    EXPECT_EQ(p.acquired_records[0].first_offset, 0);
    EXPECT_EQ(p.acquired_records[0].last_offset, 1);
}

class ShareFetchAuthorizationTest : public ShareFetchTest {
  protected:
    void SetUp() override {
        ShareFetchTest::SetUp();
        config.authorizer_class_name = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";
        alice.principal = "User:alice";
        alice.host = "127.0.0.1";
        session = &alice;
    }
    void allow(security::ResourceType type, const std::string& name, security::AclOperation op) {
        auto error = broker().authorizer()->acls().add(
            {{type, name, security::PatternType::literal, "User:alice", "*", op,
              security::AclPermission::allow}});
        EXPECT_FALSE(error);
    }
    Session alice;
};

TEST_F(ShareFetchAuthorizationTest, ReadOnTheGroupAndOnEachTopic) {
    create_topic("t");
    create_topic("secret");
    wire();
    allow(security::ResourceType::topic, "t", security::AclOperation::write);
    produce("t", 1);
    EXPECT_EQ(fetch(request("m1", 0)).error_code, ErrorCode::group_authorization_failed);
    allow(security::ResourceType::group, "queue", security::AclOperation::read);
    auto r = fetch(request("m1", 0, "secret"));
    EXPECT_EQ(r.error_code, ErrorCode::none);
    EXPECT_EQ(only(r).error_code, ErrorCode::topic_authorization_failed);
    allow(security::ResourceType::topic, "t", security::AclOperation::read);
    EXPECT_EQ(only(fetch(request("m1", 0))).acquired_records.size(), 1u);
}

}  // namespace
}  // namespace skiff::broker::test
