// Reads HTTP/1.x requests off a byte stream with nodejs/http-parser (Debian's libhttp-parser),
// the parser Node.js served HTTP with for a decade: request line, headers, Content-Length and
// chunked bodies, keep-alive and pipelining, strictly (a malformed request is an error, never
// guessed at). This class adds skiff's limits: the request head (target and headers) at most
// `max_head_bytes` (431 beyond), the body at most `max_body_bytes` (413 beyond, refused from
// Content-Length before a byte of the body is read).
//
// Feed it what the socket gave; it stops after each whole request (pipelined bytes after it are
// left unconsumed for the next feed, after take()). One connection's parser, not thread-safe.
#pragma once

#include <http_parser.h>

#include <cstddef>
#include <string>

#include "broker/http/http_message.h"

namespace skiff::broker::http {

struct ParserLimits {
    size_t max_head_bytes = size_t{16} * 1024;
    size_t max_body_bytes = size_t{1024} * 1024;
};

class RequestParser {
  public:
    enum class State { incomplete, complete, failed };

    explicit RequestParser(ParserLimits limits);
    RequestParser(const RequestParser&) = delete;
    RequestParser& operator=(const RequestParser&) = delete;

    // Parses up to `size` bytes and returns how many it used: all of them unless a request
    // completed (the rest belongs to the next one) or the input failed.
    size_t feed(const char* data, size_t size);

    State state() const { return state_; }
    // Once failed: the status to answer (400, 413, 431) and why.
    int error_status() const { return error_status_; }
    const std::string& error() const { return error_; }
    // The headers are in and the client waits for "100 Continue" before sending the body.
    bool expects_continue() const { return expects_continue_; }
    // Whether the connection may carry another request after this one (HTTP/1.1 without
    // "Connection: close", or HTTP/1.0 with keep-alive).
    bool keep_alive() const { return keep_alive_; }

    // The complete request; the parser is then ready for the next one.
    HttpRequest take();

  private:
    static int on_url(http_parser* p, const char* at, size_t n);
    static int on_header_field(http_parser* p, const char* at, size_t n);
    static int on_header_value(http_parser* p, const char* at, size_t n);
    static int on_headers_complete(http_parser* p);
    static int on_body(http_parser* p, const char* at, size_t n);
    static int on_message_complete(http_parser* p);
    bool count_head(size_t n);
    void fail(int status, std::string why);

    ParserLimits limits_;
    http_parser parser_{};
    http_parser_settings settings_{};
    State state_ = State::incomplete;
    int error_status_ = 0;
    std::string error_;
    HttpRequest request_;
    size_t head_bytes_ = 0;
    bool in_value_ = false;  // the last header callback was a value (a new field starts a header)
    bool expects_continue_ = false;
    bool keep_alive_ = true;
};

}  // namespace skiff::broker::http
