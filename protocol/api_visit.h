// Run-time dispatch from an API key to its message types, generated from api_list.h: code that
// must handle "whatever API this frame is" (the fuzz target, the fixture tests) gets the types
// without a switch of its own to keep in step with the list.
#pragma once

#include <cstdint>

#include "protocol/protocol.h"

namespace skiff::protocol {

// Calls f.template operator()<Request, Response>() for `key` and returns true, or returns false
// for a key skiff does not serve. A generic lambda fits: [&]<class Req, class Resp>() { ... }.
template <class F>
bool visit_api(int16_t key, F&& f) {
#define SKIFF_VISIT_API(key_, number, name, request, response, ...) \
    case number:                                                    \
        f.template operator()<request, response>();                 \
        return true;
    switch (key) { SKIFF_FOR_EACH_API(SKIFF_VISIT_API) }
#undef SKIFF_VISIT_API
    return false;
}

}  // namespace skiff::protocol
