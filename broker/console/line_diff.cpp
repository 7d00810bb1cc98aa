#include "broker/console/line_diff.h"

#include <algorithm>
#include <cstdint>

namespace skiff::broker::console {

std::vector<std::string> split_lines(std::string_view text) {
    std::vector<std::string> lines;
    size_t at = 0;
    while (at <= text.size()) {
        const size_t end = std::min(text.find('\n', at), text.size());
        std::string_view line = text.substr(at, end - at);
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        lines.emplace_back(line);
        at = end + 1;
    }
    if (!lines.empty() && lines.back().empty() && !text.empty() && text.back() == '\n')
        lines.pop_back();  // the newline ending the last line starts no line of its own
    return lines;
}

std::vector<DiffLine> line_diff(const std::vector<std::string>& before,
                                const std::vector<std::string>& after) {
    const size_t n = before.size();
    const size_t m = after.size();
    // lcs[i][j]: the longest common subsequence of before[i..] and after[j..].
    std::vector<uint32_t> lcs((n + 1) * (m + 1), 0);
    auto at = [m](size_t i, size_t j) { return i * (m + 1) + j; };
    for (size_t i = n; i-- > 0;) {
        for (size_t j = m; j-- > 0;) {
            lcs[at(i, j)] = before[i] == after[j] ? lcs[at(i + 1, j + 1)] + 1
                                                  : std::max(lcs[at(i + 1, j)], lcs[at(i, j + 1)]);
        }
    }
    std::vector<DiffLine> out;
    size_t i = 0;
    size_t j = 0;
    while (i < n || j < m) {
        if (i < n && j < m && before[i] == after[j]) {
            out.push_back({' ', before[i]});
            ++i, ++j;
        } else if (i < n && (j == m || lcs[at(i + 1, j)] >= lcs[at(i, j + 1)])) {
            out.push_back({'-', before[i]});
            ++i;
        } else {
            out.push_back({'+', after[j]});
            ++j;
        }
    }
    return out;
}

}  // namespace skiff::broker::console
