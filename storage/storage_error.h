// Errors of storage/: a small typed value, mapped to Kafka error codes by the broker.
#pragma once

#include <cerrno>
#include <cstring>
#include <string>

namespace skiff::storage {

enum class StorageErrc {
    io_error,
    no_space,
    corrupt,
    offset_out_of_range,
    invalid_argument,
    not_found,
    // Idempotent-producer checks (producer_state.h).
    out_of_order_sequence,
    invalid_producer_epoch,
    // Transactions: a non-transactional batch from a producer with an open transaction.
    invalid_txn_state,
    // A transaction marker whose coordinator epoch is older than the producer's.
    transaction_coordinator_fenced,
    // A client append holding a control batch (only markers may write those).
    invalid_record
};

struct StorageError {
    StorageErrc code = StorageErrc::io_error;
    std::string message;
};

// An error from a failed system call: ENOSPC and EDQUOT become no_space, the rest io_error.
inline StorageError errno_error(int err, const std::string& what) {
    StorageErrc code =
        (err == ENOSPC || err == EDQUOT) ? StorageErrc::no_space : StorageErrc::io_error;
    return StorageError{code, what + ": " + std::strerror(err)};
}

}  // namespace skiff::storage
