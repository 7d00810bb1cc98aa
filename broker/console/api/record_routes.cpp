#include "broker/console/console_route.h"

namespace skiff::broker::console {

void add_record_routes(RouteTable& /*routes*/) {}

}  // namespace skiff::broker::console
