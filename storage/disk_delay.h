// Added latency on the logs' writes and fsyncs, for the test-control API's "slow disk"
// (docs/control-api.md): a test of request.timeout.ms or delivery.timeout.ms needs a broker whose
// appends take seconds. Process-wide, read with a relaxed atomic load: while no delay is set a
// write or sync costs one load and a branch more.
#pragma once

#include <chrono>

namespace skiff::storage {

struct DiskDelay {
    std::chrono::microseconds write{0};  // before each write to a segment's .log file
    std::chrono::microseconds sync{0};   // before each fdatasync of a segment file
};

void set_disk_delay(DiskDelay delay);
DiskDelay disk_delay();

// Sleeps for the write (or sync) delay when one is set.
void delay_write();
void delay_sync();

}  // namespace skiff::storage
