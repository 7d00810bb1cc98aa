#include "broker/cluster_identity.h"

#include <array>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

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
    std::ifstream in(path);
    if (in) {
        std::string line, cluster_id;
        int64_t stored_node = -1;
        while (std::getline(in, line)) {
            if (line.empty() || line[0] == '#')
                continue;
            auto eq = line.find('=');
            if (eq == std::string::npos)
                continue;
            auto key = line.substr(0, eq), value = line.substr(eq + 1);
            if (key == "cluster.id")
                cluster_id = value;
            if (key == "node.id" || key == "broker.id")
                stored_node = std::stoll(value);
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
    std::string cluster_id = random_cluster_id();
    const auto tmp = log_dir / "meta.properties.tmp";
    {
        std::ofstream out(tmp, std::ios::trunc);
        out << "#\n#Written by skiff\nversion=1\ncluster.id=" << cluster_id
            << "\nnode.id=" << node_id << "\n";
        if (!out.flush())
            throw std::runtime_error("cannot write " + tmp.string());
    }
    std::filesystem::rename(tmp, path);
    return cluster_id;
}

}  // namespace skiff::broker
