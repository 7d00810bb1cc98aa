// ListPartitionReassignments: always the empty list (one broker never moves replicas), for all
// topics (null) or named ones.
#include <gtest/gtest.h>

#include "handler_fixture.h"

namespace skiff::broker::test {
namespace {

class ListPartitionReassignmentsTest : public HandlerTest {};

TEST_F(ListPartitionReassignmentsTest, NothingIsEverBeingMoved) {
    create_topic("t", 3);
    protocol::ListPartitionReassignmentsRequest all;
    auto resp = run(handle_list_partition_reassignments, all, 0);
    EXPECT_EQ(resp.error_code, ErrorCode::none);
    EXPECT_TRUE(resp.topics.empty());
    protocol::ListPartitionReassignmentsRequest named;
    named.topics = std::vector<protocol::ListPartitionReassignmentsTopics>{{"t", {0, 1, 2}}};
    resp = run(handle_list_partition_reassignments, named, 0);
    EXPECT_EQ(resp.error_code, ErrorCode::none);
    EXPECT_TRUE(resp.topics.empty());
}

}  // namespace
}  // namespace skiff::broker::test
