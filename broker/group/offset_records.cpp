#include "broker/group/offset_records.h"

#include "protocol/out_buffer.h"
#include "protocol/reader.h"
#include "protocol/writer.h"

namespace skiff::broker::group {
namespace {

template <class Record>
std::string encode(const Record& record, int16_t version) {
    protocol::OutBuffer out;
    out.put_int<int16_t>(version);
    protocol::Writer w(out, version, /*flexible=*/false);
    w.write_struct(record);
    auto bytes = out.bytes();
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

template <class Record>
Expected<Record, protocol::DecodeError> decode(std::span<const std::byte> bytes) {
    auto version = offset_record_version(bytes);
    if (!version)
        return unexpected(version.error());
    protocol::Reader r(bytes.subspan(2), *version, /*flexible=*/false);
    Record record;
    r.read_struct(nullptr, record);
    r.expect_end();
    if (!r.ok())
        return unexpected(*r.error());
    return record;
}

}  // namespace

std::string encode_offset_key(const OffsetCommitKey& key) {
    return encode(key, OffsetCommitKey::kVersion);
}

std::string encode_offset_value(const OffsetCommitValue& value) {
    return encode(value, OffsetCommitValue::kVersion);
}

Expected<int16_t, protocol::DecodeError> offset_record_version(std::span<const std::byte> bytes) {
    protocol::Reader r(bytes, 0, false);
    auto version = r.read_int<int16_t>("version");
    if (!r.ok())
        return unexpected(*r.error());
    return version;
}

Expected<OffsetCommitKey, protocol::DecodeError> decode_offset_key(
    std::span<const std::byte> bytes) {
    return decode<OffsetCommitKey>(bytes);
}

Expected<OffsetCommitValue, protocol::DecodeError> decode_offset_value(
    std::span<const std::byte> bytes) {
    return decode<OffsetCommitValue>(bytes);
}

}  // namespace skiff::broker::group
