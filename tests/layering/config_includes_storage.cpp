// Must NOT compile: config/ depends on neither storage/ nor protocol/'s messages.
#include "storage/log_config.h"  // IWYU pragma: keep
