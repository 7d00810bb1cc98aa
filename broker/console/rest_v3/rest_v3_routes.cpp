#include "broker/console/console_route.h"

namespace skiff::broker::console {

void add_rest_v3_routes(RouteTable& /*routes*/) {}

}  // namespace skiff::broker::console
