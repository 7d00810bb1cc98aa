// `skiff health`: asks a running broker whether it serves requests, by sending it ApiVersions
// as a client would. Used by the container HEALTHCHECK; exit code 0 healthy, 1 not.
#pragma once

#include <string>

namespace skiff::broker {

int health_check_main(int argc, char** argv);

}  // namespace skiff::broker
