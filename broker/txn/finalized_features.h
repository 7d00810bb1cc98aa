// The finalized feature levels of this one-broker cluster (KIP-584), as ApiVersions v3+ shows
// them and UpdateFeatures (API 57) changes them. skiff finalizes one feature, Kafka's
// `transaction.version` (KIP-890): 0 = transactions V1 with version-0 __transaction_state values,
// 1 = flexible (version-1) values with tagged fields, 2 = transactions V2 (the epoch bumped by
// every EndTxn, partitions and the offsets partition added implicitly by Produce v12 and
// TxnOffsetCommit v5).
//
// Kafka keeps finalized levels in its metadata log, so they survive restarts; skiff keeps them
// in <log dir>/finalized-features (`transaction.version=N`, `epoch=N`, `bootstrap=N`, written
// atomically). The setting `transaction.version` is the bootstrap level, as `kafka-storage format
// --feature` is for Kafka: a level changed by UpdateFeatures wins over it after a restart, until
// the setting itself is changed (then the new setting wins and the epoch moves on).
//
// The epoch (ApiVersions' finalized_features_epoch) starts at 1 and grows by one per change;
// Kafka uses the metadata log's offset, which clients only compare.
//
// Thread-safe: levels are read lock-free on every request that needs them.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/error_code.h"

namespace skiff::broker::txn {

inline constexpr std::string_view kTransactionVersionFeature = "transaction.version";
inline constexpr int16_t kMaxTransactionVersion = 2;

// UpdateFeatures' upgrade types (v1+; v0's allow_downgrade maps to safe_downgrade).
enum class FeatureUpgradeType : int8_t { upgrade = 1, safe_downgrade = 2, unsafe_downgrade = 3 };

struct FeatureUpdateResult {
    protocol::ErrorCode error = protocol::ErrorCode::none;
    std::string message;  // empty when error is none
};

// The transaction version a request gets, as Kafka gates it: transactions V2 only when the
// feature is finalized at 2 AND the request is of a V2 version (EndTxn 5+, Produce 12+,
// TxnOffsetCommit 5+, AddPartitionsToTxn 5+); otherwise V1 behaviour (0).
inline int16_t client_transaction_version(int16_t finalized, bool v2_request) {
    return finalized >= 2 && v2_request ? int16_t{2} : int16_t{0};
}

class FinalizedFeatures {
  public:
    // Reads the file under `log_dir` (creates it with `configured_transaction_version`, the
    // setting, when missing or when the setting changed since it was written).
    FinalizedFeatures(const std::filesystem::path& log_dir, int16_t configured_transaction_version);

    int16_t transaction_version() const { return transaction_version_.load(); }
    int64_t epoch() const { return epoch_.load(); }

    // Checks (and unless validate_only applies) a new level for `feature`, with Kafka's
    // controller rules: an unknown feature or a level above what this broker supports is
    // INVALID_UPDATE_VERSION; a lower level needs a downgrade type (else INVALID_UPDATE_VERSION);
    // level < 1 deletes the feature, i.e. level 0 for transaction.version. Written to the file
    // before it takes effect (a failed write is UNKNOWN_SERVER_ERROR and changes nothing).
    FeatureUpdateResult update(std::string_view feature, int16_t max_level, FeatureUpgradeType type,
                               bool validate_only);

  private:
    bool write_locked(int16_t level, int64_t epoch);

    std::filesystem::path file_;
    int16_t bootstrap_ = 0;
    std::mutex mutex_;  // serializes update()
    std::atomic<int16_t> transaction_version_{0};
    std::atomic<int64_t> epoch_{1};
};

}  // namespace skiff::broker::txn
