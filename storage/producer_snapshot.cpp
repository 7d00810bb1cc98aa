#include "storage/producer_snapshot.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>

#include "protocol/crc32c.h"
#include "storage/big_endian.h"
#include "storage/durable_file.h"
#include "storage/segment_names.h"

namespace skiff::storage {

namespace fs = std::filesystem;

namespace {

constexpr int16_t kSnapshotVersion = 1;
constexpr size_t kHeaderSize = 2 + 4 + 4;
constexpr size_t kEntrySize = 8 + 2 + 4 + 8 + 4 + 8 + 4 + 8;

template <class T>
void put(std::vector<std::byte>& out, T value) {
    size_t at = out.size();
    out.resize(at + sizeof(T));
    store_be<T>(out.data() + at, value);
}

fs::path snapshot_path(const fs::path& dir, int64_t offset) {
    return dir / segment_file_name(offset, kSnapshotSuffix);
}

}  // namespace

Expected<void, StorageError> write_producer_snapshot(const fs::path& dir, int64_t offset,
                                                     const ProducerState::Entries& entries) {
    std::vector<std::byte> bytes;
    put<int16_t>(bytes, kSnapshotVersion);
    put<uint32_t>(bytes, 0);  // patched below
    put<int32_t>(bytes, static_cast<int32_t>(entries.size()));
    for (const auto& [producer_id, entry] : entries) {
        ProducerBatch last =
            entry.batches.empty() ? ProducerBatch{-1, -1, -1, -1, -1} : entry.batches.back();
        put<int64_t>(bytes, producer_id);
        put<int16_t>(bytes, entry.epoch);
        put<int32_t>(bytes, last.last_sequence);
        put<int64_t>(bytes, last.last_offset);
        put<int32_t>(bytes, static_cast<int32_t>(last.last_offset - last.first_offset));
        put<int64_t>(bytes, last.max_timestamp);
        put<int32_t>(bytes, entry.coordinator_epoch);
        put<int64_t>(bytes, entry.current_txn_first_offset);
    }
    store_be<uint32_t>(bytes.data() + 2, protocol::crc32c(std::span(bytes).subspan(6)));

    const fs::path target = snapshot_path(dir, offset);
    // A snapshot that vanished or came back torn after a power cut costs only a longer replay,
    // but one renamed into place unsynced could hold zeros that pass for a valid empty header.
    auto written = write_file_atomically(
        target, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    if (!written)
        return unexpected(written.error());
    return {};
}

Expected<ProducerState::Entries, StorageError> read_producer_snapshot(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in)
        return unexpected(StorageError{StorageErrc::not_found, "cannot open " + file.string()});
    std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(chars.data()),
                                     chars.size());
    auto corrupt = [&](const std::string& why) {
        return unexpected(StorageError{StorageErrc::corrupt, file.string() + ": " + why});
    };
    if (bytes.size() < kHeaderSize)
        return corrupt("shorter than its header");
    if (load_be<int16_t>(bytes.data()) != kSnapshotVersion)
        return corrupt("unknown version");
    if (load_be<uint32_t>(bytes.data() + 2) != protocol::crc32c(bytes.subspan(6)))
        return corrupt("CRC mismatch");
    const int32_t count = load_be<int32_t>(bytes.data() + 6);
    if (count < 0 || bytes.size() != kHeaderSize + static_cast<size_t>(count) * kEntrySize)
        return corrupt("size does not match the producer count");
    ProducerState::Entries entries;
    const std::byte* p = bytes.data() + kHeaderSize;
    for (int32_t i = 0; i < count; ++i, p += kEntrySize) {
        const int64_t producer_id = load_be<int64_t>(p);
        ProducerEntry entry;
        entry.epoch = load_be<int16_t>(p + 8);
        ProducerBatch last;
        last.last_sequence = load_be<int32_t>(p + 10);
        last.last_offset = load_be<int64_t>(p + 14);
        const int32_t offset_delta = load_be<int32_t>(p + 22);
        last.max_timestamp = load_be<int64_t>(p + 26);
        last.first_offset = last.last_offset - offset_delta;
        last.first_sequence =
            last.last_sequence >= offset_delta
                ? last.last_sequence - offset_delta
                : last.last_sequence - offset_delta + std::numeric_limits<int32_t>::max() + 1;
        entry.coordinator_epoch = load_be<int32_t>(p + 34);
        entry.current_txn_first_offset = load_be<int64_t>(p + 38);
        if (last.last_offset >= 0)
            entry.batches.push_back(last);
        entries[producer_id] = std::move(entry);
    }
    return entries;
}

std::vector<int64_t> list_producer_snapshots(const fs::path& dir) {
    std::vector<int64_t> offsets;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec))
        if (auto offset =
                parse_segment_file_name(entry.path().filename().string(), kSnapshotSuffix))
            offsets.push_back(*offset);
    std::sort(offsets.begin(), offsets.end());
    return offsets;
}

void prune_producer_snapshots(const fs::path& dir, int64_t max_offset, size_t keep) {
    auto offsets = list_producer_snapshots(dir);
    std::error_code ec;
    size_t kept = 0;
    for (auto it = offsets.rbegin(); it != offsets.rend(); ++it) {
        if (*it <= max_offset && kept < keep) {
            ++kept;
            continue;
        }
        fs::remove(snapshot_path(dir, *it), ec);
    }
}

}  // namespace skiff::storage
