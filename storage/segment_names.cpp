#include "storage/segment_names.h"

#include <cstdio>

namespace skiff::storage {

std::string segment_file_name(int64_t base_offset, std::string_view suffix) {
    char digits[32];
    std::snprintf(digits, sizeof digits, "%020lld", static_cast<long long>(base_offset));
    return std::string(digits) + std::string(suffix);
}

std::optional<int64_t> parse_segment_file_name(std::string_view file_name,
                                               std::string_view suffix) {
    if (file_name.size() != 20 + suffix.size() || !file_name.ends_with(suffix))
        return std::nullopt;
    int64_t v = 0;
    for (size_t i = 0; i < 20; ++i) {
        char c = file_name[i];
        if (c < '0' || c > '9')
            return std::nullopt;
        if (v > (INT64_MAX - (c - '0')) / 10)
            return std::nullopt;
        v = v * 10 + (c - '0');
    }
    return v;
}

}  // namespace skiff::storage
