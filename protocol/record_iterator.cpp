#include "protocol/record_iterator.h"

#include <limits>

#include "protocol/wire.h"

namespace skiff::protocol {
namespace {

// Bounds-checked cursor over one record; every failure names what was being read.
class RecordCursor {
  public:
    RecordCursor(std::span<const std::byte> data, size_t pos, size_t end)
        : data_(data), pos_(pos), end_(end) {}

    size_t pos() const { return pos_; }
    const std::optional<RecordError>& error() const { return error_; }

    int64_t varlong(const char* what) { return read(what, true); }
    int32_t varint(const char* what) { return static_cast<int32_t>(read(what, false)); }
    int8_t int8(const char* what) {
        if (!need(what, 1))
            return 0;
        return static_cast<int8_t>(data_[pos_++]);
    }
    // Length-prefixed (varint) optional bytes; -1 is null.
    std::optional<std::span<const std::byte>> bytes(const char* what) {
        int32_t length = varint(what);
        if (error_ || length == -1)
            return std::nullopt;
        if (length < -1) {
            fail(what, "negative length " + std::to_string(length));
            return std::nullopt;
        }
        if (!need(what, static_cast<size_t>(length)))
            return std::nullopt;
        auto view = data_.subspan(pos_, static_cast<size_t>(length));
        pos_ += static_cast<size_t>(length);
        return view;
    }
    void fail(const char* what, const std::string& problem) {
        if (!error_)
            error_ = RecordError{pos_, std::string(what) + ": " + problem};
    }

  private:
    bool need(const char* what, size_t n) {
        if (error_)
            return false;
        if (n <= end_ - pos_)
            return true;
        fail(what, "needs " + std::to_string(n) + " bytes, " + std::to_string(end_ - pos_) +
                       " left in the record");
        return false;
    }
    int64_t read(const char* what, bool is_long) {
        if (error_)
            return 0;
        uint64_t v = 0;
        auto status = wire::get_uvarint(
            data_.first(end_), pos_, v, is_long ? wire::kMaxVarint64Bytes : wire::kMaxVarint32Bytes,
            is_long ? std::numeric_limits<uint64_t>::max() : std::numeric_limits<uint32_t>::max());
        if (status != wire::VarintStatus::ok) {
            fail(what,
                 status == wire::VarintStatus::truncated ? "truncated varint" : "varint too long");
            return 0;
        }
        return is_long ? wire::unzigzag64(v) : wire::unzigzag32(static_cast<uint32_t>(v));
    }

    std::span<const std::byte> data_;
    size_t pos_;
    size_t end_;
    std::optional<RecordError> error_;
};

}  // namespace

Expected<RecordIterator, RecordError> RecordIterator::open(std::span<const std::byte> batch) {
    auto h = check_batch(batch);
    if (!h)
        return unexpected(RecordError{h.error().position, h.error().message});
    if (h->compression() != Compression::none)
        return unexpected(
            RecordError{kBatchAttributesOffset, std::string("cannot iterate a compressed batch (") +
                                                    compression_name(h->compression()) + ")"});
    return RecordIterator(batch.first(static_cast<size_t>(h->size_bytes())), *h);
}

Expected<std::optional<Record>, RecordError> RecordIterator::next() {
    if (failed_)
        return unexpected(RecordError{pos_, "iterator already failed"});
    auto fail = [this](size_t at, std::string message) {
        failed_ = true;
        return unexpected(RecordError{at, std::move(message)});
    };
    if (read_ == header_.records_count) {
        if (pos_ != batch_.size())
            return fail(pos_, std::to_string(batch_.size() - pos_) +
                                  " bytes after the last record of the batch");
        return std::optional<Record>{};
    }
    RecordCursor outer(batch_, pos_, batch_.size());
    int32_t length = outer.varint("record length");
    if (outer.error())
        return fail(outer.error()->position, outer.error()->message);
    if (length < 0 || static_cast<size_t>(length) > batch_.size() - outer.pos())
        return fail(pos_, "record length " + std::to_string(length) + " exceeds the " +
                              std::to_string(batch_.size() - outer.pos()) + " bytes left");
    const size_t record_end = outer.pos() + static_cast<size_t>(length);
    RecordCursor c(batch_, outer.pos(), record_end);
    Record r;
    r.attributes = c.int8("attributes");
    r.timestamp_delta = c.varlong("timestamp delta");
    r.offset_delta = c.varint("offset delta");
    r.key = c.bytes("key");
    r.value = c.bytes("value");
    int32_t header_count = c.varint("header count");
    // Each header takes at least two bytes (two lengths).
    if (!c.error() &&
        (header_count < 0 || static_cast<size_t>(header_count) > (record_end - c.pos()) / 2))
        c.fail("header count", "invalid count " + std::to_string(header_count));
    for (int32_t i = 0; i < header_count && !c.error(); ++i) {
        auto key = c.bytes("header key");
        if (!c.error() && !key)
            c.fail("header key", "null header key");
        auto value = c.bytes("header value");
        if (c.error())
            break;
        r.headers.push_back(RecordHeader{
            std::string_view(reinterpret_cast<const char*>(key->data()), key->size()), value});
    }
    if (c.error())
        return fail(c.error()->position, c.error()->message);
    if (c.pos() != record_end)
        return fail(c.pos(), std::to_string(record_end - c.pos()) +
                                 " unread bytes at the end of the record");
    if (r.offset_delta < 0 || r.offset_delta > header_.last_offset_delta)
        return fail(pos_, "offset delta " + std::to_string(r.offset_delta) +
                              " outside the batch's last offset delta " +
                              std::to_string(header_.last_offset_delta));
    pos_ = record_end;
    ++read_;
    return std::optional<Record>(std::move(r));
}

Expected<std::vector<Record>, RecordError> read_records(std::span<const std::byte> batch) {
    auto it = RecordIterator::open(batch);
    if (!it)
        return unexpected(it.error());
    std::vector<Record> out;
    while (true) {
        auto r = it->next();
        if (!r)
            return unexpected(r.error());
        if (!*r)
            return out;
        out.push_back(std::move(**r));
    }
}

}  // namespace skiff::protocol
