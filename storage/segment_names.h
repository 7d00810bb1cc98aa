// Segment file names: the base offset zero-padded to 20 digits plus an extension, e.g.
// 00000000000000000004.log, .index, .timeindex. Sorting names sorts segments by offset.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace skiff::storage {

inline constexpr std::string_view kLogSuffix = ".log";
inline constexpr std::string_view kIndexSuffix = ".index";
inline constexpr std::string_view kTimeIndexSuffix = ".timeindex";
// The log cleaner's swap (storage/cleaner/log_cleaner.h): <base>.range.cleaned / .range.swap holds
// the offset after the segments a cleaned segment replaces, which its own batches may not reach
// (records at the end may be gone). Only ever present with a .cleaned or .swap suffix, or
// briefly under this name at the end of a swap.
inline constexpr std::string_view kRangeSuffix = ".range";

std::string segment_file_name(int64_t base_offset, std::string_view suffix);

// The base offset of `file_name` if it is exactly 20 digits followed by `suffix`.
std::optional<int64_t> parse_segment_file_name(std::string_view file_name, std::string_view suffix);

}  // namespace skiff::storage
