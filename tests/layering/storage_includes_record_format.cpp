// Must compile: the positive control for the cases above (same target setup, allowed header).
#include "protocol/record_batch.h"  // IWYU pragma: keep
#include "storage/partition_log.h"  // IWYU pragma: keep
