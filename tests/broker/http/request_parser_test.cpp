// Reading requests with nodejs/http-parser and skiff's limits: whole and split requests, bodies
// by length and chunked, pipelining, keep-alive, and every malformed or oversized case.
#include "broker/http/request_parser.h"

#include <gtest/gtest.h>

#include <string>

namespace skiff::broker::http {
namespace {

// Feeds `bytes` in pieces of `step` and returns the parser's state with what was left unused.
RequestParser::State feed_all(RequestParser& p, const std::string& bytes, size_t step,
                              std::string* rest = nullptr) {
    size_t at = 0;
    while (at < bytes.size() && p.state() == RequestParser::State::incomplete) {
        const size_t n = std::min(step, bytes.size() - at);
        at += p.feed(bytes.data() + at, n);
    }
    if (rest)
        *rest = bytes.substr(at);
    return p.state();
}

TEST(RequestParser, AWholeRequestInOneFeedOrByteByByte) {
    const std::string req =
        "POST /subjects/a%2Fb/versions?normalize=true HTTP/1.1\r\nHost: x\r\n"
        "Content-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"a\":\"b c\"}";
    for (size_t step : {req.size(), size_t{1}, size_t{7}}) {
        RequestParser p({});
        ASSERT_EQ(feed_all(p, req, step), RequestParser::State::complete) << step;
        EXPECT_TRUE(p.keep_alive());
        auto r = p.take();
        EXPECT_EQ(r.method, "POST");
        EXPECT_EQ(r.target, "/subjects/a%2Fb/versions?normalize=true");
        EXPECT_EQ(r.path, "/subjects/a%2Fb/versions");
        EXPECT_EQ(r.query, "normalize=true");
        EXPECT_EQ(r.header("content-type").value_or(""), "application/json");
        EXPECT_EQ(r.header("host").value_or(""), "x");
        EXPECT_EQ(r.body, "{\"a\":\"b c\"}");
    }
}

TEST(RequestParser, ChunkedBodiesArePutTogether) {
    RequestParser p({});
    const std::string req =
        "PUT /config HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
        "5\r\n{\"com\r\n9\r\npatibilit\r\n4\r\ny\":1\r\n1\r\n}\r\n0\r\n\r\n";
    ASSERT_EQ(feed_all(p, req, 3), RequestParser::State::complete);
    EXPECT_EQ(p.take().body, "{\"compatibility\":1}");
}

TEST(RequestParser, PipelinedRequestsComeOneAtATime) {
    RequestParser p({});
    const std::string two = "GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\nConnection: close\r\n\r\n";
    std::string rest;
    ASSERT_EQ(feed_all(p, two, two.size(), &rest), RequestParser::State::complete);
    EXPECT_EQ(p.take().path, "/a");
    EXPECT_EQ(rest, "GET /b HTTP/1.1\r\nConnection: close\r\n\r\n");
    ASSERT_EQ(feed_all(p, rest, rest.size()), RequestParser::State::complete);
    EXPECT_FALSE(p.keep_alive());
    EXPECT_EQ(p.take().path, "/b");
}

TEST(RequestParser, Http10ClosesUnlessKeptAlive) {
    RequestParser a({});
    ASSERT_EQ(feed_all(a, "GET / HTTP/1.0\r\n\r\n", 100), RequestParser::State::complete);
    EXPECT_FALSE(a.keep_alive());
    RequestParser b({});
    ASSERT_EQ(feed_all(b, "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", 100),
              RequestParser::State::complete);
    EXPECT_TRUE(b.keep_alive());
}

TEST(RequestParser, MalformedRequestsAre400) {
    for (const char* bad :
         {"garbage\r\n\r\n", "GET /metrics\r\n\r\n", "GET /metrics HTTP/2\r\n\r\n",
          "G(T /metrics HTTP/1.1\r\n\r\n", "GET /metrics HTTP/1.1\r\nno colon\r\n\r\n",
          "GET /metrics HTTP/1.1\r\nContent-Length: x\r\n\r\n", "\x01\x02garbage\r\n\r\n",
          "GET http://elsewhere/ HTTP/1.1\r\n\r\n",
          "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"}) {
        RequestParser p({});
        EXPECT_EQ(feed_all(p, bad, 100), RequestParser::State::failed) << bad;
        EXPECT_EQ(p.error_status(), 400) << bad;
        EXPECT_FALSE(p.keep_alive());
    }
}

TEST(RequestParser, AnOversizedHeadIs431AndAnOversizedBody413BeforeItIsRead) {
    ParserLimits limits{.max_head_bytes = 100, .max_body_bytes = 10};
    RequestParser head(limits);
    EXPECT_EQ(feed_all(head, "GET / HTTP/1.1\r\nX-Big: " + std::string(200, 'a') + "\r\n\r\n", 16),
              RequestParser::State::failed);
    EXPECT_EQ(head.error_status(), 431);

    RequestParser declared(limits);
    std::string rest;
    const std::string body(1000, 'x');
    EXPECT_EQ(
        feed_all(declared, "POST / HTTP/1.1\r\nContent-Length: 1000\r\n\r\n" + body, 4096, &rest),
        RequestParser::State::failed);
    EXPECT_EQ(declared.error_status(), 413);
    EXPECT_GE(rest.size(), body.size()) << "refused before reading the body";

    RequestParser chunked(limits);
    EXPECT_EQ(feed_all(chunked,
                       "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n12345678\r\n"
                       "8\r\n12345678\r\n0\r\n\r\n",
                       4096),
              RequestParser::State::failed);
    EXPECT_EQ(chunked.error_status(), 413);
}

TEST(RequestParser, ExpectContinueIsReportedUntilTheBodyStarts) {
    RequestParser p({});
    const std::string head =
        "POST /x HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n";
    EXPECT_EQ(feed_all(p, head, head.size()), RequestParser::State::incomplete);
    EXPECT_TRUE(p.expects_continue());
    EXPECT_EQ(feed_all(p, "{}", 2), RequestParser::State::complete);
    EXPECT_FALSE(p.expects_continue());
    EXPECT_EQ(p.take().body, "{}");
}

}  // namespace
}  // namespace skiff::broker::http
