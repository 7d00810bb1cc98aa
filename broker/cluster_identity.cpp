#include "broker/cluster_identity.h"

#include <spdlog/spdlog.h>

#include <array>
#include <charconv>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "storage/durable_file.h"

namespace skiff::broker {
namespace {

// Kafka's Uuid.randomUuid().toString(): 16 random bytes as unpadded base64url.
std::string random_cluster_id() {
    static constexpr char kAlphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    std::random_device rd;
    std::array<uint8_t, 16> b{};
    for (auto& x : b)
        x = static_cast<uint8_t>(rd());
    b[6] = static_cast<uint8_t>((b[6] & 0x0f) | 0x40);  // version 4
    b[8] = static_cast<uint8_t>((b[8] & 0x3f) | 0x80);  // IETF variant
    std::string out;
    uint32_t acc = 0;
    int bits = 0;
    for (uint8_t x : b) {
        acc = (acc << 8) | x;
        bits += 8;
        while (bits >= 6) {
            bits -= 6;
            out += kAlphabet[(acc >> bits) & 0x3f];
        }
    }
    if (bits > 0)
        out += kAlphabet[(acc << (6 - bits)) & 0x3f];
    return out;  // 22 characters
}

}  // namespace

std::string load_or_create_cluster_id(const std::filesystem::path& log_dir, int32_t node_id) {
    const auto path = log_dir / "meta.properties";
    std::ifstream in(path, std::ios::binary);
    if (in) {
        const std::string text((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
        // Only blanks and NULs: what a power cut left of a file written by skiff before its
        // writes were fsynced (renamed into place, the data never on disk). No identity was
        // ever durable, so a new one is as good as the lost one; anything else is refused.
        if (text.find_first_not_of(std::string_view(" \t\r\n\0", 5)) == std::string::npos) {
            spdlog::warn(
                "{} is empty ({} bytes, left by a power cut before it reached the "
                "disk): writing a new cluster id",
                path.string(), text.size());
        } else {
            std::istringstream lines(text);
            std::string line, cluster_id;
            int64_t stored_node = -1;
            while (std::getline(lines, line)) {
                if (line.empty() || line[0] == '#')
                    continue;
                auto eq = line.find('=');
                if (eq == std::string::npos)
                    continue;
                auto key = line.substr(0, eq), value = line.substr(eq + 1);
                value.erase(value.find_last_not_of(" \t\r") + 1);
                if (key == "cluster.id")
                    cluster_id = value;
                if (key == "node.id" || key == "broker.id") {
                    auto [end, ec] =
                        std::from_chars(value.data(), value.data() + value.size(), stored_node);
                    if (ec != std::errc() || end != value.data() + value.size() || stored_node < 0)
                        throw std::runtime_error(
                            fmt::format("{} has an invalid {} '{}'; fix or remove it",
                                        path.string(), key, value));
                }
            }
            if (cluster_id.empty())
                throw std::runtime_error(path.string() +
                                         " has no cluster.id; remove it to start a new cluster");
            if (stored_node >= 0 && stored_node != node_id)
                throw std::runtime_error(
                    path.string() + " belongs to node.id " + std::to_string(stored_node) +
                    " but this broker is configured with node.id " + std::to_string(node_id));
            return cluster_id;
        }
    }
    std::string cluster_id = random_cluster_id();
    const std::string text = "#\n#Written by skiff\nversion=1\ncluster.id=" + cluster_id +
                             "\nnode.id=" + std::to_string(node_id) + "\n";
    if (auto written = storage::write_file_atomically(path, text); !written)
        throw std::runtime_error("cannot write " + path.string() + ": " + written.error().message);
    return cluster_id;
}

}  // namespace skiff::broker
