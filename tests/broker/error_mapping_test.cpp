#include "broker/error_mapping.h"

#include <gtest/gtest.h>

namespace skiff::broker {
namespace {

using protocol::ErrorCode;

TEST(ErrorMapping, StorageErrorsBecomeTheCodesClientsActOn) {
    EXPECT_EQ(to_error_code(storage::StorageErrc::offset_out_of_range),
              ErrorCode::offset_out_of_range);
    EXPECT_EQ(to_error_code(storage::StorageErrc::no_space), ErrorCode::kafka_storage_error);
    EXPECT_EQ(to_error_code(storage::StorageErrc::io_error), ErrorCode::kafka_storage_error);
    EXPECT_EQ(to_error_code(storage::StorageErrc::not_found),
              ErrorCode::unknown_topic_or_partition);
    EXPECT_EQ(static_cast<int16_t>(ErrorCode::kafka_storage_error), 56);
}

TEST(ErrorMapping, TransactionErrorsHaveKafkasCodes) {
    EXPECT_EQ(to_error_code(storage::StorageErrc::invalid_txn_state), ErrorCode::invalid_txn_state);
    EXPECT_EQ(to_error_code(storage::StorageErrc::transaction_coordinator_fenced),
              ErrorCode::transaction_coordinator_fenced);
    EXPECT_EQ(to_error_code(storage::StorageErrc::invalid_record), ErrorCode::invalid_record);
    EXPECT_EQ(static_cast<int16_t>(ErrorCode::invalid_txn_state), 48);
    EXPECT_EQ(static_cast<int16_t>(ErrorCode::transaction_coordinator_fenced), 52);
    EXPECT_EQ(static_cast<int16_t>(ErrorCode::invalid_record), 87);
}

TEST(ErrorMapping, BatchErrors) {
    EXPECT_EQ(to_error_code(protocol::BatchErrc::legacy_magic),
              ErrorCode::unsupported_for_message_format);
    EXPECT_EQ(to_error_code(protocol::BatchErrc::crc_mismatch), ErrorCode::corrupt_message);
    EXPECT_EQ(to_error_code(protocol::BatchErrc::truncated), ErrorCode::corrupt_message);
    EXPECT_EQ(static_cast<int16_t>(ErrorCode::corrupt_message), 2);
    EXPECT_EQ(static_cast<int16_t>(ErrorCode::unsupported_for_message_format), 43);
}

}  // namespace
}  // namespace skiff::broker
