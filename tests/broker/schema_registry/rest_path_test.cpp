// Paths, subject names and versions read as Confluent's JAX-RS layer reads them.
#include "broker/schema_registry/rest_path.h"

#include <gtest/gtest.h>

namespace skiff::schema_registry {
namespace {

using Segments = std::vector<std::string>;

TEST(RestPath, SegmentsAreSplitThenDecoded) {
    EXPECT_EQ(split_path("/"), Segments{});
    EXPECT_EQ(split_path("/subjects/a%2Fb/versions"), (Segments{"subjects", "a/b", "versions"}));
    EXPECT_EQ(split_path("/subjects/a+b/"), (Segments{"subjects", "a+b"}));
    EXPECT_EQ(split_path("/subjects/%41"), (Segments{"subjects", "A"}));
    for (const char* bad :
         {"", "subjects", "//", "/a//b", "/a/../b", "/./a", "/a/%", "/a/%4", "/a/%g1"})
        EXPECT_FALSE(split_path(bad)) << bad;
}

TEST(RestPath, SubjectNames) {
    EXPECT_TRUE(is_valid_subject("orders-value"));
    EXPECT_TRUE(is_valid_subject("a/b"));
    EXPECT_TRUE(is_valid_subject("caf\xC3\xA9"));
    EXPECT_TRUE(is_valid_subject("\xF0\x9F\x98\x80"));
    for (std::string_view bad :
         {std::string_view(""), std::string_view("a\0b", 3), std::string_view("a\nb"),
          std::string_view("\x7F"), std::string_view("\xC2\x85"), std::string_view("\xFF"),
          std::string_view("\xC0\xAF"), std::string_view("\xED\xA0\x80"),
          std::string_view("\xE2\x82"), std::string_view("."), std::string_view(".."),
          std::string_view("__GLOBAL"), std::string_view("__EMPTY")})
        EXPECT_FALSE(is_valid_subject(bad)) << bad;
}

TEST(RestPath, VersionsAsJavaParsesThem) {
    EXPECT_EQ(*parse_version("1"), 1);
    EXPECT_EQ(*parse_version("2147483647"), 2147483647);
    EXPECT_EQ(*parse_version("latest"), kLatestVersion);
    EXPECT_EQ(*parse_version(" Latest "), kLatestVersion);
    EXPECT_EQ(*parse_version("-1"), kLatestVersion);
    EXPECT_EQ(*parse_version("+7"), 7);
    for (const char* bad : {"", "0", "-2", "2147483648", "-2147483649", "1e3", "one", "- 1", "+"}) {
        auto v = parse_version(bad);
        ASSERT_FALSE(v) << bad;
        EXPECT_EQ(v.error().code, ErrorCode::kInvalidVersion);
    }
    EXPECT_EQ(*parse_java_int("-2147483648"), -2147483648LL);
}

TEST(RestPath, QueryFlagsAndIntegers) {
    RestRequest r;
    r.query = {{"deleted", "TRUE"}, {"permanent", "yes"}, {"offset", "3"}, {"limit", "x"}};
    EXPECT_TRUE(query_flag(r, "deleted"));
    EXPECT_FALSE(query_flag(r, "permanent"));
    EXPECT_FALSE(query_flag(r, "absent"));
    EXPECT_EQ(query_int(r, "offset", 0), 3);
    EXPECT_EQ(query_int(r, "absent", 9), 9);
    EXPECT_FALSE(query_int(r, "limit", 0));
}

}  // namespace
}  // namespace skiff::schema_registry
