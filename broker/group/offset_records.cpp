#include "broker/group/offset_records.h"

#include "broker/group/record_codec.h"

namespace skiff::broker::group {

std::string encode_offset_key(const OffsetCommitKey& key) {
    return encode_record(key, OffsetCommitKey::kVersion);
}

std::string encode_offset_value(const OffsetCommitValue& value) {
    return encode_record(value, OffsetCommitValue::kVersion);
}

Expected<int16_t, protocol::DecodeError> offset_record_version(std::span<const std::byte> bytes) {
    return record_version(bytes);
}

Expected<OffsetCommitKey, protocol::DecodeError> decode_offset_key(
    std::span<const std::byte> bytes) {
    return decode_record<OffsetCommitKey>(bytes);
}

Expected<OffsetCommitValue, protocol::DecodeError> decode_offset_value(
    std::span<const std::byte> bytes) {
    return decode_record<OffsetCommitValue>(bytes);
}

}  // namespace skiff::broker::group
