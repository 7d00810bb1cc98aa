#include "broker/http/url.h"

#include <gtest/gtest.h>

namespace skiff::broker::http {
namespace {

TEST(Url, PercentDecodingIsStrict) {
    EXPECT_EQ(percent_decode("a%2Fb%20c").value_or("?"), "a/b c");
    EXPECT_EQ(percent_decode("a+b").value_or("?"), "a+b");
    EXPECT_EQ(percent_decode("a+b", true).value_or("?"), "a b");
    EXPECT_EQ(percent_decode("%e2%9C%93").value_or("?"), "\xe2\x9c\x93");
    for (const char* bad : {"%", "%2", "%zz", "a%g1", "%%"})
        EXPECT_FALSE(percent_decode(bad)) << bad;
}

TEST(Url, PathSegmentsAreDecodedOneByOne) {
    auto s = path_segments("/subjects/a%2F..%2Fconfig/versions");
    ASSERT_TRUE(s);
    EXPECT_EQ(*s, (std::vector<std::string>{"subjects", "a/../config", "versions"}));
    EXPECT_EQ(*path_segments("/"), (std::vector<std::string>{""}));
    EXPECT_EQ(*path_segments("/a//b/"), (std::vector<std::string>{"a", "", "b", ""}));
    EXPECT_FALSE(path_segments("/a/%zz"));
}

TEST(Url, QueryParameters) {
    auto q = parse_query("deleted=true&subjectPrefix=a%2Bb+c&flag&&x=1&x=2");
    ASSERT_TRUE(q);
    EXPECT_EQ(q->find("deleted")->second, "true");
    EXPECT_EQ(q->find("subjectPrefix")->second, "a+b c");
    EXPECT_EQ(q->find("flag")->second, "");
    EXPECT_EQ(q->count("x"), 2u);
    EXPECT_FALSE(parse_query("a=%x"));
    EXPECT_TRUE(parse_query("")->empty());
}

}  // namespace
}  // namespace skiff::broker::http
