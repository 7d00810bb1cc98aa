// Must NOT compile: storage/ sees protocol's record batch format, not its messages.
#include "protocol/produce.h"  // IWYU pragma: keep
