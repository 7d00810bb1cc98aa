#include "broker/console/record_view.h"

#include <cstdint>
#include <string>

#include "broker/console/schema_decoder.h"

namespace skiff::broker::console {
namespace record_view_impl {

// The length of the UTF-8 sequence starting at bytes[i], or 0 when it is not a valid one.
size_t utf8_sequence(std::string_view bytes, size_t i) {
    const auto b0 = static_cast<uint8_t>(bytes[i]);
    if (b0 < 0x80)
        return 1;
    size_t n = 0;
    uint32_t min = 0;
    uint32_t cp = 0;
    if ((b0 & 0xE0) == 0xC0) {
        n = 2, min = 0x80, cp = b0 & 0x1Fu;
    } else if ((b0 & 0xF0) == 0xE0) {
        n = 3, min = 0x800, cp = b0 & 0x0Fu;
    } else if ((b0 & 0xF8) == 0xF0) {
        n = 4, min = 0x10000, cp = b0 & 0x07u;
    } else {
        return 0;
    }
    if (i + n > bytes.size())
        return 0;
    for (size_t k = 1; k < n; ++k) {
        const auto b = static_cast<uint8_t>(bytes[i + k]);
        if ((b & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (b & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

// `bytes` cut at `max` without splitting a UTF-8 sequence at the end (when it is text).
size_t text_cut(std::string_view bytes, size_t max) {
    size_t at = 0;
    while (at < bytes.size()) {
        const size_t n = utf8_sequence(bytes, at);
        if (n == 0 || at + n > max)
            break;
        at += n;
    }
    return at;
}

}  // namespace record_view_impl

bool is_valid_utf8(std::string_view bytes) {
    using namespace record_view_impl;  // this file's own helpers
    size_t i = 0;
    while (i < bytes.size()) {
        const size_t n = utf8_sequence(bytes, i);
        if (n == 0)
            return false;
        i += n;
    }
    return true;
}

std::string to_hex(std::span<const std::byte> bytes) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out;
    out.reserve(bytes.size() * 2);
    for (const std::byte b : bytes) {
        const auto v = static_cast<uint8_t>(b);
        out.push_back(kDigits[v >> 4]);
        out.push_back(kDigits[v & 0x0F]);
    }
    return out;
}

nlohmann::json value_view(const std::optional<std::span<const std::byte>>& bytes,
                          SchemaDecoder* decoder, size_t max_shown) {
    using namespace record_view_impl;  // this file's own helpers
    if (!bytes)
        return nullptr;
    const std::span<const std::byte> all = *bytes;
    const std::string_view chars(reinterpret_cast<const char*>(all.data()), all.size());
    nlohmann::json view = nlohmann::json::object();
    view["size"] = all.size();
    const bool truncated = all.size() > max_shown;
    if (!truncated) {
        view["hex"] = to_hex(all);
        if (is_valid_utf8(chars)) {
            view["text"] = std::string(chars);
            if (nlohmann::json::accept(chars))
                view["json"] = true;
        }
    } else {
        // Valid UTF-8 up to the cut is shown as text (the cut kept on a character boundary);
        // a cut value is never claimed to be JSON.
        view["hex"] = to_hex(all.first(max_shown));
        const size_t cut = text_cut(chars, max_shown);
        if (cut + 4 > max_shown || cut == chars.size())
            view["text"] = std::string(chars.substr(0, cut));
        view["truncated"] = true;
    }
    if (decoder) {
        if (auto schema = decoder->decode(all))
            view["schema"] = std::move(*schema);
    }
    return view;
}

}  // namespace skiff::broker::console
