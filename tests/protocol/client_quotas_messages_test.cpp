// KIP-546's DescribeClientQuotas (48) and AlterClientQuotas (49) v0-1: round trips, and the bytes
// of a float64 quota value as Kafka's schemas lay it out (IEEE 754, big-endian), the one field
// type no other API of skiff's carries.
#include <gtest/gtest.h>

#include "protocol/protocol.h"
#include "test_util.h"

namespace skiff::protocol {
namespace {

using test::bytes;
using test::for_each_version;
using test::memory_of;
using test::round_trip;

TEST(RoundTrip, DescribeClientQuotas) {
    DescribeClientQuotasRequest m;
    m.components = {{"user", 0, "alice"}, {"client-id", 1, std::nullopt}};
    m.strict = true;
    for_each_version(ApiKey::describe_client_quotas, [&](int16_t v) {
        round_trip(m, v, [&](const DescribeClientQuotasRequest& d) {
            ASSERT_EQ(d.components.size(), 2u);
            EXPECT_EQ(d.components[0].match, "alice");
            EXPECT_EQ(d.components[1].match_type, 1);
            EXPECT_EQ(d.components[1].match, std::nullopt);
            EXPECT_TRUE(d.strict);
        });
    });
    DescribeClientQuotasResponse r;
    r.entries.emplace();
    r.entries->push_back({{{"client-id", std::nullopt}}, {{"producer_byte_rate", 1048576.5}}});
    for_each_version(ApiKey::describe_client_quotas, [&](int16_t v) {
        round_trip(r, v, [&](const DescribeClientQuotasResponse& d) {
            ASSERT_TRUE(d.entries);
            ASSERT_EQ(d.entries->size(), 1u);
            EXPECT_EQ(d.entries->at(0).entity.at(0).entity_name, std::nullopt);
            EXPECT_EQ(d.entries->at(0).values.at(0).value, 1048576.5);
        });
    });
    DescribeClientQuotasResponse failed;
    failed.error_code = ErrorCode::invalid_request;
    failed.error_message = "bad filter";
    round_trip(failed, 1, [](const DescribeClientQuotasResponse& d) {
        EXPECT_FALSE(d.entries);  // null on error
        EXPECT_EQ(d.error_message, "bad filter");
    });
}

TEST(RoundTrip, AlterClientQuotas) {
    AlterClientQuotasRequest m;
    m.entries.push_back({{{"user", "alice"}, {"client-id", std::nullopt}},
                         {{"producer_byte_rate", 2048, false}, {"consumer_byte_rate", 0, true}}});
    m.validate_only = true;
    for_each_version(ApiKey::alter_client_quotas, [&](int16_t v) {
        round_trip(m, v, [&](const AlterClientQuotasRequest& d) {
            ASSERT_EQ(d.entries.size(), 1u);
            EXPECT_EQ(d.entries[0].entity.at(1).entity_name, std::nullopt);
            EXPECT_EQ(d.entries[0].ops.at(0).value, 2048);
            EXPECT_TRUE(d.entries[0].ops.at(1).remove);
            EXPECT_TRUE(d.validate_only);
        });
    });
    AlterClientQuotasResponse r;
    r.entries.push_back(
        {ErrorCode::invalid_request, "Invalid configuration key x", {{"user", "a"}}});
    for_each_version(ApiKey::alter_client_quotas, [&](int16_t v) {
        round_trip(r, v, [&](const AlterClientQuotasResponse& d) {
            EXPECT_EQ(d.entries.at(0).error_code, ErrorCode::invalid_request);
            EXPECT_EQ(d.entries.at(0).entity.at(0).entity_name, "a");
        });
    });
}

TEST(ClientQuotasBytes, AQuotaValueIsABigEndianFloat64) {
    AlterClientQuotasRequest m;
    m.entries.push_back({{{"user", std::nullopt}}, {{"k", 1048576.0, false}}});
    OutBuffer out;
    encode_message(m, 0, out);
    // entries [1]: entity [1]: "user", null name; ops [1]: "k", 1048576.0, false; validate_only
    const auto want = bytes({0,    0,    0, 1,                                        // entries
                             0,    0,    0, 1, 0, 4, 'u', 's', 'e', 'r', 0xff, 0xff,  // entity
                             0,    0,    0, 1, 0, 1, 'k',                             // ops, key
                             0x41, 0x30, 0, 0, 0, 0, 0,   0,                          // 2^20
                             0,                                                       // remove
                             0});  // validate_only
    EXPECT_EQ(memory_of(out), want);
}

}  // namespace
}  // namespace skiff::protocol
