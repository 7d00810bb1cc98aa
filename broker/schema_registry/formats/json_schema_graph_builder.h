// The builder behind build_schema_graph() (json_schema_builder.h), shared by its two files:
// json_schema_builder.cpp splits a schema object into parts and resolves the $refs,
// json_schema_keyword_groups.cpp reads each keyword group (string, number, object, array) into
// its part.
#pragma once

#include <algorithm>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "broker/schema_registry/formats/json_schema_document.h"
#include "broker/schema_registry/formats/json_schema_model.h"
#include "broker/schema_registry/formats/json_schema_resolver.h"
#include "broker/schema_registry/formats/json_schema_uri.h"

namespace skiff::schema_registry::json_schema {

// One schema object being split into its parts; `consumed` holds the keywords a part has taken,
// which the keyword groups after it do not see (Everit's order: enum, allOf/anyOf/oneOf, not,
// const, type, then the array, object, number and string keywords left over).
struct ObjectBeingBuilt {
    const nlohmann::ordered_json& json;
    Location at;
    std::string base;  // after the object's own "$id"
    Draft draft;
    std::set<std::string, std::less<>> consumed;
};

// Builds one graph; used once.
class GraphBuilder {
  public:
    GraphBuilder(const std::vector<SchemaDocument>& documents, SchemaGraph& graph)
        : documents_(documents), resolver_(documents), graph_(graph) {}

    // Builds the graph from documents[0]'s root and resolves every $ref; why not otherwise.
    std::string run();

  private:
    struct PendingRef {
        SchemaNode* node;
        std::string ref;
        std::string base;
        Location at;
    };

    void fail(const Location& at, const std::string& why) {
        if (!error_.empty())
            return;
        const SchemaDocument& doc = documents_[at.document];
        error_ = "#" + at.pointer +
                 (doc.name.empty() ? "" : " in the reference '" + doc.name + "'") + ": " + why;
    }

    // The node of a place, built on first use; `json` is the value there when the caller has it
    // at hand (walking down a document), else it is looked up (a $ref's target).
    const SchemaNode* node_at(const Location& at, const std::string& base,
                              const nlohmann::ordered_json* json = nullptr) {
        if (auto it = built_.find(at); it != built_.end())
            return it->second;
        const SchemaNode* node = build(json != nullptr ? *json : resolver_.value_at(at), at, base);
        built_.emplace(at, node);
        return node;
    }

    const SchemaNode* child(const ObjectBeingBuilt& object, const std::string& relative,
                            const nlohmann::ordered_json& json) {
        return node_at(Location{object.at.document, object.at.pointer + relative}, object.base,
                       &json);
    }

    std::string keyword_path(std::string_view keyword, std::string_view key = {}) {
        std::string path = "/" + escape_pointer_token(keyword);
        if (!key.empty())
            path += "/" + escape_pointer_token(key);
        return path;
    }

    SchemaNode& part(const ObjectBeingBuilt& object, SchemaKind kind, std::string_view tag) {
        SchemaNode& node = graph_.add(kind);
        node.source = &object.json;
        node.part = tag;
        return node;
    }

    bool has_unconsumed(const ObjectBeingBuilt& object, std::span<const std::string_view> keys) {
        return std::any_of(keys.begin(), keys.end(), [&](std::string_view key) {
            return object.json.contains(key) && !object.consumed.contains(key);
        });
    }

    void consume(ObjectBeingBuilt& object, std::span<const std::string_view> keys) {
        for (std::string_view key : keys)
            object.consumed.emplace(key);
    }

    const SchemaNode* build(const nlohmann::ordered_json& json, const Location& at,
                            const std::string& base);
    SchemaNode& string_part(ObjectBeingBuilt& object);
    SchemaNode& number_part(ObjectBeingBuilt& object, bool integer);
    SchemaNode& object_part(ObjectBeingBuilt& object);
    SchemaNode& array_part(ObjectBeingBuilt& object);
    SchemaNode& typed_part(ObjectBeingBuilt& object, const std::string& type);
    void check_reference_loops();

    const std::vector<SchemaDocument>& documents_;
    ReferenceResolver resolver_;
    SchemaGraph& graph_;
    std::map<Location, const SchemaNode*> built_;
    std::vector<PendingRef> pending_;
    std::vector<const SchemaNode*> references_;
    std::string error_;
};

}  // namespace skiff::schema_registry::json_schema
