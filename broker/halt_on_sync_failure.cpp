#include "broker/halt_on_sync_failure.h"

#include <spdlog/spdlog.h>

#include <cstdlib>

#include "storage/sync_failure.h"

namespace skiff::broker {

namespace {
void halt(const storage::StorageError& error) {
    spdlog::critical(
        "{}: what was written to that file since its last good sync may not be on disk, and a "
        "retry would report success without writing it. Halting without a clean shutdown, as "
        "Kafka halts when its log directory fails; the next start recovers the logs from what "
        "is on disk. Check the disk (dmesg) before restarting.",
        error.message);
    spdlog::default_logger()->flush();
    // _Exit, not exit: no destructor may close the logs (their flushes would fail again, or
    // worse succeed) nor write the clean-shutdown marker that would skip that recovery.
    std::_Exit(1);
}
}  // namespace

void halt_on_sync_failure() {
    storage::set_sync_failure_handler(&halt);
}

}  // namespace skiff::broker
