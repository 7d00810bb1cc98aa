// The console's pages, scripts and styles (broker/console/assets/), compiled into the binary by
// cmake/embed_assets.cmake, so the console needs no file, CDN or network at run time.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace skiff::broker::console {

struct Asset {
    std::string_view path;  // "/index.html", "/console.js"
    std::string_view content_type;
    std::string_view bytes;
};

// Every embedded file.
std::span<const Asset> all_assets();

// The file a GET of `path` serves: "/" is /index.html; nullopt for anything else.
std::optional<Asset> find_asset(std::string_view path);

}  // namespace skiff::broker::console
