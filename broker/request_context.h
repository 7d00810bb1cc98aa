// What a handler knows about the request it serves, besides the typed request itself.
#pragma once

#include <string>

#include "protocol/request_header.h"

namespace skiff::broker {

class Broker;

struct RequestContext {
    Broker& broker;
    const protocol::RequestHeader& header;
    const std::string& peer;  // "host:port" of the client, for log lines
    // Set by a handler whose request gets no response (Produce with acks=0).
    bool suppress_response = false;
};

}  // namespace skiff::broker
