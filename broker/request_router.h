// Routes a decoded request header to the handler of its API. The routes are checked against
// protocol::supported_apis() when the router is built, so the APIs skiff advertises in
// ApiVersions and the APIs it can dispatch are the same set by construction.
#pragma once

#include <array>
#include <asio/awaitable.hpp>
#include <cstddef>
#include <optional>
#include <span>

#include "broker/request_context.h"
#include "protocol/api_table.h"
#include "protocol/decode_error.h"
#include "protocol/out_buffer.h"

namespace skiff::broker {

struct RouteOutcome {
    bool respond = true;                                // false: acks=0 produce
    std::optional<protocol::DecodeError> decode_error;  // malformed body: close the connection
};

class RequestRouter {
  public:
    using Handler = asio::awaitable<RouteOutcome> (*)(RequestContext&,
                                                      std::span<const std::byte> body,
                                                      int16_t version, protocol::OutBuffer& out);

    RequestRouter();

    // nullptr when the key has no handler (then it is not in the supported table either).
    Handler find(int16_t api_key) const;

  private:
    std::array<Handler, 128> by_key_{};
};

}  // namespace skiff::broker
