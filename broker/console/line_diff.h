// A line diff of two texts for the schema registry's version diff: the longest common
// subsequence of their lines (a table of lines x lines, fine for schemas, which the caller
// bounds), printed as unchanged (" "), removed ("-") and added ("+") lines in order.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace skiff::broker::console {

struct DiffLine {
    char op = ' ';  // ' ', '-' or '+'
    std::string text;
};

std::vector<std::string> split_lines(std::string_view text);

// From `before` to `after`: removals listed before the additions that replace them.
std::vector<DiffLine> line_diff(const std::vector<std::string>& before,
                                const std::vector<std::string>& after);

}  // namespace skiff::broker::console
