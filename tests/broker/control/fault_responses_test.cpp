// The error action's Kafka 4.x extras (broker/control/request_hook.h, fault_responses.h):
// REBOOTSTRAP_REQUIRED in Metadata v13's top-level error only, and closed before v13; injected
// NOT_LEADER_OR_FOLLOWER / FENCED_LEADER_EPOCH answers carry KIP-951's leader hints.
#include <gtest/gtest.h>

#include "broker/control/request_hook.h"
#include "tests/broker/control/control_fixture.h"

namespace skiff::broker::test {
namespace {

using control::FaultAction;
using control::Fired;
using control::Interception;

class FaultResponsesTest : public ControlTest {
  protected:
    static Fired fired(ErrorCode error, FaultAction action = FaultAction::error) {
        Fired f;
        f.action = action;
        f.error = error;
        return f;
    }
    // complete() as the route calls it after the handler, at `version`.
    template <class Request, class Response>
    void complete(Interception<Request, Response>& plan, Response& response, int16_t version) {
        protocol::RequestHeader header;
        header.api_version = version;
        const std::string peer = "127.0.0.1:1";
        RequestContext ctx{.broker = broker(), .header = header, .peer = peer};
        control::complete(plan, response, version, ctx);
    }
};

TEST_F(FaultResponsesTest, RebootstrapGoesIntoTheTopLevelErrorFromV13) {
    create_topic("a");
    protocol::MetadataRequest req;
    req.topics.emplace();
    req.topics->push_back({protocol::Uuid{}, std::string("a")});
    auto resp = run(handle_metadata, req, 13);
    Interception<protocol::MetadataRequest, protocol::MetadataResponse> plan;
    plan.fired = fired(ErrorCode::rebootstrap_required);
    complete(plan, resp, 13);
    EXPECT_EQ(resp.error_code, ErrorCode::rebootstrap_required);
    ASSERT_EQ(resp.topics.size(), 1u);
    EXPECT_EQ(resp.topics[0].error_code, ErrorCode::none);  // the topics keep their answer
    EXPECT_EQ(resp.topics[0].partitions.at(0).error_code, ErrorCode::none);

    // Before v13 no field can carry it: the connection is closed instead (error and
    // fail_response alike); other errors and actions are not concerned.
    EXPECT_TRUE(control::rebootstrap_unsayable(fired(ErrorCode::rebootstrap_required), 12));
    EXPECT_TRUE(control::rebootstrap_unsayable(
        fired(ErrorCode::rebootstrap_required, FaultAction::fail_response), 0));
    EXPECT_FALSE(control::rebootstrap_unsayable(fired(ErrorCode::rebootstrap_required), 13));
    EXPECT_FALSE(control::rebootstrap_unsayable(fired(ErrorCode::unknown_server_error), 12));
    EXPECT_FALSE(control::rebootstrap_unsayable(
        fired(ErrorCode::rebootstrap_required, FaultAction::latency), 12));
}

TEST_F(FaultResponsesTest, InjectedNotLeaderNamesTheLeaderInProduceAndFetch) {
    create_topic("a");
    auto batch = make_batch(1);
    protocol::ProduceRequest req;
    req.acks = -1;
    req.topic_data.push_back({"a", {}, {{0, std::span<const std::byte>(batch)}}});
    Interception<protocol::ProduceRequest, protocol::ProduceResponse> plan;
    plan.fired = fired(ErrorCode::not_leader_or_follower);
    auto split = control::split_produce(req, *plan.fired);
    plan.run_handler = false;
    plan.answer = std::move(split.refused);
    protocol::ProduceResponse produced;
    complete(plan, produced, 10);
    const auto& p = produced.responses.at(0).partition_responses.at(0);
    EXPECT_EQ(p.error_code, ErrorCode::not_leader_or_follower);
    ASSERT_TRUE(p.current_leader);
    EXPECT_EQ(p.current_leader->leader_id, broker().node_id());
    EXPECT_EQ(p.current_leader->leader_epoch, 0);
    ASSERT_EQ(produced.node_endpoints.size(), 1u);
    EXPECT_EQ(produced.node_endpoints[0].port, broker().advertised("").port);

    protocol::FetchResponse fetched;
    protocol::FetchableTopicResponse t;
    t.topic = "a";
    t.partitions.emplace_back();
    fetched.responses.push_back(std::move(t));
    Interception<protocol::FetchRequest, protocol::FetchResponse> fetch_plan;
    fetch_plan.fired = fired(ErrorCode::fenced_leader_epoch, FaultAction::fail_response);
    complete(fetch_plan, fetched, 16);
    const auto& f = fetched.responses[0].partitions[0];
    EXPECT_EQ(f.error_code, ErrorCode::fenced_leader_epoch);
    EXPECT_EQ(f.current_leader, (protocol::LeaderIdAndEpoch{broker().node_id(), 0}));
    EXPECT_EQ(fetched.node_endpoints.size(), 1u);
}

}  // namespace
}  // namespace skiff::broker::test
