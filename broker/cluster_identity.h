// The cluster id, generated once and kept in `<log dir>/meta.properties` as Kafka does, so every
// restart (and every client's cached metadata) sees the same cluster.
//
// meta.properties (Java properties):
//   version=1
//   cluster.id=<22-character base64url UUID>
//   node.id=<node.id>
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace skiff::broker {

// Reads meta.properties or creates it (written durably: write_file_atomically). A file holding
// only blanks or NULs, which is what a power cut left of one written before that, gets a new
// cluster id with a warning. Throws std::runtime_error naming the file when it has no cluster.id,
// an invalid node.id or another node's id (a start-up failure, reported to the operator).
std::string load_or_create_cluster_id(const std::filesystem::path& log_dir, int32_t node_id);

}  // namespace skiff::broker
