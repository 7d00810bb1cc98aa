// ShareAcknowledge (79) over fakes of the share-group seams: acknowledgements within an open
// share session, per-partition errors (INVALID_RECORD_STATE passed through, UNKNOWN_TOPIC_ID,
// UNKNOWN_TOPIC_OR_PARTITION), the session rules (epoch 0 cannot open one:
// INVALID_SHARE_SESSION_EPOCH; SHARE_SESSION_NOT_FOUND; -1 closes it and releases what the member
// held), v2's lock timeout and renew, the member checks and share groups off.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "broker/topics/topic_ids.h"
#include "handler_fixture.h"
#include "protocol/produce.h"
#include "protocol/share_acknowledge.h"
#include "protocol/share_fetch.h"
#include "share_fakes.h"

namespace skiff::broker::test {
namespace {

using protocol::ShareAcknowledgeRequest;
using protocol::ShareAcknowledgeResponse;

class ShareAcknowledgeTest : public HandlerTest {
  protected:
    void SetUp() override {
        membership.groups["queue"] = {"m1", "m2"};
        membership.group_config.record_lock_duration_ms = 20000;
    }
    void wire() {
        broker().set_share_membership(&membership);
        broker().set_share_partitions(&partitions);
    }
    protocol::Uuid topic_id(const std::string& topic) {
        return to_uuid(*broker().logs().topic_id(topic));
    }
    // A topic with `records` records, all acquired by m1 through a ShareFetch that opened its
    // session (next epoch 1).
    void acquired_by_m1(int records) {
        create_topic("t");
        wire();
        auto batch = make_batch(records);
        protocol::ProduceRequest produce;
        produce.acks = -1;
        produce.topic_data.push_back({"t", {}, {{0, std::span<const std::byte>(batch)}}});
        ASSERT_EQ(run(handle_produce, produce, 9).responses[0].partition_responses[0].error_code,
                  ErrorCode::none);
        protocol::ShareFetchRequest fetch;
        fetch.group_id = "queue";
        fetch.member_id = "m1";
        fetch.share_session_epoch = 0;
        fetch.max_bytes = 1 << 20;
        fetch.max_records = 500;
        fetch.topics.push_back({topic_id("t"), {{0, {}}}});
        auto r = run(handle_share_fetch, fetch, 1);
        ASSERT_EQ(r.error_code, ErrorCode::none);
        ASSERT_EQ(r.responses.at(0).partitions.at(0).acquired_records.size(), 1u);
    }
    ShareAcknowledgeRequest request(const std::string& member, int32_t epoch, int64_t first,
                                    int64_t last, int8_t type) {
        ShareAcknowledgeRequest req;
        req.group_id = "queue";
        req.member_id = member;
        req.share_session_epoch = epoch;
        req.topics.push_back({topic_id("t"), {{0, {{first, last, {type}}}}}});
        return req;
    }
    ShareAcknowledgeResponse acknowledge(const ShareAcknowledgeRequest& req, int16_t v = 1) {
        return run(handle_share_acknowledge, req, v);
    }
    static ErrorCode partition_error(const ShareAcknowledgeResponse& r) {
        return r.responses.at(0).partitions.at(0).error_code;
    }

    FakeShareMembership membership;
    FakeSharePartitionManager partitions;
};

TEST_F(ShareAcknowledgeTest, AcknowledgesWithinTheSession) {
    acquired_by_m1(4);
    auto r = acknowledge(request("m1", 1, 0, 3, 1));
    EXPECT_EQ(r.error_code, ErrorCode::none);
    EXPECT_EQ(partition_error(r), ErrorCode::none);
    EXPECT_EQ(partitions.state("queue", "t", 0).acknowledged.size(), 4u);
    // The session moved on: epoch 1 again is stale.
    EXPECT_EQ(acknowledge(request("m1", 1, 0, 0, 1)).error_code,
              ErrorCode::invalid_share_session_epoch);
    EXPECT_EQ(acknowledge(request("m1", 2, 0, 0, 1)).error_code, ErrorCode::none);
}

// Durable mode: answered once the manager's write for the acknowledgement is synced by the
// group committer.
TEST_F(ShareAcknowledgeTest, DurableModeAnswersOnceTheStateWriteIsSynced) {
    config.log_flush_interval_messages = 1;
    acquired_by_m1(2);
    create_topic("state");
    partitions.state_log = broker().logs().get({"state", 0});
    ASSERT_TRUE(partitions.state_log->durable_mode());
    EXPECT_EQ(partition_error(acknowledge(request("m1", 1, 0, 1, 1))), ErrorCode::none);
    EXPECT_EQ(partitions.state_log->log_end_offset(), 1);
    EXPECT_EQ(partitions.state_log->high_watermark(), 1);  // synced before the answer
}

TEST_F(ShareAcknowledgeTest, InvalidRecordStateIsPassedThrough) {
    acquired_by_m1(2);
    // m2 opens a session of its own, then acknowledges what m1 holds.
    protocol::ShareFetchRequest fetch;
    fetch.group_id = "queue";
    fetch.member_id = "m2";
    fetch.max_bytes = 1 << 20;
    ASSERT_EQ(run(handle_share_fetch, fetch, 1).error_code, ErrorCode::none);
    auto r = acknowledge(request("m2", 1, 0, 1, 1));
    EXPECT_EQ(r.error_code, ErrorCode::none);
    EXPECT_EQ(partition_error(r), ErrorCode::invalid_record_state);
    EXPECT_TRUE(partitions.state("queue", "t", 0).acknowledged.empty());
    EXPECT_EQ(partitions.state("queue", "t", 0).acquired.size(), 2u);
}

TEST_F(ShareAcknowledgeTest, EpochZeroCannotOpenASession) {
    acquired_by_m1(1);
    EXPECT_EQ(acknowledge(request("m1", 0, 0, 0, 1)).error_code,
              ErrorCode::invalid_share_session_epoch);
    EXPECT_EQ(partitions.acknowledge_calls, 0);
}

TEST_F(ShareAcknowledgeTest, NoSessionIsShareSessionNotFound) {
    acquired_by_m1(1);
    EXPECT_EQ(acknowledge(request("m2", 1, 0, 0, 1)).error_code,
              ErrorCode::share_session_not_found);
    EXPECT_EQ(acknowledge(request("m2", -1, 0, 0, 1)).error_code,
              ErrorCode::share_session_not_found);
    EXPECT_EQ(partitions.acknowledge_calls, 0);
}

TEST_F(ShareAcknowledgeTest, TheFinalEpochClosesTheSessionAndReleases) {
    acquired_by_m1(3);
    auto r = acknowledge(request("m1", -1, 0, 0, 3));  // REJECT the first
    EXPECT_EQ(r.error_code, ErrorCode::none);
    EXPECT_EQ(partition_error(r), ErrorCode::none);
    EXPECT_EQ(partitions.state("queue", "t", 0).acknowledged[0], 3);
    EXPECT_EQ(partitions.released, (std::vector<std::string>{"queue/m1"}));
    EXPECT_TRUE(partitions.state("queue", "t", 0).acquired.empty());
    EXPECT_EQ(broker().share_sessions().size(), 0u);
    EXPECT_EQ(acknowledge(request("m1", 1, 1, 1, 1)).error_code,
              ErrorCode::share_session_not_found);
}

TEST_F(ShareAcknowledgeTest, AFinalAcknowledgementAfterTheMembersLeaveIsApplied) {
    // librdkafka's close sends the leave heartbeat and its last ShareAcknowledges on two
    // connections at once; the leave may be served first. The session is then closing: its
    // acknowledgements are applied until the final one (epoch -1) closes it; after that the
    // member is unknown.
    acquired_by_m1(3);
    membership.groups["queue"].erase("m1");
    ASSERT_TRUE(broker().share_sessions().member_leaving("queue", "m1", 0));
    auto first = acknowledge(request("m1", 1, 0, 0, 1));
    EXPECT_EQ(first.error_code, ErrorCode::none);
    EXPECT_EQ(partition_error(first), ErrorCode::none);
    auto r = acknowledge(request("m1", -1, 1, 2, 1));
    EXPECT_EQ(r.error_code, ErrorCode::none);
    EXPECT_EQ(partition_error(r), ErrorCode::none);
    EXPECT_EQ(partitions.state("queue", "t", 0).acknowledged.size(), 3u);
    // The session is gone; a member that left without one gets nothing of this.
    EXPECT_FALSE(broker().share_sessions().has_session("queue", "m1"));
    EXPECT_EQ(acknowledge(request("m1", -1, 0, 0, 1)).error_code, ErrorCode::unknown_member_id);
}

TEST_F(ShareAcknowledgeTest, MemberChecks) {
    acquired_by_m1(1);
    EXPECT_EQ(acknowledge(request("stranger", 1, 0, 0, 1)).error_code,
              ErrorCode::unknown_member_id);
    auto req = request("m1", 1, 0, 0, 1);
    req.group_id = "other";
    EXPECT_EQ(acknowledge(req).error_code, ErrorCode::group_id_not_found);
    req.group_id.reset();
    EXPECT_EQ(acknowledge(req).error_code, ErrorCode::invalid_request);
    EXPECT_EQ(partitions.acknowledge_calls, 0);
}

TEST_F(ShareAcknowledgeTest, UnknownTopicsAndPartitions) {
    acquired_by_m1(1);
    auto req = request("m1", 1, 0, 0, 1);
    protocol::Uuid unknown;
    unknown.bytes[3] = 9;
    req.topics.push_back({unknown, {{0, {{0, 0, {1}}}}}});
    req.topics.push_back({topic_id("t"), {{7, {{0, 0, {1}}}}}});
    auto r = acknowledge(req);
    ASSERT_EQ(r.responses.size(), 3u);
    EXPECT_EQ(r.responses[0].partitions[0].error_code, ErrorCode::none);
    EXPECT_EQ(r.responses[1].partitions[0].error_code, ErrorCode::unknown_topic_id);
    EXPECT_EQ(r.responses[2].partitions[0].error_code, ErrorCode::unknown_topic_or_partition);
}

TEST_F(ShareAcknowledgeTest, V2RenewAndLockTimeout) {
    acquired_by_m1(2);
    auto req = request("m1", 1, 0, 1, 4);  // RENEW
    auto plain = acknowledge(req, 2);
    EXPECT_EQ(partition_error(plain), ErrorCode::invalid_request);  // not a renew request
    EXPECT_EQ(plain.acquisition_lock_timeout_ms, 20000);
    req.share_session_epoch = 2;
    req.is_renew_ack = true;
    auto renewed = acknowledge(req, 2);
    EXPECT_EQ(partition_error(renewed), ErrorCode::none);
}

TEST_F(ShareAcknowledgeTest, WithoutTheShareGroupSeamsItIsUnsupported) {
    // The broker opens them at start-up; a broker without them (none of its share parts open)
    // must answer, not crash.
    broker().set_share_membership(nullptr);
    broker().set_share_partitions(nullptr);
    broker().set_share_offsets_admin(nullptr);
    create_topic("t");
    auto r = acknowledge(request("m1", 1, 0, 0, 1));
    EXPECT_EQ(r.error_code, ErrorCode::unsupported_version);
}

}  // namespace
}  // namespace skiff::broker::test
