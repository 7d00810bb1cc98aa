// The broker's answer to a failed fsync of a partition's files (storage/sync_failure.h says why
// nothing may be retried): log it and halt, without a clean shutdown, as Kafka halts when its
// last log directory fails. The next start recovers every log from what is on disk.
#pragma once

namespace skiff::broker {

// Installs the handler for the whole process (the broker calls it before it opens the logs, so
// a sync failing during recovery halts too).
void halt_on_sync_failure();

}  // namespace skiff::broker
