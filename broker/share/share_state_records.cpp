#include "broker/share/share_state_records.h"

#include "broker/topics/topic_ids.h"
#include "protocol/out_buffer.h"
#include "protocol/reader.h"
#include "protocol/writer.h"
#include "storage/partition_metadata.h"

namespace skiff::broker::share {
namespace {

std::string to_string(protocol::OutBuffer& out) {
    auto bytes = out.bytes();
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

template <class T>
std::string encode_value(const T& value) {
    protocol::OutBuffer out;
    out.put_int<int16_t>(0);
    protocol::Writer w(out, 0, /*flexible=*/true);
    w.write_struct(value);
    return to_string(out);
}

template <class T>
Expected<T, protocol::DecodeError> decode_value(std::span<const std::byte> bytes) {
    protocol::Reader r(bytes, 0, false);
    const auto version = r.read_int<int16_t>("version");
    if (!r.ok())
        return unexpected(*r.error());
    if (version != 0)
        return unexpected(protocol::DecodeError{
            "version", 0, "unknown share state value version " + std::to_string(version)});
    protocol::Reader body(bytes.subspan(2), 0, /*flexible=*/true);
    T value;
    body.read_struct(nullptr, value);
    body.expect_end();
    if (!body.ok())
        return unexpected(*body.error());
    return value;
}

}  // namespace

std::string encode_share_key(const ShareStateKey& key) {
    protocol::OutBuffer out;
    out.put_int<int16_t>(key.type);
    protocol::Writer w(out, key.type, /*flexible=*/false);
    w.write_string(key.group_id, /*compact=*/false);
    out.put_bytes(std::as_bytes(std::span(key.topic_id.bytes)));
    out.put_int<int32_t>(key.partition);
    return to_string(out);
}

std::string encode_share_snapshot(const ShareSnapshotValue& value) {
    return encode_value(value);
}
std::string encode_share_update(const ShareUpdateValue& value) {
    return encode_value(value);
}

Expected<ShareStateKey, protocol::DecodeError> decode_share_key(std::span<const std::byte> bytes) {
    protocol::Reader r(bytes, 0, false);
    ShareStateKey key;
    key.type = r.read_int<int16_t>("record type");
    if (r.ok() && key.type != kShareSnapshotType && key.type != kShareUpdateType)
        return unexpected(protocol::DecodeError{
            "record type", 0, "not a share state record type: " + std::to_string(key.type)});
    auto group = r.read_string("group_id", /*nullable=*/false, /*compact=*/false);
    key.topic_id = r.read_uuid("topic_id");
    key.partition = r.read_int<int32_t>("partition");
    r.expect_end();
    if (!r.ok())
        return unexpected(*r.error());
    key.group_id = std::move(*group);
    return key;
}

Expected<ShareSnapshotValue, protocol::DecodeError> decode_share_snapshot(
    std::span<const std::byte> bytes) {
    return decode_value<ShareSnapshotValue>(bytes);
}

Expected<ShareUpdateValue, protocol::DecodeError> decode_share_update(
    std::span<const std::byte> bytes) {
    return decode_value<ShareUpdateValue>(bytes);
}

std::string share_coordinator_key(const std::string& group_id, const protocol::Uuid& topic_id,
                                  int32_t partition) {
    return group_id + ":" + storage::to_string(to_topic_id(topic_id)) + ":" +
           std::to_string(partition);
}

int32_t share_state_partition_for(const std::string& coordinator_key, int32_t partitions) {
    // Java's String.hashCode over UTF-16 code units; the key is ASCII but for the group id, whose
    // non-ASCII characters would need UTF-16 units: decode UTF-8 to code points for them.
    uint32_t h = 0;
    const auto* s = reinterpret_cast<const unsigned char*>(coordinator_key.data());
    const size_t n = coordinator_key.size();
    for (size_t i = 0; i < n;) {
        uint32_t cp = s[i];
        size_t len = 1;
        if (cp >= 0xF0 && i + 3 < n) {
            cp = ((cp & 0x07) << 18) | ((s[i + 1] & 0x3F) << 12) | ((s[i + 2] & 0x3F) << 6) |
                 (s[i + 3] & 0x3F);
            len = 4;
        } else if (cp >= 0xE0 && i + 2 < n) {
            cp = ((cp & 0x0F) << 12) | ((s[i + 1] & 0x3F) << 6) | (s[i + 2] & 0x3F);
            len = 3;
        } else if (cp >= 0xC0 && i + 1 < n) {
            cp = ((cp & 0x1F) << 6) | (s[i + 1] & 0x3F);
            len = 2;
        }
        i += len;
        if (cp >= 0x10000) {  // a surrogate pair
            cp -= 0x10000;
            h = 31 * h + (0xD800 + (cp >> 10));
            h = 31 * h + (0xDC00 + (cp & 0x3FF));
        } else {
            h = 31 * h + cp;
        }
    }
    const auto hash = static_cast<int32_t>(h);
    // Kafka's Utils.abs: Integer.MIN_VALUE maps to 0.
    const int32_t abs = hash == INT32_MIN ? 0 : (hash < 0 ? -hash : hash);
    return partitions > 0 ? abs % partitions : 0;
}

}  // namespace skiff::broker::share
