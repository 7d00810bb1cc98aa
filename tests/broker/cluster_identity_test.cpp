#include "broker/cluster_identity.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace skiff::broker {
namespace {

namespace fs = std::filesystem;

TEST(ClusterIdentity, GeneratedOnceAndPersisted) {
    std::string t = (fs::temp_directory_path() / "skiff-meta-XXXXXX").string();
    fs::path dir = mkdtemp(t.data());
    std::string first = load_or_create_cluster_id(dir, 1);
    EXPECT_EQ(first.size(), 22u);  // base64url of 16 bytes, unpadded, as Kafka prints it
    EXPECT_EQ(
        first.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
        std::string::npos);
    EXPECT_EQ(load_or_create_cluster_id(dir, 1), first);
    std::ifstream in(dir / "meta.properties");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("cluster.id=" + first), std::string::npos);
    // Another node id on the same data is an operator error, refused at start-up.
    EXPECT_THROW(load_or_create_cluster_id(dir, 2), std::runtime_error);
    fs::remove_all(dir);
}

}  // namespace
}  // namespace skiff::broker
