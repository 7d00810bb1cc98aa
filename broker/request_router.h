// From a request frame to its response: decodes the request header, checks that skiff serves the
// API at that version (answering an unsupported ApiVersions with the v0 fallback, as Kafka does),
// and runs the API's handler, which encodes the response. The routes and the supported-version
// table are generated from the same list (protocol/api_list.h). The connection only moves bytes.
#pragma once

#include <array>
#include <asio/awaitable.hpp>
#include <cstddef>
#include <optional>
#include <span>
#include <string>

#include "broker/request_context.h"
#include "protocol/api_table.h"
#include "protocol/decode_error.h"
#include "protocol/out_buffer.h"

namespace skiff::broker {

// What the connection needs to know of a dispatched request for the metrics.
struct DispatchInfo {
    int16_t api_key = -1;     // -1 until the header was decoded and the API found
    bool long_poll = false;   // a Fetch that waited for data
    int32_t throttle_ms = 0;  // over a client quota: read nothing more from it for this long
};

struct RouteOutcome {
    bool respond = true;                                // false: acks=0 produce
    std::optional<protocol::DecodeError> decode_error;  // malformed body: close the connection
};

class Broker;

class RequestRouter {
  public:
    // What the connection does after dispatch().
    enum class Result {
        respond,            // `out` holds the response frame
        no_response,        // the request gets none (acks=0 produce)
        close,              // malformed, unsupported or failed (logged): close the connection
        respond_and_close,  // send the response in `out`, then close
    };
    using Handler = asio::awaitable<RouteOutcome> (*)(RequestContext&,
                                                      std::span<const std::byte> body,
                                                      int16_t version, protocol::OutBuffer& out);

    RequestRouter();

    // One whole request frame (without its size prefix) from `peer`, which connected through
    // the listener named `listener` (must outlive the call); `client_software` is the
    // connection's record, which ApiVersions v3+ fills in; `session` is the connection's client
    // (null in tests: anonymous PLAINTEXT).
    // `info`, if given, is filled in for the request metrics; dispatch itself counts the
    // request and the error codes of its response (broker.request_metrics()).
    asio::awaitable<Result> dispatch(Broker& broker, const std::string& peer,
                                     std::string_view listener, std::span<const std::byte> frame,
                                     protocol::OutBuffer& out,
                                     ClientSoftware* client_software = nullptr,
                                     DispatchInfo* info = nullptr,
                                     Session* session = nullptr) const;

    // nullptr when skiff does not serve the key.
    Handler find(int16_t api_key) const;

  private:
    std::array<Handler, 128> by_key_{};
};

}  // namespace skiff::broker
