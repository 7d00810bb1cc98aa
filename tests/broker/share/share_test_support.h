// What the share-partition tests share: comparing and printing AcquiredRecords, and the
// acknowledgement types by name.
#pragma once

#include <ostream>

#include "broker/share/share_partition_manager.h"

namespace skiff::broker::share {

inline bool operator==(const AcquiredRecords& a, const AcquiredRecords& b) {
    return a.first_offset == b.first_offset && a.last_offset == b.last_offset &&
           a.delivery_count == b.delivery_count;
}
inline void PrintTo(const AcquiredRecords& a, std::ostream* os) {
    *os << "[" << a.first_offset << ".." << a.last_offset << " x" << a.delivery_count << "]";
}

namespace ack_type {
constexpr int8_t kGap = 0, kAccept = 1, kRelease = 2, kReject = 3, kRenew = 4;
}  // namespace ack_type

}  // namespace skiff::broker::share
