// Must NOT compile: protocol/ needs only the standard library.
#include "storage/partition_log.h"  // IWYU pragma: keep
