// The cleaned segment's files (log_cleaner.h, step 4): CleanedWriter writes <base>.log.cleaned
// and its indexes; swap_in() puts them in place of the segments they replace, through the
// .cleaned -> .swap -> final renames that log recovery knows how to finish after a crash.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "protocol/expected.h"
#include "protocol/record_batch.h"
#include "storage/cleaner/log_cleaner.h"
#include "storage/log_config.h"
#include "storage/log_file.h"
#include "storage/offset_index.h"
#include "storage/partition_log.h"
#include "storage/storage_error.h"
#include "storage/time_index.h"
#include "storage/transaction_index.h"

namespace skiff::storage::cleaner {

// Writes one cleaned segment: <base>.log.cleaned and its indexes, by LogSegment's index rule.
class CleanedWriter {
  public:
    static Expected<std::unique_ptr<CleanedWriter>, StorageError> create(
        const std::filesystem::path& dir, int64_t base, const LogConfig& config);

    Expected<void, StorageError> append(std::span<const std::byte> batch,
                                        const protocol::BatchHeader& h);
    // Seals and fsyncs every file; the aborted transactions of the group go to .txnindex, and
    // the offset after the group (`end`) to the range file (see kRangeSuffix).
    Expected<void, StorageError> finish(const std::vector<TxnIndexEntry>& aborted, int64_t end);
    // Removes the .cleaned files (a pass that failed or stopped).
    void remove() const;

    int64_t size() const { return position_; }

  private:
    CleanedWriter(std::filesystem::path dir, int64_t base, LogConfig config)
        : dir_(std::move(dir)), base_(base), config_(std::move(config)) {}

    std::filesystem::path dir_;
    int64_t base_;
    LogConfig config_;
    std::shared_ptr<LogFile> log_;
    std::unique_ptr<OffsetIndex> offset_index_;
    std::unique_ptr<TimeIndex> time_index_;
    int64_t position_ = 0;
    int64_t bytes_since_entry_ = 0;
    std::optional<TimestampAndOffset> max_ts_;
};

// The swap of one group: the finished .cleaned files named after old.front() replace the
// segments `old` (next_base: the offset after them) in `log`. false: the group's segments are
// gone (retention ran meanwhile); the .cleaned files are removed and nothing else changed.
// `hook` (tests) is called at every SwapStep.
Expected<bool, StorageError> swap_in(PartitionLog& log, const LogConfig& config,
                                     const std::vector<std::shared_ptr<LogSegment>>& old,
                                     int64_t next_base, const std::function<void(SwapStep)>& hook);

}  // namespace skiff::storage::cleaner
