// The finalized feature levels and their file: bootstrap from the setting, UpdateFeatures'
// rules, the level kept over a restart unless the setting changed, and a damaged file.
#include "broker/txn/finalized_features.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace skiff::broker::txn {
namespace {

namespace fs = std::filesystem;
using protocol::ErrorCode;

struct FinalizedFeaturesTest : ::testing::Test {
    fs::path dir = fs::temp_directory_path() /
                   ("skiff-features-" + std::to_string(::getpid()) + "-" +
                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
    void SetUp() override {
        fs::remove_all(dir);
        fs::create_directories(dir);
    }
    void TearDown() override { fs::remove_all(dir); }
};

TEST_F(FinalizedFeaturesTest, BootstrapsFromTheSettingAndKeepsUpdates) {
    {
        FinalizedFeatures f(dir, 2);
        EXPECT_EQ(f.transaction_version(), 2);
        EXPECT_EQ(f.epoch(), 1);
        EXPECT_EQ(
            f.update("transaction.version", 0, FeatureUpgradeType::unsafe_downgrade, false).error,
            ErrorCode::none);
        EXPECT_EQ(f.transaction_version(), 0);
        EXPECT_EQ(f.epoch(), 2);
        // The same level again changes nothing, not even the epoch.
        EXPECT_EQ(f.update("transaction.version", 0, FeatureUpgradeType::upgrade, false).error,
                  ErrorCode::none);
        EXPECT_EQ(f.epoch(), 2);
    }
    FinalizedFeatures again(dir, 2);  // same setting: the update holds
    EXPECT_EQ(again.transaction_version(), 0);
    EXPECT_EQ(again.epoch(), 2);
    FinalizedFeatures changed(dir, 1);  // a changed setting wins, at a newer epoch
    EXPECT_EQ(changed.transaction_version(), 1);
    EXPECT_EQ(changed.epoch(), 3);
}

TEST_F(FinalizedFeaturesTest, RefusedUpdatesChangeNothing) {
    FinalizedFeatures f(dir, 1);
    auto r = f.update("transaction.version", 0, FeatureUpgradeType::upgrade, false);
    EXPECT_EQ(r.error, ErrorCode::invalid_update_version);
    EXPECT_FALSE(r.message.empty());
    EXPECT_EQ(f.update("transaction.version", 3, FeatureUpgradeType::upgrade, false).error,
              ErrorCode::invalid_update_version);
    EXPECT_EQ(f.update("transaction.version", 2, FeatureUpgradeType::safe_downgrade, false).error,
              ErrorCode::invalid_update_version);
    EXPECT_EQ(f.update("group.version", 1, FeatureUpgradeType::upgrade, false).error,
              ErrorCode::invalid_update_version);
    EXPECT_EQ(f.update("transaction.version", 2, FeatureUpgradeType::upgrade, true).error,
              ErrorCode::none);  // validate only
    EXPECT_EQ(f.transaction_version(), 1);
    EXPECT_EQ(f.epoch(), 1);
}

TEST_F(FinalizedFeaturesTest, ADamagedFileFallsBackToTheSetting) {
    std::ofstream(dir / "finalized-features") << "transaction.version=9\nepoch=x\n";
    FinalizedFeatures f(dir, 2);
    EXPECT_EQ(f.transaction_version(), 2);
    EXPECT_EQ(f.epoch(), 1);
    FinalizedFeatures again(dir, 2);  // and the file was rewritten whole
    EXPECT_EQ(again.transaction_version(), 2);
    EXPECT_EQ(again.epoch(), 1);
}

}  // namespace
}  // namespace skiff::broker::txn
