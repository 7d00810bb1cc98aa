#include "storage/producer_state.h"

#include <limits>
#include <string>

namespace skiff::storage {

int32_t last_sequence_of(int32_t first_sequence, int32_t last_offset_delta) {
    int64_t last = static_cast<int64_t>(first_sequence) + last_offset_delta;
    if (last > std::numeric_limits<int32_t>::max())
        last -= static_cast<int64_t>(std::numeric_limits<int32_t>::max()) + 1;
    return static_cast<int32_t>(last);
}

namespace {

bool in_sequence(int32_t last_sequence, int32_t next_sequence) {
    return next_sequence == last_sequence_of(last_sequence, 1);
}

}  // namespace

SequenceCheck ProducerState::check(const protocol::BatchSummary& batch, bool check_sequence) const {
    if (batch.producer_id < 0)
        return {};
    auto it = entries_.find(batch.producer_id);
    if (it == entries_.end())
        return {};  // unknown producer: Kafka accepts any sequence
    const ProducerEntry& entry = it->second;
    if (batch.producer_epoch < entry.epoch)
        return {SequenceVerdict::invalid_producer_epoch,
                {},
                "producer " + std::to_string(batch.producer_id) + " epoch " +
                    std::to_string(batch.producer_epoch) + " is older than the current epoch " +
                    std::to_string(entry.epoch)};
    if (!batch.transactional && entry.current_txn_first_offset >= 0)
        return {SequenceVerdict::invalid_txn_state,
                {},
                "producer " + std::to_string(batch.producer_id) +
                    " sent a non-transactional batch while its transaction from offset " +
                    std::to_string(entry.current_txn_first_offset) + " is open"};
    if (!check_sequence)
        return {};
    if (batch.producer_epoch > entry.epoch) {
        if (batch.base_sequence != 0)
            return {SequenceVerdict::out_of_order_sequence,
                    {},
                    "first sequence of a new epoch must be 0, got " +
                        std::to_string(batch.base_sequence)};
        return {};
    }
    const int32_t last_sequence = last_sequence_of(batch.base_sequence, batch.last_offset_delta);
    for (const ProducerBatch& b : entry.batches)
        if (b.first_sequence == batch.base_sequence && b.last_sequence == last_sequence)
            return {SequenceVerdict::duplicate, b, {}};
    if (!entry.batches.empty() &&
        !in_sequence(entry.batches.back().last_sequence, batch.base_sequence))
        return {SequenceVerdict::out_of_order_sequence,
                {},
                "producer " + std::to_string(batch.producer_id) + " sent sequence " +
                    std::to_string(batch.base_sequence) + " after " +
                    std::to_string(entry.batches.back().last_sequence)};
    return {};
}

void ProducerState::record(int64_t producer_id, int16_t epoch, const ProducerBatch& batch,
                           bool transactional) {
    ProducerEntry& entry = entries_[producer_id];
    if (epoch != entry.epoch) {
        entry.epoch = epoch;
        entry.batches.clear();
    }
    entry.batches.push_back(batch);
    while (entry.batches.size() > kProducerBatchesKept)
        entry.batches.pop_front();
    if (transactional && entry.current_txn_first_offset < 0) {
        entry.current_txn_first_offset = batch.first_offset;
        open_txns_[batch.first_offset] = producer_id;
    }
}

void ProducerState::record(const protocol::BatchSummary& batch, int64_t first_offset) {
    if (batch.producer_id < 0 || batch.control)
        return;
    record(batch.producer_id, batch.producer_epoch,
           {batch.base_sequence, last_sequence_of(batch.base_sequence, batch.last_offset_delta),
            first_offset, first_offset + batch.last_offset_delta, batch.max_timestamp},
           batch.transactional);
}

void ProducerState::record(const protocol::BatchHeader& header) {
    if (header.producer_id < 0 || header.is_control())
        return;
    record(header.producer_id, header.producer_epoch,
           {header.base_sequence, last_sequence_of(header.base_sequence, header.last_offset_delta),
            header.base_offset, header.last_offset(), header.max_timestamp},
           header.is_transactional());
}

SequenceCheck ProducerState::check_marker(int64_t producer_id, int16_t epoch,
                                          int32_t coordinator_epoch) const {
    auto it = entries_.find(producer_id);
    if (it == entries_.end())
        return {};
    const ProducerEntry& entry = it->second;
    if (epoch < entry.epoch)
        return {SequenceVerdict::invalid_producer_epoch,
                {},
                "marker epoch " + std::to_string(epoch) + " of producer " +
                    std::to_string(producer_id) + " is older than the current epoch " +
                    std::to_string(entry.epoch)};
    if (coordinator_epoch < entry.coordinator_epoch)
        return {SequenceVerdict::transaction_coordinator_fenced,
                {},
                "marker coordinator epoch " + std::to_string(coordinator_epoch) + " of producer " +
                    std::to_string(producer_id) + " is older than " +
                    std::to_string(entry.coordinator_epoch)};
    return {};
}

std::optional<int64_t> ProducerState::complete_txn(int64_t producer_id, int16_t epoch,
                                                   int32_t coordinator_epoch) {
    ProducerEntry& entry = entries_[producer_id];
    if (epoch != entry.epoch) {
        entry.epoch = epoch;
        entry.batches.clear();
    }
    entry.coordinator_epoch = coordinator_epoch;
    const int64_t first = entry.current_txn_first_offset;
    if (first < 0)
        return std::nullopt;
    entry.current_txn_first_offset = -1;
    open_txns_.erase(first);
    return first;
}

std::optional<int64_t> ProducerState::first_unstable_offset_except(int64_t producer_id) const {
    for (const auto& [first, pid] : open_txns_)
        if (pid != producer_id)
            return first;
    return std::nullopt;
}

void ProducerState::restore(Entries entries) {
    entries_ = std::move(entries);
    open_txns_.clear();
    for (const auto& [pid, entry] : entries_)
        if (entry.current_txn_first_offset >= 0)
            open_txns_[entry.current_txn_first_offset] = pid;
}

}  // namespace skiff::storage
