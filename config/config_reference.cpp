// The configuration reference and the `--help` key list, both rendered from the settings table.
#include "config/config_reference.h"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "config/settings.h"

namespace skiff::config {
namespace {

constexpr std::string_view kHeading = R"(# Configuration

<!-- Generated from the settings table (config/settings_table.cpp): edit the table, then run
     ./build/broker/skiff --print-config-reference > docs/configuration.md
     tests/config fails when this page and the table differ. -->

skiff takes Kafka's broker settings under Kafka's names. Every setting it has is below, with
its other spellings, its default, what it does and the values it accepts; a key not listed here
is ignored with a warning.

## Where settings come from

Settings use Kafka's names. Precedence, lowest first: built-in defaults, the properties file
given with `--config` (see the commented [config/server.properties](../config/server.properties)),
environment variables `SKIFF_<KEY>` (dots become underscores, upper case: `SKIFF_LOG_DIRS`
sets `log.dirs`), then `--override`. An unknown key is a warning; an invalid value stops start-up
with a message naming the key, the value, where it came from and what is allowed. The start-up
log says where skiff listens, where the data is and which settings differ from the defaults.
[Dynamic broker configs](#dynamic-broker-configs), set over the wire, win over all of these.

- The same key twice in one source: the later line (or the later `--override`) counts.
- Other spellings (`broker.id` for `node.id`, `log.retention.hours` for `log.retention.ms`): a
  later source wins whatever the spelling; within one source the key of the first column wins
  over its other spellings, which rank in the order listed, and the one ignored is logged as a
  warning. A spelling in another unit is converted (`log.retention.hours=1` is
  `log.retention.ms=3600000`), its range checked in its own unit.
- Every environment variable that starts with `SKIFF_` is taken as a setting: the prefix
  dropped, `_` turned into `.`, upper case into lower case. No key contains `_` for that reason.
- Values: surrounding whitespace is ignored; integers are decimal, with an optional sign and no
  unit suffix; `true` and `false` in any case; numbers with a fraction as Java writes them
  (`0.5`, `1.0E7`).
- `listener.name.<listener>.sasl.enabled.mechanisms` (the listener's name in lower case) sets
  `sasl.enabled.mechanisms` for that listener only ([security.md](security.md)).

## Settings

| key | default | meaning |
|---|---|---|
)";

constexpr std::string_view kDynamicBrokerConfigs = R"(
## Dynamic broker configs

As in Kafka (KIP-226), broker settings can also be set with AlterConfigs or
IncrementalAlterConfigs (`kafka-configs.sh --entity-type brokers`, confluent-kafka's
`alter_configs`, librdkafka's `rd_kafka_AlterConfigs`) on the BROKER resource: `1` (this broker's
`node.id`) or the empty name (the cluster-wide default). They are kept in
`<log.dirs>/broker-configs/` and win over the file, the environment and `--override`: this
broker's value, then the cluster default's, then the static one. DescribeConfigs reports each
setting's value and source (`DYNAMIC_BROKER_CONFIG`, `DYNAMIC_DEFAULT_BROKER_CONFIG`,
`STATIC_BROKER_CONFIG`, `DEFAULT_CONFIG`), with the lower layers as synonyms.

- Which settings: those Kafka can change on a running broker and skiff has: the `log.*` defaults
  of topic configs and `compression.type`, `message.max.bytes`, the `log.cleaner.*` thread and
  buffer settings, `num.recovery.threads.per.data.dir`, `num.network.threads`, `max.connections`.
  Any other setting of the table above is refused with INVALID_CONFIG ("Cannot update these
  configs dynamically"), as Kafka refuses it; so are Kafka's dynamic listener settings
  (`listeners`, `advertised.listeners`, `listener.security.protocol.map`), which skiff only takes
  from its static configuration. A key skiff has no setting for (one of a feature skiff lacks,
  such as `sasl.kerberos.*`, or a custom key) is accepted and kept, as Kafka keeps it.
- **They take effect when skiff next starts**, not at once as in Kafka; the start-up log lists
  them (`dynamic broker config log.retention.ms=3600000 (this broker)`).
- IncrementalAlterConfigs offers SET and DELETE on broker resources (not APPEND/SUBTRACT).
)";

std::string spellings_note(const SettingDescriptor& setting) {
    std::string note;
    for (const auto& spelling : setting.other_spellings) {
        note += note.empty() ? " (also " : ", ";
        note += spelling.key;
    }
    return note.empty() ? note : note + ")";
}

// The unit of a spelling that is not the canonical one's, as its name says it.
std::string unit_note(const Spelling& spelling) {
    if (spelling.scale == 1)
        return "";
    if (spelling.scale == int64_t{60} * 1000)
        return " (minutes)";
    if (spelling.scale == int64_t{60} * 60 * 1000)
        return " (hours)";
    return " (x" + std::to_string(spelling.scale) + ")";
}

bool is_path_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '.' || c == '_' ||
           c == '-';
}

// Strings here are appended piecewise: g++ 12 reports a false -Wrestrict on `"`" + std::string`.

// Text of a table cell: '|' would end the cell, "<name>" would be taken for an HTML tag and
// "__name" for emphasis. Paths of the repository's documents become links from docs/.
std::string markdown_cell(std::string_view text) {
    std::string out;
    for (size_t i = 0; i < text.size();) {
        const bool word_start = i == 0 || !is_path_char(text[i - 1]);
        if (word_start &&
            (text.substr(i).starts_with("docs/") || text.substr(i).starts_with("tests/") ||
             text.substr(i).starts_with("config/"))) {
            size_t end = i;
            while (end < text.size() && is_path_char(text[end]))
                ++end;
            while (end > i && text[end - 1] == '.')  // the sentence's full stop
                --end;
            const std::string_view path = text.substr(i, end - i);
            if (path.ends_with(".md") || path.ends_with(".properties")) {
                const std::string target = path.starts_with("docs/") ? std::string(path.substr(5))
                                                                     : "../" + std::string(path);
                out.append("[").append(path).append("](").append(target).append(")");
                i = end;
                continue;
            }
        }
        if (word_start && text[i] == '_') {  // "__consumer_offsets": each leading '_'
            for (; i < text.size() && text[i] == '_'; ++i)
                out += "\\_";
            continue;
        }
        const char c = text[i++];
        if (c == '|')
            out += "\\|";
        else if (c == '<')
            out += "&lt;";
        else
            out += c;
    }
    return out;
}

std::string key_cell(const SettingDescriptor& setting) {
    std::string key = "`";
    key += setting.key;
    key += '`';
    for (const auto& spelling : setting.other_spellings) {
        key += "<br>`";
        key += spelling.key;
        key += '`';
        key += unit_note(spelling);
    }
    return key;
}

// The default as written, in code type; a description (the derived advertised.listeners, "unset
// (never)") as text; "1073741824 (1 GiB)" as the value in code type and its reading.
std::string default_cell(const SettingDescriptor& setting) {
    const std::string_view value = setting.default_value;
    const std::string_view shown = setting.shown_default();
    if (value.empty() || !shown.starts_with(value))
        return markdown_cell(shown);
    std::string cell = "`";
    cell += value;
    cell += '`';
    cell += markdown_cell(shown.substr(value.size()));
    return cell;
}

std::string meaning_cell(const SettingDescriptor& setting) {
    std::string meaning(setting.doc);
    if (const std::string allowed = describe_allowed(setting); !allowed.empty())
        meaning += " Allowed: " + allowed + ".";
    if (setting.sensitive)
        meaning +=
            " A secret: never logged, and DescribeConfigs answers it as sensitive, without "
            "a value.";
    return markdown_cell(meaning);
}

}  // namespace

std::string config_reference_markdown() {
    std::string out(kHeading);
    for (const auto& setting : settings())
        out += "| " + key_cell(setting) + " | " + default_cell(setting) + " | " +
               meaning_cell(setting) + " |\n";
    out += kDynamicBrokerConfigs;
    return out;
}

std::string config_keys_help() {
    size_t width = 0;
    for (const auto& setting : settings()) {
        width = std::max(width, setting.key.size());
    }
    std::string out =
        "Configuration keys (set in --config FILE, as SKIFF_<KEY> in the environment, or with "
        "--override key=value; skiff --print-config-reference prints what each means):\n";
    for (const auto& setting : settings()) {
        out += "  " + std::string(setting.key);
        out += std::string(width + 2 - setting.key.size(), ' ');
        out += "default " + std::string(setting.shown_default()) + spellings_note(setting) + "\n";
    }
    return out;
}

}  // namespace skiff::config
