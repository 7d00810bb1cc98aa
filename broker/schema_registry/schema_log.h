// Where the schema registry's state lives: the compacted topic `_schemas` (one partition), in
// Confluent's key and value formats (JSON), so that the state is a Kafka log like any other and
// any consumer can read it. The registry writes every change through this interface and
// rebuilds itself at start by replaying the records in log order (Registry::replay).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace skiff::schema_registry {

class SchemaLog {
  public:
    virtual ~SchemaLog() = default;
    // Appends one record (a null value is a tombstone) and returns once it is durable, so that
    // an acknowledged change survives a crash. On failure, why (the registry answers 5000x and
    // changes nothing in memory).
    virtual std::optional<std::string> append(std::string_view key,
                                              std::optional<std::string_view> value) = 0;
};

}  // namespace skiff::schema_registry
