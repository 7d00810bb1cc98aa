#include "protocol/writer.h"

#include <algorithm>
#include <limits>

namespace skiff::protocol {

void Writer::write_string(std::string_view s, bool compact) {
    if (compact) {
        out_.put_uvarint(static_cast<uint64_t>(s.size()) + 1);
    } else {
        s = s.substr(0, std::min<size_t>(s.size(), std::numeric_limits<int16_t>::max()));
        out_.put_int<int16_t>(static_cast<int16_t>(s.size()));
    }
    out_.put_chars(s);
}

void Writer::write_null_string(bool compact) {
    if (compact)
        out_.put_uvarint(0);
    else
        out_.put_int<int16_t>(-1);
}

void Writer::write_bytes_length(int64_t length, bool is_null) {
    if (flexible_)
        out_.put_uvarint(is_null ? 0 : static_cast<uint64_t>(length) + 1);
    else
        out_.put_int<int32_t>(is_null ? -1 : static_cast<int32_t>(length));
}

void Writer::write_array_length(size_t count, bool is_null) {
    if (flexible_)
        out_.put_uvarint(is_null ? 0 : static_cast<uint64_t>(count) + 1);
    else
        out_.put_int<int32_t>(is_null ? -1 : static_cast<int32_t>(count));
}

}  // namespace skiff::protocol
