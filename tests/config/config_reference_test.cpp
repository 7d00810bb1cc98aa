#include "config/config_reference.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "config/settings.h"

namespace skiff::config {
namespace {

TEST(SettingsReference, MarkdownHasARowPerSetting) {
    const std::string markdown = config_reference_markdown();
    EXPECT_NE(markdown.find("| key | default | meaning |"), std::string::npos);
    for (const auto& setting : settings()) {
        EXPECT_NE(markdown.find("| `" + std::string(setting.key) + "`"), std::string::npos)
            << setting.key;
    }
    EXPECT_NE(markdown.find("`broker.id`"), std::string::npos);
    EXPECT_NE(markdown.find("Allowed: an integer between 14 and 2147483647."), std::string::npos);
    EXPECT_NE(markdown.find("Allowed: -1 (unlimited) or an integer >= 0."), std::string::npos);
    EXPECT_NE(markdown.find("Allowed: true or false."), std::string::npos);
}

TEST(SettingsReference, HelpListsEveryKey) {
    const std::string help = config_keys_help();
    for (const auto& setting : settings()) {
        EXPECT_NE(help.find("  " + std::string(setting.key) + " "), std::string::npos)
            << setting.key;
    }
}

// The checked-in page is what the table renders, so the documentation cannot drift from the code.
TEST(SettingsReference, CheckedInPageIsUpToDate) {
    std::ifstream in(SKIFF_CONFIG_REFERENCE_PAGE, std::ios::binary);
    ASSERT_TRUE(in) << "cannot read " << SKIFF_CONFIG_REFERENCE_PAGE;
    const std::string checked_in{std::istreambuf_iterator<char>(in), {}};
    const std::string rendered = config_reference_markdown();
    if (checked_in == rendered)
        return;
    // The first line that differs, so the message says where without printing both pages.
    std::istringstream a(checked_in), b(rendered);
    std::string line_a, line_b;
    int line = 0;
    while (true) {
        ++line;
        const bool more_a = static_cast<bool>(std::getline(a, line_a));
        const bool more_b = static_cast<bool>(std::getline(b, line_b));
        if (!more_a || !more_b || line_a != line_b) {
            if (!more_a)
                line_a = "(end of file)";
            if (!more_b)
                line_b = "(end of page)";
            break;
        }
    }
    ADD_FAILURE() << "docs/configuration.md is out of date: run "
                     "`./build/broker/skiff --print-config-reference > docs/configuration.md`\n"
                  << "first difference at line " << line << ":\n  checked in: " << line_a
                  << "\n  table says: " << line_b;
}

}  // namespace
}  // namespace skiff::config
