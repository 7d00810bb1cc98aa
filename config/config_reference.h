// Documentation generated from the settings table (settings.h), so that it cannot drift from what
// the broker accepts: the configuration reference docs/configuration.md
// (`skiff --print-config-reference`; tests/config checks the checked-in page against it) and the
// settings part of `skiff --help`.
#pragma once

#include <string>

namespace skiff::config {

// The whole Markdown page docs/configuration.md: where settings come from and in which order, a
// table row per setting (| key | default | meaning |, other spellings, allowed values and
// secrecy included), and the dynamic broker configs.
std::string config_reference_markdown();

// One line per key (`key  default ...`), for `skiff --help`.
std::string config_keys_help();

}  // namespace skiff::config
