#include "broker/txn/finalized_features.h"

#include <spdlog/spdlog.h>

#include <charconv>
#include <fstream>
#include <map>

#include "storage/durable_file.h"

namespace skiff::broker::txn {

namespace fs = std::filesystem;
using protocol::ErrorCode;

namespace {

// key=value lines; unknown or malformed lines are ignored (the file is rewritten whole).
std::map<std::string, int64_t> read_file(const fs::path& file) {
    std::map<std::string, int64_t> out;
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
        const auto eq = line.find('=');
        if (eq == std::string::npos)
            continue;
        int64_t v = 0;
        const char* first = line.data() + eq + 1;
        const char* last = line.data() + line.size();
        auto [end, ec] = std::from_chars(first, last, v);
        if (ec == std::errc() && end == last)
            out[line.substr(0, eq)] = v;
    }
    return out;
}

}  // namespace

FinalizedFeatures::FinalizedFeatures(const fs::path& log_dir, int16_t configured)
    : file_(log_dir / "finalized-features"), bootstrap_(configured) {
    auto stored = read_file(file_);
    const auto level = stored.find(std::string(kTransactionVersionFeature));
    const auto epoch = stored.find("epoch");
    const auto bootstrap = stored.find("bootstrap");
    const bool usable = level != stored.end() && epoch != stored.end() &&
                        bootstrap != stored.end() && level->second >= 0 &&
                        level->second <= kMaxTransactionVersion && epoch->second >= 1;
    if (usable && bootstrap->second == configured) {
        transaction_version_ = static_cast<int16_t>(level->second);
        epoch_ = epoch->second;
        return;
    }
    // First start, or the setting changed: the setting decides, at a newer epoch.
    const int64_t next_epoch = usable ? epoch->second + 1 : 1;
    transaction_version_ = configured;
    epoch_ = next_epoch;
    std::lock_guard lock(mutex_);
    if (!write_locked(configured, next_epoch))
        spdlog::warn("cannot write {}: transaction.version {} holds until the next restart",
                     file_.string(), configured);
}

bool FinalizedFeatures::write_locked(int16_t level, int64_t epoch) {
    const std::string text = std::string(kTransactionVersionFeature) + "=" + std::to_string(level) +
                             "\nepoch=" + std::to_string(epoch) +
                             "\nbootstrap=" + std::to_string(bootstrap_) + "\n";
    return storage::write_file_atomically(file_, text).has_value();
}

FeatureUpdateResult FinalizedFeatures::update(std::string_view feature, int16_t max_level,
                                              FeatureUpgradeType type, bool validate_only) {
    if (feature != kTransactionVersionFeature)
        return {ErrorCode::invalid_update_version,
                "The controller does not support the given feature " + std::string(feature) + "."};
    // Kafka: a level < 1 deletes the feature, which for transaction.version is level 0.
    const int16_t level = max_level < 1 ? int16_t{0} : max_level;
    if (level > kMaxTransactionVersion)
        return {ErrorCode::invalid_update_version,
                "Invalid update version " + std::to_string(max_level) + " for feature " +
                    std::string(feature) + ". Broker 1 only supports versions 0-" +
                    std::to_string(kMaxTransactionVersion)};
    std::lock_guard lock(mutex_);
    const int16_t current = transaction_version_.load();
    if (level < current && type == FeatureUpgradeType::upgrade)
        return {ErrorCode::invalid_update_version,
                "Can't downgrade the version of this feature without setting the upgrade type to "
                "either safe or unsafe downgrade."};
    if (level > current && type != FeatureUpgradeType::upgrade)
        return {ErrorCode::invalid_update_version, "Can't downgrade to a newer version."};
    // Transaction version levels lose nothing when lowered (open transactions finish under
    // the rules they started with; clients pick the new level up on their next ApiVersions), so
    // Kafka allows a safe downgrade of them.
    if (validate_only || level == current)
        return {};
    const int64_t next_epoch = epoch_.load() + 1;
    if (!write_locked(level, next_epoch))
        return {ErrorCode::unknown_server_error, "cannot write " + file_.string()};
    transaction_version_ = level;
    epoch_ = next_epoch;
    spdlog::info("finalized transaction.version {} -> {} (epoch {})", current, level, next_epoch);
    return {};
}

}  // namespace skiff::broker::txn
