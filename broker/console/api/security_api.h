// What the console API's security routes share (cluster_routes.cpp lists ACLs,
// security_write_routes.cpp adds and removes them): one ACL binding as the API shows it, so a
// binding the API answers after adding it reads exactly as GET /api/acls lists it.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace skiff::broker::console {

// {"resource_type", "resource_name", "pattern_type", "principal", "host", "operation",
// "permission"}, the codes by Kafka's names (TOPIC, LITERAL, READ, ALLOW...).
nlohmann::json acl_json(int8_t type, const std::string& name, int8_t pattern,
                        const std::string& principal, const std::string& host, int8_t operation,
                        int8_t permission);

}  // namespace skiff::broker::console
