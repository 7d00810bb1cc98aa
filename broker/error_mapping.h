// The one place where internal errors become the Kafka error codes clients act on.
#pragma once

#include "protocol/error_code.h"
#include "protocol/record_batch.h"
#include "storage/storage_error.h"

namespace skiff::broker {

protocol::ErrorCode to_error_code(storage::StorageErrc e);
protocol::ErrorCode to_error_code(protocol::BatchErrc e);

}  // namespace skiff::broker
