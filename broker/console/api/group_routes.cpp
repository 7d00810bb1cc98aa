#include "broker/console/console_route.h"

namespace skiff::broker::console {

void add_group_routes(RouteTable& /*routes*/) {}

}  // namespace skiff::broker::console
