// Where a "$ref" points, among the documents of one parse (the schema and its references).
//
// A $ref resolves, against the base URI in effect where it is written, to a document and a place
// in it. The documents are found by URI: the schema's own (its "$id", or none: the empty URI
// that "#/definitions/X" resolves to), each reference's (the name the registry gives it,
// resolved against the schema's "$id", as Confluent registers them; and its own "$id" if it has
// one), and every embedded "$id". The place is the fragment: a JSON Pointer, or a name declared
// by "$anchor" (2019-09+) or by an "$id" that is only a fragment (drafts 6/7, "id" in draft 4).
// As in Confluent, "#/$defs/X" also finds a top-level "definitions/X". Nothing is fetched: a
// $ref to a document that is not one of these does not resolve.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "broker/schema_registry/formats/json_schema_document.h"

namespace skiff::schema_registry::json_schema {

// A place in one of the documents: its index and a JSON Pointer from its root ("" for the root,
// "/definitions/a").
struct Location {
    std::size_t document = 0;
    std::string pointer;
    // clang-tidy 14 takes the `<=> 0` a defaulted operator<=> is rewritten to for a null pointer.
    auto operator<=>(const Location&) const = default;  // NOLINT(modernize-use-nullptr)
};

class ReferenceResolver {
  public:
    explicit ReferenceResolver(const std::vector<SchemaDocument>& documents);

    // The schema `ref` points to, written where `base` is the base URI; why it points to none
    // otherwise.
    std::variant<Location, std::string> resolve(std::string_view ref, std::string_view base) const;
    // The base URI in effect at a location (the document's, changed by the "$id"s on the way).
    std::string base_at(const Location& location) const;
    // The JSON value at a location (a schema, once resolve() returned it).
    const nlohmann::ordered_json& value_at(const Location& location) const;

  private:
    void index_document(std::size_t document);
    void index_schema(const nlohmann::ordered_json& schema, const Location& at,
                      const std::string& base, int depth);

    const std::vector<SchemaDocument>& documents_;
    std::map<std::string, Location> resources_;  // URI without fragment: where its root is
    std::map<std::string, Location> anchors_;    // URI "#" name: where the name is declared
};

}  // namespace skiff::schema_registry::json_schema
