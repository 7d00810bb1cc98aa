#include "broker/txn/transaction_metadata.h"

#include <array>

namespace skiff::broker::txn {
namespace {

constexpr std::array<std::string_view, 8> kNames = {
    "Empty",          "Ongoing",       "PrepareCommit", "PrepareAbort",
    "CompleteCommit", "CompleteAbort", "Dead",          "PrepareEpochFence",
};

}  // namespace

std::string_view state_name(TxnState s) {
    const auto i = static_cast<size_t>(s);
    return i < kNames.size() ? kNames[i] : std::string_view("Unknown");
}

std::optional<TxnState> state_from_name(std::string_view name) {
    for (size_t i = 0; i < kNames.size(); ++i)
        if (kNames[i] == name)
            return static_cast<TxnState>(i);
    return std::nullopt;
}

std::optional<TxnState> state_from_id(int8_t id) {
    if (id < 0 || static_cast<size_t>(id) >= kNames.size())
        return std::nullopt;
    return static_cast<TxnState>(id);
}

}  // namespace skiff::broker::txn
