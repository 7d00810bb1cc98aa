#include "broker/http/request_parser.h"

#include <algorithm>
#include <cctype>
#include <climits>

namespace skiff::broker::http {
namespace {

RequestParser& self(http_parser* p) {
    return *static_cast<RequestParser*>(p->data);
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

}  // namespace

RequestParser::RequestParser(ParserLimits limits) : limits_(limits) {
    http_parser_init(&parser_, HTTP_REQUEST);
    parser_.data = this;
    http_parser_settings_init(&settings_);
    settings_.on_url = &RequestParser::on_url;
    settings_.on_header_field = &RequestParser::on_header_field;
    settings_.on_header_value = &RequestParser::on_header_value;
    settings_.on_headers_complete = &RequestParser::on_headers_complete;
    settings_.on_body = &RequestParser::on_body;
    settings_.on_message_complete = &RequestParser::on_message_complete;
}

size_t RequestParser::feed(const char* data, size_t size) {
    if (state_ != State::incomplete)
        return 0;
    const size_t used = http_parser_execute(&parser_, &settings_, data, size);
    const auto err = HTTP_PARSER_ERRNO(&parser_);
    if (state_ == State::complete || state_ == State::failed)
        return used;
    if (err != HPE_OK)
        fail(400, std::string("malformed HTTP request: ") + http_errno_description(err));
    return used;
}

HttpRequest RequestParser::take() {
    HttpRequest out = std::move(request_);
    request_ = {};
    head_bytes_ = 0;
    in_value_ = false;
    expects_continue_ = false;
    state_ = State::incomplete;
    http_parser_pause(&parser_, 0);  // paused at the end of the request (on_message_complete)
    return out;
}

void RequestParser::fail(int status, std::string why) {
    if (state_ == State::failed)
        return;
    state_ = State::failed;
    error_status_ = status;
    error_ = std::move(why);
    keep_alive_ = false;
}

bool RequestParser::count_head(size_t n) {
    head_bytes_ += n;
    if (head_bytes_ <= limits_.max_head_bytes)
        return true;
    fail(431, "request head over " + std::to_string(limits_.max_head_bytes) + " bytes");
    return false;
}

int RequestParser::on_url(http_parser* p, const char* at, size_t n) {
    auto& s = self(p);
    if (!s.count_head(n))
        return 1;
    s.request_.target.append(at, n);
    return 0;
}

int RequestParser::on_header_field(http_parser* p, const char* at, size_t n) {
    auto& s = self(p);
    if (!s.count_head(n))
        return 1;
    if (s.request_.headers.empty() || s.in_value_)
        s.request_.headers.emplace_back();
    s.in_value_ = false;
    s.request_.headers.back().first.append(at, n);
    return 0;
}

int RequestParser::on_header_value(http_parser* p, const char* at, size_t n) {
    auto& s = self(p);
    if (!s.count_head(n))
        return 1;
    if (s.request_.headers.empty())
        return 1;  // cannot happen: http-parser gives a field first
    s.in_value_ = true;
    s.request_.headers.back().second.append(at, n);
    return 0;
}

int RequestParser::on_headers_complete(http_parser* p) {
    auto& s = self(p);
    auto& r = s.request_;
    r.method = http_method_str(static_cast<http_method>(p->method));
    for (auto& h : r.headers)
        h.first = lower(std::move(h.first));
    const auto q = r.target.find('?');
    r.path = r.target.substr(0, q);
    r.query = q == std::string::npos ? "" : r.target.substr(q + 1);
    // Returning 1 here would mean "no body" to http-parser; anything else but 0 and 2 an error.
    constexpr int kRefuse = -1;
    if (p->http_major != 1) {
        s.fail(400, "only HTTP/1.0 and HTTP/1.1 are served");
        return kRefuse;
    }
    if (r.path.empty() || r.path.front() != '/') {
        s.fail(400, "the request target must be a path (origin form)");
        return kRefuse;
    }
    s.keep_alive_ = http_should_keep_alive(p) != 0;
    // A declared length over the limit is refused before any of the body is read.
    if ((p->flags & F_CHUNKED) == 0 && p->content_length != ULLONG_MAX &&
        p->content_length > s.limits_.max_body_bytes) {
        s.fail(413, "request body of " + std::to_string(p->content_length) + " bytes is over " +
                        std::to_string(s.limits_.max_body_bytes));
        return kRefuse;
    }
    if (auto expect = r.header("expect"); expect && lower(std::string(*expect)) == "100-continue")
        s.expects_continue_ = true;
    return 0;
}

int RequestParser::on_body(http_parser* p, const char* at, size_t n) {
    auto& s = self(p);
    s.expects_continue_ = false;  // the body is coming: no "100 Continue" is awaited any more
    if (s.request_.body.size() + n > s.limits_.max_body_bytes) {
        s.fail(413, "request body over " + std::to_string(s.limits_.max_body_bytes) + " bytes");
        return 1;
    }
    s.request_.body.append(at, n);
    return 0;
}

int RequestParser::on_message_complete(http_parser* p) {
    auto& s = self(p);
    if (s.state_ == State::failed)
        return 1;
    s.state_ = State::complete;
    s.expects_continue_ = false;
    http_parser_pause(p, 1);  // one request at a time: pipelined bytes wait for take()
    return 0;
}

}  // namespace skiff::broker::http
