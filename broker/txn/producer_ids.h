// Producer ids for InitProducerId, unique across restarts. Ids are reserved in blocks: the file
// <log dir>/producer-id-block holds the first id not yet reserved (`next.block.start=N`, written
// atomically), and is advanced by a whole block before any id of that block is handed out. A
// restart therefore skips the rest of the current block but never reuses an id.
//
// Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <mutex>

#include "protocol/expected.h"

namespace skiff::broker {

class ProducerIdAllocator {
  public:
    static constexpr int64_t kBlockSize = 1000;

    explicit ProducerIdAllocator(const std::filesystem::path& log_dir);
    // -1 when the block file cannot be written (the caller answers with a retriable error).
    int64_t next();
    // Whether `id` was handed out by next(), in this process or an earlier one: below the block
    // start the file held when this process started, or below this process's next id.
    // Produce refuses batches carrying any other id, so a client cannot claim an id that a later
    // InitProducerId will give to another producer.
    bool issued(int64_t id) const { return id >= 0 && id < issued_end_.load(); }

  private:
    std::filesystem::path file_;
    std::mutex mutex_;
    int64_t next_id_ = 0;
    int64_t block_end_ = 0;  // exclusive; next_id_ == block_end_ means a new block is needed
    // Every id below this was issued (or skipped for good); read from the file at construction,
    // raised by next(). Atomic so that produce checks it without taking the mutex.
    std::atomic<int64_t> issued_end_{0};
};

}  // namespace skiff::broker
