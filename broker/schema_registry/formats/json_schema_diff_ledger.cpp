#include "broker/schema_registry/formats/json_schema_diff_ledger.h"

#include <algorithm>
#include <limits>

namespace skiff::schema_registry::json_schema {

void PairLedger::rely_on(int frame) {
    if (!stack_.empty())
        stack_.back().relies_on = std::min(stack_.back().relies_on, frame);
}

PairLedger::Next PairLedger::look_up(const NodePair& pair, const std::vector<Difference>** known) {
    if (gave_up_)
        return Next::kCycle;  // nothing more is compared; the check reports why
    if (auto it = settled_.find(pair); it != settled_.end()) {
        *known = &it->second;
        return Next::kKnown;
    }
    if (auto it = provisional_.find(pair); it != provisional_.end()) {
        rely_on(it->second.second);
        *known = &it->second.first;
        return Next::kKnown;
    }
    if (auto it = in_progress_.find(pair); it != in_progress_.end()) {
        rely_on(it->second);
        return Next::kCycle;
    }
    if (static_cast<int>(stack_.size()) >= limits_.loose_cycle_depth) {
        auto it = originals_.find(pair.first);
        if (it != originals_.end() && !it->second.empty()) {
            rely_on(it->second.back());
            return Next::kCycle;
        }
    }
    if (++comparisons_ > limits_.max_comparisons ||
        static_cast<int>(stack_.size()) >= limits_.max_depth) {
        gave_up_ = true;
        return Next::kGiveUp;
    }
    return Next::kCompare;
}

void PairLedger::enter(const NodePair& pair) {
    int frame = static_cast<int>(stack_.size());
    stack_.push_back({pair, std::numeric_limits<int>::max()});
    in_progress_[pair] = frame;
    originals_[pair.first].push_back(frame);
    if (provisional_by_frame_.size() <= stack_.size())
        provisional_by_frame_.resize(stack_.size());
}

void PairLedger::leave(const NodePair& pair, const std::vector<Difference>& differences) {
    int frame = static_cast<int>(stack_.size()) - 1;
    int relies_on = stack_.back().relies_on;
    stack_.pop_back();
    in_progress_.erase(pair);
    originals_[pair.first].pop_back();
    // What was found assuming this pair compatible holds no longer.
    for (const NodePair& assumed : provisional_by_frame_[frame])
        provisional_.erase(assumed);
    provisional_by_frame_[frame].clear();
    if (gave_up_)
        return;
    if (relies_on >= frame) {
        settled_.emplace(pair, differences);
    } else {
        provisional_.emplace(pair, std::pair{differences, relies_on});
        provisional_by_frame_[relies_on].push_back(pair);
        rely_on(relies_on);
    }
}

}  // namespace skiff::schema_registry::json_schema
