// The JSON schema type ("JSON" in the registry's API) behind SchemaFormat: json_schema_format()
// parses with json_schema_document/builder, makes the canonical text with json_schema_canonical,
// and checks compatibility with json_schema_diff. This header shows the parsed schema itself,
// for the tests and for anything that wants every difference, not only the incompatible ones.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "broker/schema_registry/formats/json_schema_difference.h"
#include "broker/schema_registry/formats/json_schema_model.h"
#include "broker/schema_registry/formats/schema_format.h"

namespace skiff::schema_registry::json_schema {

// Immutable once made, so one schema may be checked from several threads at once.
class JsonParsedSchema final : public ParsedSchema {
  public:
    JsonParsedSchema(std::string canonical, std::unique_ptr<const SchemaGraph> graph)
        : canonical_(std::move(canonical)), graph_(std::move(graph)) {}

    const std::string& canonical() const override { return canonical_; }
    const SchemaNode* root() const { return graph_->root(); }

  private:
    std::string canonical_;
    std::unique_ptr<const SchemaGraph> graph_;  // the schema and what it references
};

// Every difference between two JSON schemas, compatible ones included, for a reader using
// `updated` and data written with `previous` (check() keeps the incompatible ones).
std::vector<Difference> all_differences(const JsonParsedSchema& updated,
                                        const JsonParsedSchema& previous);

}  // namespace skiff::schema_registry::json_schema
