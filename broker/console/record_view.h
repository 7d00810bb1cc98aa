// A record's key, value or header value as the console's API shows it (docs/console-api.md,
// "Records"): hostile bytes turned into data a page can only display. `hex` always; `text` only
// when the bytes are valid UTF-8 (so a browser never guesses at binary); `json` when that text
// parses; `truncated` when the shown bytes were cut; `schema` when a SchemaDecoder recognises
// Confluent's wire format. Nothing here interprets the bytes beyond that.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

#include <nlohmann/json.hpp>

namespace skiff::broker::console {

class SchemaDecoder;

// Bytes of one value shown, at most: past this the value is cut and marked truncated.
inline constexpr size_t kMaxShownValueBytes = size_t{64} << 10;

// Whether `bytes` is well-formed UTF-8 (no overlong forms, surrogates or code points past
// U+10FFFF), as a browser's decoder would accept it without replacement characters.
bool is_valid_utf8(std::string_view bytes);

// The API's value object for `bytes`, or JSON null for a null key or value. `decoder` may be
// null (no schema registry, or schema decoding not wanted).
nlohmann::json value_view(const std::optional<std::span<const std::byte>>& bytes,
                          SchemaDecoder* decoder, size_t max_shown = kMaxShownValueBytes);

// Lower-case hex of `bytes`.
std::string to_hex(std::span<const std::byte> bytes);

}  // namespace skiff::broker::console
