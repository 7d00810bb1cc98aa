// The parsed form of an Avro schema that the AVRO schema type works on: every attribute of the
// schema's JSON text, with each use of a named type pointing at the node that defines it.
//
// Why not libavro's avro_schema_t: it keeps only what libavro's encoder needs and drops field
// defaults, field and type aliases, docs, field orders, enum defaults and every custom property
// (logicalType included). The registry needs all of them: the compatibility check needs
// defaults, aliases and enum defaults; the canonical text Confluent stores keeps everything.
//
// Ownership: a SchemaTree owns all its nodes (the referenced schemas' too). Nodes point at each
// other freely (recursive types make cycles), so nothing outside the tree owns a node and no
// node outlives its tree.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skiff::schema_registry::avro {

// Insertion-ordered, as Avro Java keeps properties: the canonical text writes them in the order
// the schema's author wrote them.
using Json = nlohmann::ordered_json;

enum class Type {
    null_,
    boolean,
    int_,
    long_,
    float_,
    double_,
    bytes,
    string,
    record,
    enum_,
    array,
    map,
    union_,
    fixed,
};

// "int", "record", ...: the name a schema's text uses.
std::string_view type_name(Type type);
// "INT", "RECORD", ...: how Avro Java prints a Schema.Type, which Confluent's compatibility
// messages show ("reader type: INT not compatible with writer type: STRING").
std::string java_type_name(Type type);
// The primitive type a bare name denotes ("int" -> Type::int_), nullopt for any other name.
std::optional<Type> primitive_type(std::string_view name);
// Whether `name` is one of Avro Java's Schema.Type names (primitives and "record", "enum",
// "array", "map", "union", "fixed"): such a name must be written qualified.
bool is_type_name(std::string_view name);
inline bool is_named(Type type) {
    return type == Type::record || type == Type::enum_ || type == Type::fixed;
}

enum class FieldOrder { ascending, descending, ignore };

struct Node;

struct Field {
    std::string name;
    Node* type = nullptr;
    std::optional<std::string> doc;
    std::optional<Json> default_value;
    FieldOrder order = FieldOrder::ascending;
    std::vector<std::string> aliases;  // as written, without repeats (Avro Java keeps a set)
    Json properties = Json::object();  // the attributes the Avro spec does not reserve
};

struct Node {
    Type type = Type::null_;

    // Named types (record, enum, fixed). `space` is the namespace; empty is the null namespace.
    std::string name;
    std::string space;
    std::optional<std::string> doc;
    std::vector<std::string> aliases;  // full names: an unqualified alias takes `space`
    bool from_reference = false;       // defined by a referenced schema, not by this one

    std::vector<Field> fields;                // record
    std::vector<std::string> symbols;         // enum
    std::optional<std::string> enum_default;  // enum
    int64_t size = 0;                         // fixed
    Node* items = nullptr;                    // array items, map values
    std::vector<Node*> branches;              // union

    // Attributes the Avro spec does not reserve, in the order written; "logicalType" and its
    // "precision"/"scale" are among them, as in Avro Java.
    Json properties = Json::object();

    std::string full_name() const { return space.empty() ? name : space + "." + name; }
};

struct SchemaTree {
    Node* root = nullptr;
    // Each referenced schema's top-level node, in the order the registry passed them. The
    // canonical text writes the named ones by name, never inline (Confluent's canonicalString).
    std::vector<Node*> reference_roots;
    std::vector<std::unique_ptr<Node>> nodes;

    Node* add(Type type) {
        nodes.push_back(std::make_unique<Node>());
        nodes.back()->type = type;
        return nodes.back().get();
    }
};

}  // namespace skiff::schema_registry::avro
