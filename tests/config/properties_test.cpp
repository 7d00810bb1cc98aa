#include "config/properties.h"

#include <gtest/gtest.h>

namespace skiff::config {
namespace {

std::vector<PropertyEntry> parse(std::string_view text) {
    auto entries = parse_properties(text);
    EXPECT_TRUE(entries.has_value()) << entries.error().message;
    return entries ? *entries : std::vector<PropertyEntry>{};
}

TEST(Properties, SeparatorsAndWhitespace) {
    const auto entries = parse("a=1\nb: 2\nc 3\n  d  =  4  \ne\t:\tfive\nf\n");
    ASSERT_EQ(entries.size(), 6u);
    EXPECT_EQ(entries[0].key, "a");
    EXPECT_EQ(entries[0].value, "1");
    EXPECT_EQ(entries[1].key, "b");
    EXPECT_EQ(entries[1].value, "2");
    EXPECT_EQ(entries[2].key, "c");
    EXPECT_EQ(entries[2].value, "3");
    EXPECT_EQ(entries[3].key, "d");
    EXPECT_EQ(entries[3].value, "4  ");  // Java keeps trailing whitespace; typed parsing trims
    EXPECT_EQ(entries[4].key, "e");
    EXPECT_EQ(entries[4].value, "five");
    EXPECT_EQ(entries[5].key, "f");
    EXPECT_EQ(entries[5].value, "");
}

TEST(Properties, OnlyTheFirstSeparatorCounts) {
    const auto entries = parse("a = =b\nc:d=e\nurl=PLAINTEXT://h:1\n");
    ASSERT_EQ(entries.size(), 3u);
    EXPECT_EQ(entries[0].value, "=b");
    EXPECT_EQ(entries[1].key, "c");
    EXPECT_EQ(entries[1].value, "d=e");
    EXPECT_EQ(entries[2].value, "PLAINTEXT://h:1");
}

TEST(Properties, CommentsAndBlankLinesAreSkippedAndLinesCounted) {
    const auto entries =
        parse("# comment\n! also a comment\n\n   \n  # indented comment\nk=v # not a comment\n");
    ASSERT_EQ(entries.size(), 1u);
    EXPECT_EQ(entries[0].key, "k");
    EXPECT_EQ(entries[0].value, "v # not a comment");
    EXPECT_EQ(entries[0].line, 6);
}

TEST(Properties, LineContinuation) {
    const auto entries = parse("list=a,\\\n    b,\\\n    c\nnext=1\n");
    ASSERT_EQ(entries.size(), 2u);
    EXPECT_EQ(entries[0].value, "a,b,c");
    EXPECT_EQ(entries[0].line, 1);
    EXPECT_EQ(entries[1].line, 4);
}

TEST(Properties, EvenBackslashesDoNotContinue) {
    const auto entries = parse("path=C:\\\\\nnext=1\n");
    ASSERT_EQ(entries.size(), 2u);
    EXPECT_EQ(entries[0].value, "C:\\");
}

TEST(Properties, CommentLinesDoNotContinue) {
    const auto entries = parse("# comment \\\nk=v\n");
    ASSERT_EQ(entries.size(), 1u);
    EXPECT_EQ(entries[0].key, "k");
}

TEST(Properties, ContinuedLineStartingWithHashIsValue) {
    const auto entries = parse("k=a\\\n  #b\n");
    ASSERT_EQ(entries.size(), 1u);
    EXPECT_EQ(entries[0].value, "a#b");
}

TEST(Properties, Escapes) {
    const auto entries =
        parse("k\\=ey\\:x\\ y=tab\\there\\nnl\\\\back\\u0041\\u00e9\\q\ncrlf=1\r\nlast=2");
    ASSERT_EQ(entries.size(), 3u);
    EXPECT_EQ(entries[0].key, "k=ey:x y");
    EXPECT_EQ(entries[0].value, "tab\there\nnl\\backA\xC3\xA9q");
    EXPECT_EQ(entries[1].value, "1");
    EXPECT_EQ(entries[2].value, "2");
}

TEST(Properties, SurrogatePairBecomesOneCodePoint) {
    const auto entries = parse("k=\\uD83D\\uDE00\n");
    ASSERT_EQ(entries.size(), 1u);
    EXPECT_EQ(entries[0].value, "\xF0\x9F\x98\x80");
}

TEST(Properties, CarriageReturnLineEndings) {
    const auto entries = parse("a=1\rb=2\r\nc=3\n");
    ASSERT_EQ(entries.size(), 3u);
    EXPECT_EQ(entries[2].key, "c");
    EXPECT_EQ(entries[2].line, 3);
}

TEST(Properties, MalformedUnicodeEscapeIsAnError) {
    auto entries = parse_properties("ok=1\nbad=\\u12G4\n");
    ASSERT_FALSE(entries.has_value());
    EXPECT_EQ(entries.error().line, 2);
    EXPECT_NE(entries.error().message.find("\\uXXXX"), std::string::npos);
}

TEST(Properties, RepeatedKeysAreKeptInOrder) {
    const auto entries = parse("a=1\na=2\n");
    ASSERT_EQ(entries.size(), 2u);
    EXPECT_EQ(entries[1].value, "2");
}

}  // namespace
}  // namespace skiff::config
