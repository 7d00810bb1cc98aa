#include "broker/topics/internal_log.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace skiff::broker {
namespace {
constexpr int64_t kReadChunkBytes = 1 << 20;
}  // namespace

Expected<void, std::string> replay_internal_log(storage::PartitionLog& log, std::string_view topic,
                                                const BatchVisitor& visit) {
    const std::string name(topic);
    int64_t offset = log.log_start_offset();
    const int64_t end = log.high_watermark();
    std::vector<std::byte> buffer;
    while (offset < end) {
        auto read = log.read(offset, kReadChunkBytes, true);
        if (!read)
            return unexpected("reading " + name + " at offset " + std::to_string(offset) + ": " +
                              read.error().message);
        if (read->total_bytes == 0)
            break;
        buffer.resize(static_cast<size_t>(read->total_bytes));
        size_t filled = 0;
        for (const auto& slice : read->slices) {
            int64_t done = 0;
            while (done < slice.length) {
                const ssize_t n =
                    ::pread(slice.fd, buffer.data() + filled + done,
                            static_cast<size_t>(slice.length - done), slice.position + done);
                if (n <= 0)
                    return unexpected("reading " + name + ": " +
                                      (n < 0 ? std::strerror(errno) : "unexpected end of file"));
                done += n;
            }
            filled += static_cast<size_t>(slice.length);
        }
        std::span<const std::byte> rest(buffer.data(), filled);
        while (!rest.empty()) {
            auto header = protocol::check_batch(rest);
            if (!header)
                return unexpected("corrupt batch in " + name + " at offset " +
                                  std::to_string(offset) + ": " + header.error().message);
            auto batch = rest.first(static_cast<size_t>(header->size_bytes()));
            auto records = protocol::read_records(batch);
            if (!records)
                return unexpected("corrupt record in " + name + " at offset " +
                                  std::to_string(header->base_offset) + ": " +
                                  records.error().message);
            if (auto visited = visit(*header, *records); !visited)
                return visited;
            offset = header->last_offset() + 1;
            rest = rest.subspan(batch.size());
        }
    }
    return {};
}

}  // namespace skiff::broker
