#include "storage/open_segment_files.h"

#include <sys/resource.h>

#include <algorithm>

namespace skiff::storage {

OpenSegmentFiles& OpenSegmentFiles::global() {
    static OpenSegmentFiles cache([] {
        rlimit limit{};
        size_t soft = 1024;
        if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
            soft = static_cast<size_t>(limit.rlim_cur);
        return std::max<size_t>(soft / 4, 64);
    }());
    return cache;
}

void OpenSegmentFiles::touch(const std::shared_ptr<LogFile>& file) {
    std::shared_ptr<LogFile> evicted;  // closed outside the lock
    std::lock_guard lock(mutex_);
    if (auto it = where_.find(file.get()); it != where_.end()) {
        recent_.splice(recent_.begin(), recent_, it->second);
        return;
    }
    recent_.push_front(file);
    where_[file.get()] = recent_.begin();
    if (recent_.size() > capacity_) {
        evicted = std::move(recent_.back());
        where_.erase(evicted.get());
        recent_.pop_back();
    }
}

void OpenSegmentFiles::forget(const LogFile* file) {
    std::shared_ptr<LogFile> dropped;
    std::lock_guard lock(mutex_);
    if (auto it = where_.find(file); it != where_.end()) {
        dropped = std::move(*it->second);
        recent_.erase(it->second);
        where_.erase(it);
    }
}

size_t OpenSegmentFiles::size() const {
    std::lock_guard lock(mutex_);
    return recent_.size();
}

}  // namespace skiff::storage
