#include "broker/error_mapping.h"

namespace skiff::broker {

using protocol::ErrorCode;

ErrorCode to_error_code(storage::StorageErrc e) {
    switch (e) {
        case storage::StorageErrc::offset_out_of_range:
            return ErrorCode::offset_out_of_range;
        case storage::StorageErrc::not_found:
            return ErrorCode::unknown_topic_or_partition;
        case storage::StorageErrc::invalid_argument:
            return ErrorCode::invalid_request;
        case storage::StorageErrc::corrupt:
            return ErrorCode::corrupt_message;
        case storage::StorageErrc::out_of_order_sequence:
            return ErrorCode::out_of_order_sequence_number;
        case storage::StorageErrc::invalid_producer_epoch:
            return ErrorCode::invalid_producer_epoch;
        case storage::StorageErrc::invalid_txn_state:
            return ErrorCode::invalid_txn_state;
        case storage::StorageErrc::transaction_coordinator_fenced:
            return ErrorCode::transaction_coordinator_fenced;
        case storage::StorageErrc::invalid_record:
            return ErrorCode::invalid_record;
        // A disk that fails or fills is Kafka's KAFKA_STORAGE_ERROR: clients retry elsewhere.
        case storage::StorageErrc::io_error:
        case storage::StorageErrc::no_space:
            return ErrorCode::kafka_storage_error;
    }
    return ErrorCode::unknown_server_error;
}

ErrorCode to_error_code(protocol::BatchErrc e) {
    switch (e) {
        // Pre-0.11 message sets: the client must be configured for a newer broker.
        case protocol::BatchErrc::legacy_magic:
        case protocol::BatchErrc::unknown_magic:
            return ErrorCode::unsupported_for_message_format;
        case protocol::BatchErrc::empty:
        case protocol::BatchErrc::truncated:
        case protocol::BatchErrc::invalid_length:
        case protocol::BatchErrc::crc_mismatch:
        case protocol::BatchErrc::invalid_count:
        case protocol::BatchErrc::invalid_codec:
        case protocol::BatchErrc::invalid_offset:
            return ErrorCode::corrupt_message;
    }
    return ErrorCode::corrupt_message;
}

}  // namespace skiff::broker
