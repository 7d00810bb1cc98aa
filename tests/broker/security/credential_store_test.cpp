#include "broker/security/credential_store.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

namespace skiff::broker::security {
namespace {

namespace fs = std::filesystem;

class CredentialStoreTest : public ::testing::Test {
  protected:
    void SetUp() override {
        std::random_device rd;
        dir_ = fs::temp_directory_path() / ("skiff-credential-store-" + std::to_string(::getpid()) +
                                            "-" + std::to_string(rd()));
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    std::unique_ptr<CredentialStore> open_store() {
        auto store = CredentialStore::open(dir_);
        EXPECT_TRUE(store) << (store ? "" : store.error().message);
        return store ? std::move(*store) : nullptr;
    }
    std::string file_text() const {
        std::ifstream in(dir_ / kScramCredentialsFileName);
        std::ostringstream s;
        s << in.rdbuf();
        return s.str();
    }
    void write_file(const fs::path& path, const std::string& text) const {
        std::ofstream out(path, std::ios::trunc | std::ios::binary);
        out << text;
    }

    fs::path dir_;
};

TEST_F(CredentialStoreTest, MissingFileIsAnEmptyStore) {
    auto store = open_store();
    ASSERT_TRUE(store);
    EXPECT_EQ(store->user_count(), 0u);
    EXPECT_FALSE(store->lookup("alice", ScramMechanism::sha256));
    EXPECT_FALSE(fs::exists(dir_ / kScramCredentialsFileName));
}

TEST_F(CredentialStoreTest, AddReplaceRemove) {
    auto store = open_store();
    ASSERT_TRUE(store);
    auto first = new_scram_credential(ScramMechanism::sha256, "pw1");
    ASSERT_TRUE(store->set("alice", ScramMechanism::sha256, first));
    ASSERT_TRUE(store->set("alice", ScramMechanism::sha512,
                           new_scram_credential(ScramMechanism::sha512, "pw1", 8192)));
    ASSERT_TRUE(store->set("bob", ScramMechanism::sha256,
                           new_scram_credential(ScramMechanism::sha256, "pw2")));
    EXPECT_EQ(store->lookup("alice", ScramMechanism::sha256)->stored_key, first.stored_key);
    EXPECT_EQ(store->lookup("alice", ScramMechanism::sha512)->iterations, 8192);
    EXPECT_FALSE(store->lookup("bob", ScramMechanism::sha512));

    auto listed = store->list();
    ASSERT_EQ(listed.size(), 2u);
    EXPECT_EQ(listed[0].user, "alice");
    ASSERT_EQ(listed[0].mechanisms.size(), 2u);
    EXPECT_EQ(listed[0].mechanisms[0].first, ScramMechanism::sha256);
    EXPECT_EQ(listed[0].mechanisms[1].second, 8192);
    EXPECT_EQ(listed[1].user, "bob");

    // Replace.
    auto second = new_scram_credential(ScramMechanism::sha256, "pw3");
    ASSERT_TRUE(store->set("alice", ScramMechanism::sha256, second));
    EXPECT_EQ(store->lookup("alice", ScramMechanism::sha256)->stored_key, second.stored_key);

    // Remove one mechanism, then the rest.
    auto removed = store->remove("alice", ScramMechanism::sha512);
    ASSERT_TRUE(removed);
    EXPECT_TRUE(*removed);
    EXPECT_FALSE(store->lookup("alice", ScramMechanism::sha512));
    EXPECT_TRUE(store->lookup("alice", ScramMechanism::sha256));
    removed = store->remove("alice", ScramMechanism::sha512);
    ASSERT_TRUE(removed);
    EXPECT_FALSE(*removed);
    removed = store->remove("alice", ScramMechanism::sha256);
    ASSERT_TRUE(removed);
    EXPECT_TRUE(*removed);
    EXPECT_EQ(store->user_count(), 1u);

    auto gone = store->remove_user("bob");
    ASSERT_TRUE(gone);
    EXPECT_TRUE(*gone);
    gone = store->remove_user("bob");
    ASSERT_TRUE(gone);
    EXPECT_FALSE(*gone);
    EXPECT_EQ(store->user_count(), 0u);
}

TEST_F(CredentialStoreTest, RefusesInvalidCredentials) {
    auto store = open_store();
    ASSERT_TRUE(store);
    EXPECT_FALSE(
        store->set("", ScramMechanism::sha256, new_scram_credential(ScramMechanism::sha256, "pw")));
    auto weak = derive_scram_credential(ScramMechanism::sha256, "pw", "salt", 1000);
    EXPECT_FALSE(store->set("alice", ScramMechanism::sha256, weak));
    // A SHA-256 credential filed under SHA-512.
    EXPECT_FALSE(store->set("alice", ScramMechanism::sha512,
                            new_scram_credential(ScramMechanism::sha256, "pw")));
    EXPECT_EQ(store->user_count(), 0u);
}

TEST_F(CredentialStoreTest, ReloadFromDisk) {
    const std::string odd_name = "a user, with = signs\nand a newline";
    auto credential = new_scram_credential(ScramMechanism::sha512, "hunter-2");
    {
        auto store = open_store();
        ASSERT_TRUE(store);
        ASSERT_TRUE(store->set(odd_name, ScramMechanism::sha512, credential));
        ASSERT_TRUE(store->set("bob", ScramMechanism::sha256,
                               new_scram_credential(ScramMechanism::sha256, "hunter-2")));
    }
    auto reopened = open_store();
    ASSERT_TRUE(reopened);
    EXPECT_EQ(reopened->user_count(), 2u);
    auto found = reopened->lookup(odd_name, ScramMechanism::sha512);
    ASSERT_TRUE(found);
    EXPECT_EQ(found->salt, credential.salt);
    EXPECT_EQ(found->stored_key, credential.stored_key);
    EXPECT_EQ(found->server_key, credential.server_key);
    EXPECT_EQ(found->iterations, credential.iterations);

    const std::string text = file_text();
    EXPECT_TRUE(text.find("\nversion 1\n") != std::string::npos) << text;
    EXPECT_TRUE(text.ends_with("end 2\n")) << text;
    EXPECT_EQ(text.find("hunter-2"), std::string::npos);
    struct stat st {};
    ASSERT_EQ(::stat((dir_ / kScramCredentialsFileName).c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_F(CredentialStoreTest, CreatesTheDataDirectory) {
    dir_ /= "not-yet";
    auto store = open_store();
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->set("alice", ScramMechanism::sha256,
                           new_scram_credential(ScramMechanism::sha256, "pw")));
    EXPECT_TRUE(fs::exists(dir_ / kScramCredentialsFileName));
}

TEST_F(CredentialStoreTest, CorruptFileRefused) {
    std::string good;
    {
        auto store = open_store();
        ASSERT_TRUE(store);
        ASSERT_TRUE(store->set("alice", ScramMechanism::sha256,
                               new_scram_credential(ScramMechanism::sha256, "pw")));
        good = file_text();
    }
    const auto path = dir_ / kScramCredentialsFileName;
    const size_t end_at = good.find("end 1\n");
    ASSERT_NE(end_at, std::string::npos);
    const std::string body = good.substr(0, end_at);
    const std::vector<std::string> corrupt = {
        "",                               // empty
        good.substr(0, good.size() - 1),  // last newline cut off
        body,                             // truncated: no end line
        body + "end 2\n",                 // wrong count
        good + "extra\n",                 // text after the end
        "version 2\nend 0\n",             // unknown version
        "end 0\n",                        // no version
        "version 1\nYWxpY2U= SCRAM-SHA-1 4096 AAAA AAAA AAAA\nend 1\n",
        "version 1\nYWxpY2U= SCRAM-SHA-256 100 AAAA AAAA AAAA\nend 1\n",
        "version 1\nYWxpY2U= SCRAM-SHA-256 4096 AAAA AAAA AAAA\nend 1\n",  // short keys
        "version 1\n!!!! SCRAM-SHA-256 4096 AAAA AAAA AAAA\nend 1\n",
        body + body.substr(body.find("version 1\n") + 10) + "end 2\n",  // duplicate
    };
    for (const auto& text : corrupt) {
        write_file(path, text);
        auto store = CredentialStore::open(dir_);
        ASSERT_FALSE(store) << "accepted:\n" << text;
        EXPECT_NE(store.error().message.find(path.string()), std::string::npos)
            << store.error().message;
        EXPECT_NE(store.error().message.find("corrupt"), std::string::npos);
    }
    write_file(path, good);
    EXPECT_TRUE(CredentialStore::open(dir_));
}

TEST_F(CredentialStoreTest, TornTempFileIgnored) {
    auto credential = new_scram_credential(ScramMechanism::sha256, "pw");
    {
        auto store = open_store();
        ASSERT_TRUE(store);
        ASSERT_TRUE(store->set("alice", ScramMechanism::sha256, credential));
    }
    // A crash mid-write leaves a partial .tmp next to the last complete file.
    const auto tmp = dir_ / (std::string(kScramCredentialsFileName) + ".tmp");
    write_file(tmp, "# skiff SCRAM\nversion 1\nYm9i SCRAM-SHA-2");
    auto store = open_store();
    ASSERT_TRUE(store);
    EXPECT_EQ(store->user_count(), 1u);
    EXPECT_EQ(store->lookup("alice", ScramMechanism::sha256)->stored_key, credential.stored_key);
    // The next write replaces it.
    ASSERT_TRUE(store->set("bob", ScramMechanism::sha256, credential));
    EXPECT_FALSE(fs::exists(tmp));
    auto reopened = open_store();
    ASSERT_TRUE(reopened);
    EXPECT_EQ(reopened->user_count(), 2u);

    // A .tmp with no file at all (the first write never renamed): no users.
    fs::remove(dir_ / kScramCredentialsFileName);
    write_file(tmp, "garbage");
    auto empty = open_store();
    ASSERT_TRUE(empty);
    EXPECT_EQ(empty->user_count(), 0u);
}

TEST_F(CredentialStoreTest, LookupsWhileChanging) {
    auto store = open_store();
    ASSERT_TRUE(store);
    auto credential = new_scram_credential(ScramMechanism::sha256, "pw");
    ASSERT_TRUE(store->set("reader", ScramMechanism::sha256, credential));
    std::atomic<bool> stop{false};
    std::atomic<int> misses{0};
    std::thread reader([&] {
        while (!stop) {
            auto c = store->lookup("reader", ScramMechanism::sha256);
            if (!c || c->stored_key != credential.stored_key)
                ++misses;
        }
    });
    for (int i = 0; i < 20; ++i) {
        ASSERT_TRUE(store->set("writer" + std::to_string(i), ScramMechanism::sha256, credential));
        ASSERT_TRUE(store->remove_user("writer" + std::to_string(i)));
    }
    stop = true;
    reader.join();
    EXPECT_EQ(misses, 0);
}

TEST_F(CredentialStoreTest, ExchangeAgainstTheStore) {
    auto store = open_store();
    ASSERT_TRUE(store);
    ASSERT_TRUE(
        store->set("user", ScramMechanism::sha256,
                   derive_scram_credential(ScramMechanism::sha256, "pencil",
                                           *base64_decode("W22ZaJ0SNY7soEsUEjb6gQ=="), 4096)));
    ScramServerExchange exchange(ScramMechanism::sha256, store->lookup_for(ScramMechanism::sha256),
                                 "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0");
    ASSERT_TRUE(exchange.client_first("n,,n=user,r=rOprNGfwEbeRWgbNEkqO"));
    auto final = exchange.client_final(
        "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
        "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=");
    ASSERT_TRUE(final);
    EXPECT_EQ(*final, "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=");
}

}  // namespace
}  // namespace skiff::broker::security
