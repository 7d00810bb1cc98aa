// emulate.kafka.version as the router and ApiVersions use it (broker/control/version_emulation.h).
#include <gtest/gtest.h>

#include "broker/control/version_emulation.h"
#include "protocol/api_key.h"

namespace skiff::broker::control {
namespace {

using protocol::ApiKey;

TEST(VersionEmulationTest, ReleaseRangesWithinSkiffsAndUnknownReleasesRefused) {
    VersionEmulation emulation;
    EXPECT_EQ(emulation.current(), nullptr);
    EXPECT_TRUE(emulation.set("9.9").has_value());
    EXPECT_EQ(emulation.current(), nullptr);
    ASSERT_FALSE(emulation.set("2.8.1").has_value());
    const auto* e = emulation.current();
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->release, "2.8");
    EXPECT_TRUE(e->allows(static_cast<int16_t>(ApiKey::metadata), 11));
    EXPECT_FALSE(e->allows(static_cast<int16_t>(ApiKey::metadata), 12));
    EXPECT_TRUE(e->allows(static_cast<int16_t>(ApiKey::fetch), 12));
    EXPECT_FALSE(e->allows(static_cast<int16_t>(ApiKey::fetch), 13));
    // KIP-848 arrived after 2.8: not advertised, and refused.
    EXPECT_FALSE(e->allows(static_cast<int16_t>(ApiKey::consumer_group_heartbeat), 0));
    for (const auto& api : e->advertised)
        EXPECT_NE(api.api_key, static_cast<int16_t>(ApiKey::consumer_group_heartbeat));
    EXPECT_EQ(e->produce_min_accepted, 0);
    ASSERT_FALSE(emulation.set("4.0").has_value());
    EXPECT_EQ(emulation.current()->produce_min_accepted, 3);  // KAFKA-18659
    EXPECT_TRUE(
        emulation.current()->allows(static_cast<int16_t>(ApiKey::consumer_group_heartbeat), 0));
    ASSERT_FALSE(emulation.set("").has_value());
    EXPECT_EQ(emulation.current(), nullptr);
    EXPECT_EQ(e->release, "2.8");  // a table once handed out stays valid
}

}  // namespace
}  // namespace skiff::broker::control
