// `skiff dump-log [--verify] PATH...`: prints what .log, .index and .timeindex files hold, in
// the spirit of Kafka's kafka-dump-log tool, and with --verify checks them:
//   .log        every batch sound (framing, magic 2, CRC-32C), offsets strictly increasing from
//               the file's base offset (gaps are allowed: the log cleaner leaves them), nothing
//               after the last batch but, in the active segment, zeros (durable mode grows the
//               file ahead of its data)
//   directory   offsets strictly increasing across segments (a segment starts at or after the
//               end of the one before); partition.metadata (the topic id) parses
//   .index      entries strictly increasing, each on a batch boundary of the matching .log
//               whose offsets contain the entry's offset
//   .timeindex  timestamps strictly increasing, offsets non-decreasing and inside the segment
//   sealed      (a later .log in the same directory) both indexes trimmed to their entries, no
//               all-zero first or last entry, a time index not empty beside offset index
//               entries: what a power cut leaves of a seal that never reached the disk
//   hole        a segment followed by another ends where the next begins (an empty one or
//               one that ends early lost its tail). Checked only for a partition directory of
//               a broker's log dir (one holding recovery-point-offset-checkpoint) that the log
//               cleaner has never cleaned (cleaner-offset-checkpoint does not name it): cleaned
//               segments may end early or be empty, and a bare directory says nothing of that.
//   .txnindex   34-byte entries of version 0, lastOffset strictly increasing and inside the
//               segment, firstOffset <= lastOffset, lastOffset an ABORT marker of that producer
// Control batches (transaction markers) print their type and coordinator epoch.
// Exit code: 0 fine, 1 a problem found, 2 usage or I/O error.
#include "storage/dump_log.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "storage/big_endian.h"
#include "storage/checkpoint_file.h"
#include "storage/control_batch.h"
#include "storage/log_file.h"
#include "storage/log_manager.h"
#include "storage/offset_index.h"
#include "storage/partition_metadata.h"
#include "storage/segment_names.h"
#include "storage/time_index.h"
#include "storage/transaction_index.h"

namespace skiff::storage {

namespace fs = std::filesystem;

namespace {

struct BatchSpan {
    int64_t base_offset;
    int64_t last_offset;
    int64_t producer_id = -1;
    int16_t control_type = -1;  // a control batch's record type, -1 for data
};

const char* control_type_name(int16_t type) {
    switch (type) {
        case 0:
            return "ABORT";
        case 1:
            return "COMMIT";
        default:
            return "UNKNOWN";
    }
}

struct Dumper {
    bool verify = false;
    int problems = 0;
    bool io_failed = false;

    void problem(const fs::path& file, const std::string& what) {
        ++problems;
        std::cout << "PROBLEM " << file.string() << ": " << what << "\n";
        std::cerr << "dump-log: " << file.string() << ": " << what << "\n";
    }

    // Batches of a .log by position; nullopt on an I/O error.
    std::optional<std::map<int64_t, BatchSpan>> dump_log(const fs::path& path, bool print,
                                                         int64_t* next_offset) {
        auto base = parse_segment_file_name(path.filename().string(), kLogSuffix);
        auto file = LogFile::open_read_only(path);
        if (!file) {
            std::cerr << "dump-log: " << file.error().message << "\n";
            io_failed = true;
            return std::nullopt;
        }
        auto size = (*file)->size();
        if (!size)
            return std::nullopt;
        if (print) {
            std::cout << "Dumping " << path.string() << "\n";
            if (base)
                std::cout << "Log starting offset: " << *base << "\n";
        }
        std::map<int64_t, BatchSpan> batches;
        BatchScanner scanner(**file, 0, *size);
        std::optional<int64_t> expected = base;
        for (;;) {
            int64_t position = scanner.position();
            auto step = scanner.next(true);
            if (!step) {
                std::cerr << "dump-log: " << step.error().message << "\n";
                io_failed = true;
                return std::nullopt;
            }
            if (!step->batch) {
                if (step->problem.empty())
                    break;
                // Durable mode grows an active segment's file ahead of its data (zeros), which
                // the broker cuts off at close and after a crash: not a torn write.
                auto zeros = only_zeros(**file, position, *size);
                if (zeros && *zeros && base && is_sealed(path, *base)) {
                    problem(path, "sealed with zeros from position " + std::to_string(position) +
                                      " to " + std::to_string(*size) + " after its last batch");
                } else if (zeros && *zeros) {
                    if (print)
                        std::cout << "Reserved space (zeros) from position " << position << " to "
                                  << *size << "\n";
                } else {
                    problem(path, "at position " + std::to_string(position) + ": " + step->problem);
                }
                break;
            }
            const protocol::BatchHeader& h = step->batch->header;
            if (print) {
                int32_t last_seq = h.base_sequence < 0 ? -1 : h.base_sequence + h.last_offset_delta;
                std::cout << "baseOffset: " << h.base_offset << " lastOffset: " << h.last_offset()
                          << " count: " << h.records_count << " baseSequence: " << h.base_sequence
                          << " lastSequence: " << last_seq << " producerId: " << h.producer_id
                          << " producerEpoch: " << h.producer_epoch
                          << " partitionLeaderEpoch: " << h.partition_leader_epoch
                          << " isTransactional: " << (h.is_transactional() ? "true" : "false")
                          << " isControl: " << (h.is_control() ? "true" : "false")
                          << " position: " << position << " size: " << h.size_bytes()
                          << " baseTimestamp: " << h.base_timestamp
                          << " maxTimestamp: " << h.max_timestamp << " magic: " << int(h.magic)
                          << " compresscodec: " << protocol::compression_name(h.compression())
                          << " crc: " << h.crc << " isvalid: true\n";
            }
            int16_t control_type = -1;
            if (h.is_control()) {
                auto record = parse_control_record(step->batch->bytes);
                if (!record)
                    problem(path, "control batch at position " + std::to_string(position) +
                                      " has no readable control record");
                else
                    control_type = record->type;
                if (print && record)
                    std::cout << "| offset: " << h.base_offset
                              << " endTxnMarker: " << control_type_name(record->type)
                              << " coordinatorEpoch: " << record->coordinator_epoch << "\n";
            }
            if (expected && h.base_offset < *expected)
                problem(path, "batch at position " + std::to_string(position) +
                                  " has base offset " + std::to_string(h.base_offset) +
                                  ", expected " + std::to_string(*expected) + " or more");
            expected = h.last_offset() + 1;
            batches[position] =
                BatchSpan{h.base_offset, h.last_offset(), h.producer_id, control_type};
        }
        if (next_offset)
            *next_offset = expected.value_or(-1);
        return batches;
    }

    // Whether a later .log sits next to the segment `base` of `file`: then it is sealed.
    static bool is_sealed(const fs::path& file, int64_t base) {
        std::error_code ec;
        for (const auto& entry : fs::directory_iterator(file.parent_path(), ec))
            if (auto b = parse_segment_file_name(entry.path().filename().string(), kLogSuffix))
                if (*b > base)
                    return true;
        return false;
    }

    static bool is_zero(const std::byte* e, size_t size) {
        return std::all_of(e, e + size, [](std::byte b) { return b == std::byte{0}; });
    }

    // The checks of a sealed segment's index (the broker rebuilds an index failing them).
    void check_sealed_index(const fs::path& path, const std::vector<std::byte>& bytes, size_t n,
                            size_t entry_size) {
        if (bytes.size() != n * entry_size)
            problem(path, "sealed but not trimmed (" + std::to_string(bytes.size()) + " bytes, " +
                              std::to_string(n) +
                              " entries): the segment's seal never reached the disk");
        else if (n > 0 && (is_zero(bytes.data(), entry_size) ||
                           is_zero(bytes.data() + (n - 1) * entry_size, entry_size)))
            problem(path, "sealed with an all-zero entry (lost with the page cache)");
    }

    std::optional<std::vector<std::byte>> read_all(const fs::path& path) {
        std::ifstream in(path, std::ios::binary);
        if (!in) {
            std::cerr << "dump-log: cannot open " << path.string() << "\n";
            io_failed = true;
            return std::nullopt;
        }
        std::vector<char> chars((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
        std::vector<std::byte> bytes(chars.size());
        std::transform(chars.begin(), chars.end(), bytes.begin(),
                       [](char c) { return std::byte(c); });
        return bytes;
    }

    // Entries of an index file, stopping at the preallocated hole of an active index: an
    // all-zero entry after entry 0. (An offset-index entry (0, 0) can only be a hole: the first
    // batch of a segment, at position 0, never gets an entry.)
    static size_t entry_count(const std::vector<std::byte>& bytes, size_t entry_size) {
        size_t n = bytes.size() / entry_size;
        for (size_t i = 1; i < n; ++i) {
            const std::byte* e = bytes.data() + i * entry_size;
            if (std::all_of(e, e + entry_size, [](std::byte b) { return b == std::byte{0}; }))
                return i;
        }
        return n;
    }

    std::optional<std::map<int64_t, BatchSpan>> batches_for(const fs::path& index, int64_t base,
                                                            int64_t* next_offset) {
        fs::path log = index.parent_path() / segment_file_name(base, kLogSuffix);
        if (!fs::exists(log)) {
            problem(index, "no " + log.filename().string() + " next to it");
            return std::nullopt;
        }
        return dump_log(log, false, next_offset);
    }

    void dump_index(const fs::path& path) {
        auto base = parse_segment_file_name(path.filename().string(), kIndexSuffix);
        auto bytes = read_all(path);
        if (!bytes)
            return;
        int64_t b = base.value_or(0);
        std::cout << "Dumping " << path.string() << "\nOffset index base offset: " << b << "\n";
        if (bytes->size() % OffsetIndex::kEntrySize != 0)
            problem(path, "size " + std::to_string(bytes->size()) + " is not a multiple of 8");
        size_t n = entry_count(*bytes, OffsetIndex::kEntrySize);
        if (verify && base && is_sealed(path, *base))
            check_sealed_index(path, *bytes, n, OffsetIndex::kEntrySize);
        std::optional<std::map<int64_t, BatchSpan>> batches;
        if (verify && base)
            batches = batches_for(path, *base, nullptr);
        int64_t prev_offset = -1, prev_position = -1;
        for (size_t i = 0; i < n; ++i) {
            const std::byte* e = bytes->data() + i * OffsetIndex::kEntrySize;
            int64_t offset = b + load_be<int32_t>(e);
            int64_t position = load_be<int32_t>(e + 4);
            std::cout << "offset: " << offset << " position: " << position << "\n";
            if (!verify)
                continue;
            if (offset <= prev_offset || position <= prev_position)
                problem(path, "entry " + std::to_string(i) + " does not increase");
            prev_offset = offset;
            prev_position = position;
            if (!batches)
                continue;
            auto it = batches->find(position);
            if (it == batches->end())
                problem(path, "entry " + std::to_string(i) + " position " +
                                  std::to_string(position) + " is not a batch boundary");
            else if (offset < it->second.base_offset || offset > it->second.last_offset)
                problem(path, "entry " + std::to_string(i) + " offset " + std::to_string(offset) +
                                  " is not in the batch at " + std::to_string(position) + " (" +
                                  std::to_string(it->second.base_offset) + ".." +
                                  std::to_string(it->second.last_offset) + ")");
        }
    }

    void dump_time_index(const fs::path& path) {
        auto base = parse_segment_file_name(path.filename().string(), kTimeIndexSuffix);
        auto bytes = read_all(path);
        if (!bytes)
            return;
        int64_t b = base.value_or(0);
        std::cout << "Dumping " << path.string() << "\nTime index base offset: " << b << "\n";
        if (bytes->size() % TimeIndex::kEntrySize != 0)
            problem(path, "size " + std::to_string(bytes->size()) + " is not a multiple of 12");
        size_t n = entry_count(*bytes, TimeIndex::kEntrySize);
        if (verify && base && is_sealed(path, *base)) {
            check_sealed_index(path, *bytes, n, TimeIndex::kEntrySize);
            std::error_code ec;
            const auto index = path.parent_path() / segment_file_name(*base, kIndexSuffix);
            if (n == 0 && fs::file_size(index, ec) >= OffsetIndex::kEntrySize && !ec)
                problem(path, "sealed and empty while " + index.filename().string() +
                                  " has entries: lost with the page cache");
        }
        int64_t next_offset = -1;
        if (verify && base && !batches_for(path, *base, &next_offset))
            next_offset = -1;
        int64_t prev_ts = INT64_MIN, prev_offset = -1;
        for (size_t i = 0; i < n; ++i) {
            const std::byte* e = bytes->data() + i * TimeIndex::kEntrySize;
            int64_t ts = load_be<int64_t>(e);
            int64_t offset = b + load_be<int32_t>(e + 8);
            std::cout << "timestamp: " << ts << " offset: " << offset << "\n";
            if (!verify)
                continue;
            if (ts <= prev_ts || offset < prev_offset)
                problem(path, "entry " + std::to_string(i) + " is not monotonic");
            if (offset < b || (next_offset >= 0 && offset >= next_offset))
                problem(path, "entry " + std::to_string(i) + " offset " + std::to_string(offset) +
                                  " is outside the segment");
            prev_ts = ts;
            prev_offset = offset;
        }
    }

    void dump_txn_index(const fs::path& path) {
        auto base = parse_segment_file_name(path.filename().string(), kTxnIndexSuffix);
        auto bytes = read_all(path);
        if (!bytes)
            return;
        int64_t b = base.value_or(0);
        std::cout << "Dumping " << path.string() << "\nTransaction index base offset: " << b
                  << "\n";
        std::string torn;
        auto entries = parse_txn_index(*bytes, &torn);
        int64_t next_offset = -1;
        std::optional<std::map<int64_t, BatchSpan>> batches;
        if (verify && base)
            batches = batches_for(path, *base, &next_offset);
        std::map<int64_t, BatchSpan> by_offset;
        if (batches)
            for (const auto& [position, span] : *batches)
                by_offset[span.base_offset] = span;
        int64_t prev_last = INT64_MIN;
        for (size_t i = 0; i < entries.size(); ++i) {
            const TxnIndexEntry& e = entries[i];
            std::cout << "version: 0 producerId: " << e.producer_id
                      << " firstOffset: " << e.first_offset << " lastOffset: " << e.last_offset
                      << " lastStableOffset: " << e.last_stable_offset << "\n";
            if (!verify)
                continue;
            const std::string which = "entry " + std::to_string(i);
            if (e.last_offset <= prev_last)
                problem(path, which + " lastOffset " + std::to_string(e.last_offset) +
                                  " does not increase");
            prev_last = e.last_offset;
            if (e.first_offset > e.last_offset)
                problem(path, which + " firstOffset is after its lastOffset");
            if (e.last_offset < b || (next_offset >= 0 && e.last_offset >= next_offset)) {
                problem(path, which + " lastOffset " + std::to_string(e.last_offset) +
                                  " is outside the segment");
                continue;
            }
            if (!batches)
                continue;
            auto it = by_offset.find(e.last_offset);
            if (it == by_offset.end() || it->second.control_type != 0 ||
                it->second.producer_id != e.producer_id)
                problem(path, which + " lastOffset " + std::to_string(e.last_offset) +
                                  " is not an ABORT marker of producer " +
                                  std::to_string(e.producer_id));
        }
        if (verify && !torn.empty())
            problem(path, torn);
    }

    // partition.metadata: the topic id, in Kafka's text form; a file that does not parse is a
    // problem (the broker refuses to start on it).
    void dump_partition_metadata(const fs::path& dir) {
        auto id = read_partition_metadata(dir);
        if (!id) {
            problem(dir / kPartitionMetadataFile, id.error().message);
            return;
        }
        if (*id)  // none: a dir of segments only, or one written before topic ids
            std::cout << "Topic id: " << to_string(**id) << " ("
                      << (dir / kPartitionMetadataFile).string() << ")\n";
    }

    void dump_file(const fs::path& path) {
        std::string name = path.filename().string();
        if (name == kPartitionMetadataFile)
            dump_partition_metadata(path.parent_path());
        else if (name.ends_with(kLogSuffix))
            dump_log(path, true, nullptr);
        else if (name.ends_with(kTimeIndexSuffix))
            dump_time_index(path);
        else if (name.ends_with(kTxnIndexSuffix))
            dump_txn_index(path);
        else if (name.ends_with(kIndexSuffix))
            dump_index(path);
        else
            std::cout << "Ignoring " << path.string() << " (not a segment file)\n";
    }

    // Whether the segments of `dir` must be contiguous: a partition of a broker's log dir
    // that the log cleaner has never cleaned (as recovery decides, log_manager.cpp).
    static bool must_be_contiguous(const fs::path& dir) {
        const fs::path absolute = fs::absolute(dir).lexically_normal();
        const fs::path partition = absolute.has_filename() ? absolute : absolute.parent_path();
        auto tp = parse_partition_dir_name(partition.filename().string());
        const fs::path log_dir = partition.parent_path();
        if (!tp || !fs::exists(log_dir / kRecoveryPointCheckpoint))
            return false;
        auto cleaned = read_checkpoint(log_dir / "cleaner-offset-checkpoint");
        return cleaned && !cleaned->contains(*tp);
    }

    void dump_dir(const fs::path& dir) {
        dump_partition_metadata(dir);
        std::vector<fs::path> files;
        for (const auto& entry : fs::directory_iterator(dir)) {
            std::string name = entry.path().filename().string();
            if (name.ends_with(kLogSuffix) || name.ends_with(kIndexSuffix) ||
                name.ends_with(kTimeIndexSuffix) || name.ends_with(kTxnIndexSuffix))
                files.push_back(entry.path());
        }
        std::sort(files.begin(), files.end());
        std::optional<int64_t> expected_base;
        const bool gaps_allowed = !verify || !must_be_contiguous(dir);
        fs::path previous;
        for (const auto& file : files) {
            if (verify && file.filename().string().ends_with(kLogSuffix)) {
                auto base = parse_segment_file_name(file.filename().string(), kLogSuffix);
                if (base && expected_base && *base < *expected_base)
                    problem(file, "segment starts at " + std::to_string(*base) +
                                      " but the previous one ends before " +
                                      std::to_string(*expected_base));
                if (base && expected_base && *base > *expected_base && !gaps_allowed)
                    problem(previous, "ends at offset " + std::to_string(*expected_base) +
                                          " but the next segment starts at " +
                                          std::to_string(*base) + ": offsets " +
                                          std::to_string(*expected_base) + ".." +
                                          std::to_string(*base - 1) + " are missing");
                int64_t next = -1;
                dump_log(file, true, &next);
                if (next >= 0)
                    expected_base = next;
                previous = file;
                continue;
            }
            dump_file(file);
        }
    }
};

}  // namespace

int dump_log_main(int argc, char** argv) {
    Dumper dumper;
    std::vector<fs::path> paths;
    for (int i = 0; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--verify")
            dumper.verify = true;
        else if (arg == "--help" || arg == "-h") {
            std::cout << "usage: skiff dump-log [--verify] PATH...\n";
            return 0;
        } else
            paths.emplace_back(arg);
    }
    if (paths.empty()) {
        std::cerr << "usage: skiff dump-log [--verify] PATH...\n";
        return 2;
    }
    for (const auto& path : paths) {
        std::error_code ec;
        if (fs::is_directory(path, ec))
            dumper.dump_dir(path);
        else if (fs::exists(path, ec))
            dumper.dump_file(path);
        else {
            std::cerr << "dump-log: no such file " << path.string() << "\n";
            dumper.io_failed = true;
        }
    }
    if (dumper.problems > 0) {
        std::cerr << "dump-log: " << dumper.problems << " problem(s) found\n";
        return 1;
    }
    if (dumper.io_failed)
        return 2;
    if (dumper.verify)
        std::cout << "verify: no problems found\n";
    return 0;
}

}  // namespace skiff::storage
