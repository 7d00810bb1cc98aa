// The open .log files of sealed segments, bounded: the descriptor budget for partitions that are
// read but not written.
//
// A sealed segment does not keep its .log open. Kafka does (one descriptor per segment, which is
// why its operators raise the descriptor limit to 100,000 and more); skiff runs on laptops and
// in containers with a few thousand, so a sealed segment opens its .log on first read and hands it
// to this cache, which keeps the most recently read ones open and closes the least recently read
// beyond its capacity. A file in use (a FileSlice on its way to sendfile) stays open until its
// last user lets go, evicted or not; an evicted file is simply reopened by the next read.
//
// Capacity: a quarter of the soft descriptor limit seen at first use (5,000 with this machine's
// 20,000), at least 64. The rest is for active segments (one each), connections and the
// broker's own files.
//
// Thread-safety: every method may be called from any thread (one mutex; held for a list splice).
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "storage/log_file.h"

namespace skiff::storage {

class OpenSegmentFiles {
  public:
    explicit OpenSegmentFiles(size_t capacity) : capacity_(capacity) {}

    // The process-wide cache used by every LogSegment.
    static OpenSegmentFiles& global();

    // Marks `file` as just read (inserting it), closing the least recently read beyond capacity.
    void touch(const std::shared_ptr<LogFile>& file);
    // Drops `file` (its segment was deleted): the descriptor closes once no reader holds it, so
    // the disk space of the unlinked file comes back.
    void forget(const LogFile* file);

    size_t size() const;
    size_t capacity() const { return capacity_; }

  private:
    const size_t capacity_;
    mutable std::mutex mutex_;
    std::list<std::shared_ptr<LogFile>> recent_;  // most recently read first
    std::unordered_map<const LogFile*, std::list<std::shared_ptr<LogFile>>::iterator> where_;
};

}  // namespace skiff::storage
