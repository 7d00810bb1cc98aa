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

fs::path temp_dir() {
    std::string t = (fs::temp_directory_path() / "skiff-meta-XXXXXX").string();
    return mkdtemp(t.data());
}

void write_meta(const fs::path& dir, const std::string& text) {
    std::ofstream out(dir / "meta.properties", std::ios::binary | std::ios::trunc);
    out << text;
}

// What a power cut left of a meta.properties renamed into place before its bytes were on disk:
// no identity was ever durable, so the start goes on with a new one, durably written.
TEST(ClusterIdentity, EmptyFileLeftByAPowerCutGetsANewId) {
    for (const std::string& left : {std::string(), std::string(58, '\0'), std::string("\n")}) {
        fs::path dir = temp_dir();
        write_meta(dir, left);
        std::string id = load_or_create_cluster_id(dir, 1);
        EXPECT_EQ(id.size(), 22u);
        EXPECT_EQ(load_or_create_cluster_id(dir, 1), id);
        EXPECT_FALSE(fs::exists(dir / "meta.properties.tmp"));
        fs::remove_all(dir);
    }
}

// Something that is not an identity is refused, with the file named: the data may belong to
// another cluster or node.
TEST(ClusterIdentity, TornFileIsRefusedNamingIt) {
    for (const std::string& torn :
         {std::string("#\n#Written by skiff\nversion=1\nclus"), std::string("node.id=1\n"),
          std::string("cluster.id=abc\nnode.id=")}) {
        fs::path dir = temp_dir();
        write_meta(dir, torn);
        try {
            load_or_create_cluster_id(dir, 1);
            ADD_FAILURE() << "accepted " << torn;
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find((dir / "meta.properties").string()),
                      std::string::npos)
                << e.what();
        }
        fs::remove_all(dir);
    }
}

TEST(ClusterIdentity, CarriageReturnsAreTolerated) {
    fs::path dir = temp_dir();
    write_meta(dir, "version=1\r\ncluster.id=abc\r\nnode.id=1\r\n");
    EXPECT_EQ(load_or_create_cluster_id(dir, 1), "abc");
    fs::remove_all(dir);
}

}  // namespace
}  // namespace skiff::broker
