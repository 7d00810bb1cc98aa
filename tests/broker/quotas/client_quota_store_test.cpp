// The client quotas on disk: what AlterClientQuotas stored is there after a restart, written
// atomically, and a damaged file is refused at start with its line rather than read as "no
// quotas".
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "broker/quotas/client_quota_store.h"

namespace skiff::broker::quotas {
namespace {

// A data directory of the test's own, removed after it.
class QuotaDir {
  public:
    QuotaDir()
        : path_(std::filesystem::temp_directory_path() /
                ("skiff-quotas-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++))) {
        std::filesystem::remove_all(path_);
        std::filesystem::create_directories(path_);
    }
    ~QuotaDir() { std::filesystem::remove_all(path_); }
    const std::filesystem::path& path() const { return path_; }

  private:
    static inline int counter_ = 0;
    std::filesystem::path path_;
};

QuotaChange set(QuotaEntity e, const char* key, double v) {
    return {std::move(e), key, v};
}

TEST(ClientQuotaStore, ChangesAreThereAfterAReopenAndReachTheManager) {
    QuotaDir dir;
    ClientQuotaManager manager({});
    {
        auto store = ClientQuotaStore::open(dir.path(), manager);
        ASSERT_TRUE(store) << store.error();
        const QuotaEntity app{std::nullopt, EntityName::named("app id with spaces")};
        const QuotaEntity everyone{EntityName::default_name(), std::nullopt};
        ASSERT_TRUE(
            (*store)->apply({set(app, kProducerByteRate, 1024), set(app, kConsumerByteRate, 2048),
                             set(everyone, kProducerByteRate, 1e6)}));
        ASSERT_TRUE((*store)->apply({{app, kConsumerByteRate, std::nullopt}}));
    }
    ClientQuotaManager reopened_manager({});
    auto reopened = ClientQuotaStore::open(dir.path(), reopened_manager);
    ASSERT_TRUE(reopened) << reopened.error();
    const QuotaMap quotas = (*reopened)->snapshot();
    ASSERT_EQ(quotas.size(), 2u);
    const QuotaEntity app{std::nullopt, EntityName::named("app id with spaces")};
    EXPECT_EQ(quotas.at(app), (QuotaValues{{kProducerByteRate, 1024}}));
    // In Kafka's order the default user's quota comes before a client id's alone.
    EXPECT_EQ(reopened_manager.quota_for(QuotaKind::produce, "ANONYMOUS", "app id with spaces"),
              1e6);
    EXPECT_EQ(reopened_manager.quota_for(QuotaKind::produce, "bob", "x"), 1e6);
    EXPECT_FALSE(reopened_manager.enabled(QuotaKind::fetch));
}

TEST(ClientQuotaStore, RemovingTheLastKeyRemovesTheEntity) {
    QuotaDir dir;
    ClientQuotaManager manager({});
    auto store = ClientQuotaStore::open(dir.path(), manager);
    ASSERT_TRUE(store);
    const QuotaEntity e{EntityName::named("alice"), EntityName::default_name()};
    ASSERT_TRUE((*store)->apply({set(e, kProducerByteRate, 10)}));
    ASSERT_TRUE((*store)->apply({{e, kProducerByteRate, std::nullopt}}));
    EXPECT_TRUE((*store)->snapshot().empty());
    EXPECT_FALSE(manager.enabled(QuotaKind::produce));
}

TEST(ClientQuotaStore, TheFileRoundTrips) {
    QuotaMap quotas;
    quotas[{EntityName::named("a b"), EntityName::default_name()}][kConsumerByteRate] = 123456789;
    quotas[{std::nullopt, EntityName::named("=*-")}][kProducerByteRate] = 1;
    auto parsed = parse_quotas(serialize_quotas(quotas));
    ASSERT_TRUE(parsed) << parsed.error();
    EXPECT_EQ(*parsed, quotas);
}

TEST(ClientQuotaStore, ADamagedFileIsRefusedWithItsLine) {
    const std::string good =
        serialize_quotas({{{std::nullopt, EntityName::named("app")}, {{kProducerByteRate, 100}}}});
    // Truncated before its end line (a torn write the rename should have prevented).
    auto truncated = parse_quotas(good.substr(0, good.rfind("end")));
    ASSERT_FALSE(truncated);
    EXPECT_NE(truncated.error().find("end line"), std::string::npos);
    EXPECT_FALSE(parse_quotas("version 2\nend 0\n"));
    EXPECT_FALSE(parse_quotas("version 1\n- - producer_byte_rate 5\nend 1\n"));  // no entity
    auto bad_key = parse_quotas("version 1\n- * request_percentage 5\nend 1\n");
    ASSERT_FALSE(bad_key);
    EXPECT_NE(bad_key.error().find("line 2"), std::string::npos) << bad_key.error();
    EXPECT_FALSE(parse_quotas("version 1\n- * producer_byte_rate 5\nend 2\n"));  // wrong count
    EXPECT_FALSE(parse_quotas("version 1\n- * producer_byte_rate 5x\nend 1\n"));

    QuotaDir dir;
    { std::ofstream(dir.path() / kClientQuotasFileName) << "version 1\n- * producer_byte_rate"; }
    ClientQuotaManager manager({});
    auto store = ClientQuotaStore::open(dir.path(), manager);
    ASSERT_FALSE(store);
    EXPECT_NE(store.error().find("client-quotas"), std::string::npos) << store.error();
}

}  // namespace
}  // namespace skiff::broker::quotas
