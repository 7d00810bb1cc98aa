// `skiff control ...`: the test-control API (docs/control-api.md) from a shell or a test
// script, talking to a running broker's metrics listener over HTTP. Prints the broker's JSON
// answer; exit 0 when it succeeded, 1 when the broker refused or could not be reached, 2 on a
// usage error.
#pragma once

namespace skiff::broker::control {

int control_command_main(int argc, char** argv);

}  // namespace skiff::broker::control
