// The durable ACL store (broker/security/acl_store.h): the file format round trip (escapes
// included), recovery after reopening, duplicate and filtered removal, and refusal of corrupt or
// truncated files with the file name and line in the message.
#include "broker/security/acl_store.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <stdexcept>

namespace skiff::broker::security {
namespace {

namespace fs = std::filesystem;

class AclStoreTest : public ::testing::Test {
  protected:
    AclStoreTest() {
        std::string t = (fs::temp_directory_path() / "skiff-acl-store-XXXXXX").string();
        if (!mkdtemp(t.data()))
            throw std::runtime_error("mkdtemp failed");
        dir_ = t;
    }
    ~AclStoreTest() override {
        std::error_code ec;
        fs::remove_all(dir_, ec);
    }
    fs::path file() const { return dir_ / kAclBindingsFile; }
    void write_text(const std::string& text) { std::ofstream(file(), std::ios::binary) << text; }
    fs::path dir_;
};

AclBinding store_binding(std::string name, PatternType pattern = PatternType::literal,
                         std::string principal = "User:alice",
                         AclOperation op = AclOperation::read) {
    AclBinding b;
    b.resource_type = ResourceType::topic;
    b.resource_name = std::move(name);
    b.pattern_type = pattern;
    b.principal = std::move(principal);
    b.operation = op;
    return b;
}

TEST_F(AclStoreTest, MissingFileIsEmpty) {
    AclStore store(file());
    EXPECT_TRUE(store.all().empty());
    EXPECT_FALSE(fs::exists(file()));
}

TEST_F(AclStoreTest, AddsAndRecoversAfterReopen) {
    {
        AclStore store(file());
        ASSERT_FALSE(
            store.add({store_binding("orders"), store_binding("ord", PatternType::prefixed)}));
        ASSERT_FALSE(store.add({store_binding("orders")}));  // already there: a success
        EXPECT_EQ(store.all().size(), 2u);
    }
    AclStore again(file());
    auto all = again.all();
    ASSERT_EQ(all.size(), 2u);
    EXPECT_EQ(all[0], store_binding("ord", PatternType::prefixed));
    EXPECT_EQ(all[1], store_binding("orders"));
    EXPECT_FALSE(fs::exists(file().string() + ".tmp"));
}

TEST_F(AclStoreTest, OddCharactersSurvive) {
    // A TLS subject as principal: commas, spaces, '=', and (absurd but legal) tabs and newlines.
    auto b = store_binding("t", PatternType::literal, "User:CN=a b,O=x\\y\tz\nw\r");
    b.host = "";
    {
        AclStore store(file());
        ASSERT_FALSE(store.add({b}));
    }
    AclStore again(file());
    ASSERT_EQ(again.all().size(), 1u);
    EXPECT_EQ(again.all()[0], b);
}

TEST_F(AclStoreTest, RemoveReturnsWhatEachFilterMatched) {
    AclStore store(file());
    ASSERT_FALSE(store.add({store_binding("a"), store_binding("b"),
                            store_binding("b", PatternType::literal, "User:bob")}));
    AclBindingFilter by_name;
    by_name.resource_name = "b";
    AclBindingFilter by_bob;
    by_bob.principal = "User:bob";
    AclBindingFilter none;
    none.resource_name = "zzz";
    auto removed = store.remove({by_name, by_bob, none});
    ASSERT_FALSE(removed.error);
    ASSERT_EQ(removed.per_filter.size(), 3u);
    EXPECT_EQ(removed.per_filter[0].size(), 2u);
    EXPECT_EQ(removed.per_filter[1].size(), 1u);  // also listed under the second filter
    EXPECT_TRUE(removed.per_filter[2].empty());
    EXPECT_EQ(store.all().size(), 1u);
    AclStore again(file());
    ASSERT_EQ(again.all().size(), 1u);
    EXPECT_EQ(again.all()[0].resource_name, "a");
}

TEST_F(AclStoreTest, ListFilters) {
    AclStore store(file());
    ASSERT_FALSE(store.add({store_binding("a"), store_binding("a-", PatternType::prefixed)}));
    AclBindingFilter f;
    f.resource_type = ResourceType::topic;
    f.resource_name = "a-1";
    f.pattern_type = PatternType::match;
    auto got = store.list(f);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].pattern_type, PatternType::prefixed);
}

TEST_F(AclStoreTest, FormatIsVersionedText) {
    const std::string text = format_acl_bindings({store_binding("orders")});
    EXPECT_EQ(text,
              "skiff-acl-bindings\t1\n"
              "TOPIC\tLITERAL\torders\tUser:alice\t*\tREAD\tALLOW\n"
              "end\t1\n");
    EXPECT_EQ(parse_acl_bindings(text, "x").size(), 1u);
}

void expect_refused(const std::string& text, const std::string& fragment) {
    try {
        parse_acl_bindings(text, "/data/acl-bindings");
        ADD_FAILURE() << "accepted: " << text;
    } catch (const std::runtime_error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("/data/acl-bindings"), std::string::npos) << what;
        EXPECT_NE(what.find(fragment), std::string::npos) << what;
    }
}

TEST_F(AclStoreTest, CorruptFilesAreRefused) {
    expect_refused("", "empty file");
    expect_refused("hello\n", "not an ACL file");
    expect_refused("skiff-acl-bindings\t2\nend\t0\n", "unsupported version 2");
    expect_refused("skiff-acl-bindings\t1\nTOPIC\tLITERAL\tt\tUser:a\t*\tREAD\tALLOW\n",
                   "truncated");
    expect_refused("skiff-acl-bindings\t1\nTOPIC\tLITERAL\tt\tUser:a\t*\tREAD\n", "line 2");
    expect_refused("skiff-acl-bindings\t1\nTOPIC\tLITERAL\tt\tUser:a\t*\tSMELL\tALLOW\nend\t1\n",
                   "unknown");
    expect_refused("skiff-acl-bindings\t1\nTOPIC\tLITERAL\tt\tUser:a\t*\tREAD\tALLOW\nend\t2\n",
                   "counts 2");
    expect_refused("skiff-acl-bindings\t1\nTOPIC\tMATCH\tt\tUser:a\t*\tREAD\tALLOW\nend\t1\n",
                   "Invalid patternType");
    expect_refused("skiff-acl-bindings\t1\nTOPIC\tLITERAL\tt\\q\tUser:a\t*\tREAD\tALLOW\nend\t1\n",
                   "bad escape");
    expect_refused("skiff-acl-bindings\t1\nend\t0\nTOPIC\n", "after the end line");
}

TEST_F(AclStoreTest, CorruptFileRefusedAtOpen) {
    write_text("skiff-acl-bindings\t1\nTOPIC\tLITERAL\tt\n");
    EXPECT_THROW(AclStore store(file()), std::runtime_error);
}

}  // namespace
}  // namespace skiff::broker::security
