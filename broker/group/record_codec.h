// The byte form of __consumer_offsets' records, as Kafka's group coordinator writes them: a key
// and a value, each an int16 version followed by the fields of that version. A key's version is
// its record type (0-1 offset commits, 2 classic group metadata, 3-8 and 16 consumer groups, 9-15
// share groups), and every key of a group record starts with the group id. A value's version
// selects its fields; the consumer group records are flexible (compact strings, tagged fields)
// from version 0, a classic GroupMetadataValue from version 4.
//
// A record struct describes its fields like any message (protocol/field_spec.h) and says whether
// a version is flexible: `static bool flexible(int16_t version)`.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "protocol/decode_error.h"
#include "protocol/expected.h"
#include "protocol/out_buffer.h"
#include "protocol/reader.h"
#include "protocol/writer.h"

namespace skiff::broker::group {

// One record of a group's state: its key and value bytes; a null value deletes the key.
struct GroupRecord {
    std::string key;
    std::optional<std::string> value;
};
using GroupRecords = std::vector<GroupRecord>;

// The int16 prefix of a key or value.
Expected<int16_t, protocol::DecodeError> record_version(std::span<const std::byte> bytes);

// The group id a group record's key starts with (after its version); an error for a key too
// short to hold one.
Expected<std::string, protocol::DecodeError> record_group_id(std::span<const std::byte> key);

template <class Record>
std::string encode_record(const Record& record, int16_t version) {
    protocol::OutBuffer out;
    out.put_int<int16_t>(version);
    protocol::Writer w(out, version, Record::flexible(version));
    w.write_struct(record);
    auto bytes = out.bytes();
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// Reads the fields of the version the prefix names; trailing bytes are an error.
template <class Record>
Expected<Record, protocol::DecodeError> decode_record(std::span<const std::byte> bytes) {
    auto version = record_version(bytes);
    if (!version)
        return unexpected(version.error());
    protocol::Reader r(bytes.subspan(2), *version, Record::flexible(*version));
    Record record;
    r.read_struct(nullptr, record);
    r.expect_end();
    if (!r.ok())
        return unexpected(*r.error());
    return record;
}

inline std::span<const std::byte> record_bytes(const std::string& s) {
    return std::as_bytes(std::span(s.data(), s.size()));
}

}  // namespace skiff::broker::group
