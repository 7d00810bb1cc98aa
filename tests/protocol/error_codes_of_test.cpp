// for_each_error_code: every error code a response carries, at every level, only in the fields
// the version has.
#include "protocol/error_codes_of.h"

#include <gtest/gtest.h>

#include <vector>

#include "protocol/fetch.h"

namespace skiff::protocol {
namespace {

FetchResponse two_topics() {
    FetchResponse r;
    r.error_code = ErrorCode::none;
    FetchableTopicResponse a;
    a.topic = "a";
    a.partitions.resize(2);
    a.partitions[0].error_code = ErrorCode::none;
    a.partitions[1].error_code = ErrorCode::offset_out_of_range;
    FetchableTopicResponse b;
    b.topic = "b";
    b.partitions.resize(1);
    b.partitions[0].error_code = ErrorCode::unknown_topic_or_partition;
    r.responses = {a, b};
    return r;
}

std::vector<ErrorCode> codes(const FetchResponse& r, int16_t version) {
    std::vector<ErrorCode> out;
    for_each_error_code(r, version, [&](ErrorCode c) { out.push_back(c); });
    return out;
}

TEST(ErrorCodesOf, EveryPartitionAndTheTopLevelInWireOrder) {
    EXPECT_EQ(
        codes(two_topics(), 12),
        (std::vector<ErrorCode>{ErrorCode::none, ErrorCode::none, ErrorCode::offset_out_of_range,
                                ErrorCode::unknown_topic_or_partition}));
}

TEST(ErrorCodesOf, OnlyTheFieldsOfTheVersion) {
    // Fetch's top-level error_code exists from v7 on.
    EXPECT_EQ(codes(two_topics(), 4),
              (std::vector<ErrorCode>{ErrorCode::none, ErrorCode::offset_out_of_range,
                                      ErrorCode::unknown_topic_or_partition}));
}

}  // namespace
}  // namespace skiff::protocol
