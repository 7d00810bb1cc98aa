// `skiff user`: add, change, remove and list SCRAM users offline, in the data directory the broker
// would use (found from the broker's own --config / SKIFF_* / --override settings). The way a
// container entrypoint or an operator bootstraps the first admin before the broker starts.
//
//   skiff user add NAME (--password PW | --password-file FILE) [--mechanism M]... [--iterations N]
//   skiff user remove NAME
//   skiff user list
//
// Exit codes: 0 done, 1 failed (an unknown user to remove, a corrupt or unwritable file), 2 usage
// or configuration error (as the broker's own).
#pragma once

namespace skiff::broker::security {

// argv[0] is the first argument after "user"; envp supplies the SKIFF_* settings.
int user_command_main(int argc, char** argv, char** envp);

}  // namespace skiff::broker::security
