// One handler per Kafka API: a typed request in, a typed response out, no sockets. Each lives
// in its own file in this folder; the declarations and request_router.cpp's table are generated
// from the list of APIs (protocol/api_list.h), so a listed API without its handler fails to link.
#pragma once

#include <asio/awaitable.hpp>

#include "broker/request_context.h"
#include "protocol/protocol.h"

namespace skiff::broker {

// asio::awaitable<protocol::ProduceResponse> handle_produce(RequestContext&,
//                                                   const protocol::ProduceRequest&); and so on
// for every API in protocol/api_list.h.
#define SKIFF_DECLARE_HANDLER(key, number, name, request, response, ...)  \
    asio::awaitable<protocol::response> handle_##key(RequestContext& ctx, \
                                                     const protocol::request& req);
SKIFF_FOR_EACH_API(SKIFF_DECLARE_HANDLER)
#undef SKIFF_DECLARE_HANDLER

}  // namespace skiff::broker
