// Documentation generated from the settings table: the README reference and `--help` text.
#include <algorithm>

#include "config/broker_config.h"
#include "config/settings.h"

namespace skiff::config {
namespace {

std::string spellings_note(const SettingDescriptor& setting) {
    std::string note;
    for (const auto& spelling : setting.other_spellings) {
        note += note.empty() ? " (also " : ", ";
        note += spelling.key;
    }
    return note.empty() ? note : note + ")";
}

// Table cells cannot contain a bare '|'.
std::string markdown_cell(std::string_view text) {
    std::string out;
    for (char c : text) {
        if (c == '|') {
            out += '\\';
        }
        out += c;
    }
    return out;
}

}  // namespace

std::string config_reference_markdown() {
    std::string out =
        "Settings are read from the file given with `--config`, then `SKIFF_<KEY>` environment "
        "variables (`SKIFF_LOG_DIRS` sets `log.dirs`), then `--override key=value`; later "
        "sources win.\n\n"
        "| key | default | meaning |\n"
        "|---|---|---|\n";
    for (const auto& setting : settings()) {
        // Appended piecewise: g++ 12 reports a false -Wrestrict on `"`" + std::string(...)`.
        std::string key = "`";
        key += setting.key;
        key += '`';
        for (const auto& spelling : setting.other_spellings) {
            key += "<br>`" + std::string(spelling.key) + "`";
        }
        std::string meaning(setting.doc);
        if (const std::string allowed = describe_allowed(setting); !allowed.empty()) {
            meaning += " Allowed: " + allowed + ".";
        }
        out += "| " + key + " | `" + markdown_cell(setting.shown_default()) + "` | " +
               markdown_cell(meaning) + " |\n";
    }
    return out;
}

std::string config_keys_help() {
    size_t width = 0;
    for (const auto& setting : settings()) {
        width = std::max(width, setting.key.size());
    }
    std::string out =
        "Configuration keys (set in --config FILE, as SKIFF_<KEY> in the environment, or with "
        "--override key=value):\n";
    for (const auto& setting : settings()) {
        out += "  " + std::string(setting.key);
        out += std::string(width + 2 - setting.key.size(), ' ');
        out += "default " + std::string(setting.shown_default()) + spellings_note(setting) + "\n";
    }
    return out;
}

}  // namespace skiff::config
