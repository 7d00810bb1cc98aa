#include "broker/console/console_assets.h"

#include <array>

namespace skiff::broker::console {
namespace {

// kAssets: generated at build time from broker/console/assets/ (cmake/embed_assets.cmake).
#include "console_assets_data.inc"

}  // namespace

std::span<const Asset> all_assets() {
    return kAssets;
}

std::optional<Asset> find_asset(std::string_view path) {
    if (path == "/")
        path = "/index.html";
    for (const auto& asset : kAssets) {
        if (asset.path == path)
            return asset;
    }
    return std::nullopt;
}

}  // namespace skiff::broker::console
