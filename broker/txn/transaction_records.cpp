#include "broker/txn/transaction_records.h"

#include "protocol/out_buffer.h"
#include "protocol/reader.h"
#include "protocol/writer.h"

namespace skiff::broker::txn {
namespace {

std::string to_string(protocol::OutBuffer& out) {
    auto bytes = out.bytes();
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

}  // namespace

std::string encode_txn_key(const std::string& transactional_id) {
    protocol::OutBuffer out;
    out.put_int<int16_t>(0);
    protocol::Writer w(out, 0, /*flexible=*/false);
    w.write_string(transactional_id, /*compact=*/false);
    return to_string(out);
}

std::string encode_txn_value(const TxnLogValue& value, int16_t version) {
    protocol::OutBuffer out;
    out.put_int<int16_t>(version);
    protocol::Writer w(out, version, /*flexible=*/version >= 1);
    w.write_struct(value);
    return to_string(out);
}

Expected<int16_t, protocol::DecodeError> txn_key_type(std::span<const std::byte> bytes) {
    protocol::Reader r(bytes, 0, false);
    auto type = r.read_int<int16_t>("record type");
    if (!r.ok())
        return unexpected(*r.error());
    return type;
}

Expected<std::string, protocol::DecodeError> decode_txn_key(std::span<const std::byte> bytes) {
    protocol::Reader r(bytes, 0, false);
    (void)r.read_int<int16_t>("record type");
    auto id = r.read_string("transactional_id", /*nullable=*/false, /*compact=*/false);
    r.expect_end();
    if (!r.ok())
        return unexpected(*r.error());
    return std::move(*id);
}

Expected<TxnLogValue, protocol::DecodeError> decode_txn_value(std::span<const std::byte> bytes) {
    protocol::Reader r(bytes, 0, false);
    const auto version = r.read_int<int16_t>("version");
    if (!r.ok())
        return unexpected(*r.error());
    if (version < 0 || version > TxnLogValue::kMaxVersion)
        return unexpected(protocol::DecodeError{
            "version", 0, "unknown transaction log value version " + std::to_string(version)});
    protocol::Reader body(bytes.subspan(2), version, /*flexible=*/version >= 1);
    TxnLogValue value;
    body.read_struct(nullptr, value);
    body.expect_end();
    if (!body.ok())
        return unexpected(*body.error());
    return value;
}

}  // namespace skiff::broker::txn
