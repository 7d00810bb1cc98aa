#include "broker/handlers/fetch_down_convert.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "protocol/legacy/down_convert.h"

namespace skiff::broker {

bool down_convert_fetch(const storage::ReadResult& read, int16_t fetch_version,
                        int64_t fetch_offset, int64_t max_bytes, protocol::RecordSet& out,
                        std::string& error) {
    out = {};
    if (read.slices.empty())
        return true;
    // Reused by every legacy fetch on this I/O thread (nothing here suspends). The read is
    // bounded by the partition's max bytes, or one batch when that batch is larger.
    thread_local std::vector<std::byte> stored;
    thread_local std::vector<std::byte> plain;
    stored.resize(static_cast<size_t>(read.total_bytes));
    size_t filled = 0;
    for (const auto& s : read.slices) {
        int64_t done = 0;
        while (done < s.length) {
            const ssize_t n =
                ::pread(s.fd, stored.data() + filled, static_cast<size_t>(s.length - done),
                        static_cast<off_t>(s.position + done));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                error = n < 0 ? std::strerror(errno) : "unexpected end of segment file";
                return false;
            }
            done += n;
            filled += static_cast<size_t>(n);
        }
    }
    auto converted = protocol::legacy::down_convert(
        std::span(stored).first(filled), protocol::legacy::fetch_message_magic(fetch_version),
        fetch_offset, static_cast<size_t>(std::max<int64_t>(max_bytes, 0)), size_t{1} << 30, plain,
        out.inline_bytes);
    // One unusually large read must not pin its size to this thread for good.
    if (stored.capacity() > (size_t{16} << 20))
        std::vector<std::byte>().swap(stored);
    if (plain.capacity() > (size_t{16} << 20))
        std::vector<std::byte>().swap(plain);
    if (!converted) {
        error = converted.error().message;
        return false;
    }
    return true;
}

}  // namespace skiff::broker
