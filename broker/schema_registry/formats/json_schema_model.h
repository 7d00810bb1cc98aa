// The JSON Schema type's model of a schema: the graph the compatibility check walks.
//
// Confluent's check does not compare JSON texts; it compares the schema objects the Everit
// loader builds from them (org.everit.json.schema: StringSchema, ObjectSchema, CombinedSchema,
// ReferenceSchema, ...), and several of its verdicts only make sense in that model. For example
// {"type": "string", "enum": ["a"]} is not one schema but an allOf of an enum schema and a string
// schema (Everit builds one schema per group of keywords and joins them), so removing its enum is
// PRODUCT_TYPE_NARROWED, not ENUM_ARRAY_*; and {"type": ["string", "null"]} is an anyOf. This
// model has the same shapes so that skiff reaches Confluent's verdicts, with Confluent's names.
//
// A SchemaNode is immutable once the builder (json_schema_builder.h) is done; nodes point to
// each other with plain pointers inside one SchemaGraph, which owns them all. A $ref is a node of
// its own (kReference) whose target may be any node of the graph, itself included through a
// cycle: recursive schemas are graphs, not trees.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace skiff::schema_registry::json_schema {

// The JSON Schema drafts the registry accepts, as "$schema" names them; draft 7 when it names
// none or one skiff does not know (as Confluent does).
enum class Draft { k4, k6, k7, k2019_09, k2020_12 };

enum class SchemaKind {
    kEmpty,        // {} or true, or an object with no keyword that constrains anything: anything
    kFalse,        // false: nothing
    kNull,         // "type": "null"
    kBoolean,      // "type": "boolean"
    kString,       // "type": "string", or string keywords without a type
    kNumber,       // "type": "number" or "integer", or numeric keywords without a type
    kObject,       // "type": "object", or object keywords without a type
    kArray,        // "type": "array", or array keywords without a type
    kEnum,         // "enum"
    kConst,        // "const" (drafts 6 and later)
    kCombined,     // allOf/anyOf/oneOf, a type array (anyOf), or several keyword groups (allOf)
    kNot,          // "not"
    kReference,    // "$ref"
    kConditional,  // if/then/else: kept so that a schema using it has the same shape as
                   // Confluent's, which compares nothing inside it
};

enum class Criterion { kAllOf, kAnyOf, kOneOf };

struct SchemaNode;

struct StringRules {
    std::optional<std::int64_t> min_length;
    std::optional<std::int64_t> max_length;
    std::optional<std::string> pattern;
};

// The exclusive limits are draft 6's numbers; draft 4's boolean exclusiveMinimum/Maximum flags
// are not kept, because Confluent's check does not look at them either.
struct NumberRules {
    std::optional<double> minimum;
    std::optional<double> maximum;
    std::optional<double> exclusive_minimum;
    std::optional<double> exclusive_maximum;
    std::optional<double> multiple_of;
    bool requires_integer = false;
};

struct ObjectRules {
    std::vector<std::pair<std::string, const SchemaNode*>> properties;  // in document order
    std::vector<std::string> required;
    // additionalProperties: absent or true (permitted, no schema), false (not permitted), or a
    // schema (permitted, must match it; {} counts as a schema here, as in Everit).
    bool permits_additional_properties = true;
    const SchemaNode* additional_properties = nullptr;
    std::vector<std::pair<std::string, const SchemaNode*>> pattern_properties;
    // "dependencies" split by kind, with 2019-09's dependentRequired and dependentSchemas.
    std::vector<std::pair<std::string, std::vector<std::string>>> property_dependencies;
    std::vector<std::pair<std::string, const SchemaNode*>> schema_dependencies;
    std::optional<std::int64_t> min_properties;
    std::optional<std::int64_t> max_properties;
};

struct ArrayRules {
    const SchemaNode* all_items = nullptr;       // "items": a schema
    std::vector<const SchemaNode*> tuple_items;  // "items": an array (2020-12: prefixItems)
    // additionalItems (2020-12: "items" beside prefixItems), as additionalProperties above.
    bool permits_additional_items = true;
    const SchemaNode* additional_items = nullptr;
    std::optional<std::int64_t> min_items;
    std::optional<std::int64_t> max_items;
    bool unique_items = false;
};

struct EnumRules {
    std::vector<nlohmann::ordered_json> values;
};

struct ConstRules {
    nlohmann::ordered_json value;
};

struct CombinedRules {
    Criterion criterion = Criterion::kAllOf;
    std::vector<const SchemaNode*> subschemas;
};

struct NotRules {
    const SchemaNode* negated = nullptr;
};

struct ReferenceRules {
    std::string ref;                     // as written
    const SchemaNode* target = nullptr;  // set once every $ref of the graph is resolved
};

struct SchemaNode {
    SchemaKind kind = SchemaKind::kEmpty;
    // The annotations Confluent compares (ID/TITLE/DESCRIPTION/DEFAULT_CHANGED, all compatible)
    // and the default a newly required property needs to be compatible.
    std::optional<std::string> id;
    std::optional<std::string> title;
    std::optional<std::string> description;
    std::optional<nlohmann::ordered_json> default_value;
    std::variant<std::monostate, StringRules, NumberRules, ObjectRules, ArrayRules, EnumRules,
                 ConstRules, CombinedRules, NotRules, ReferenceRules>
        rules;
    // What makes two subschemas of one allOf/anyOf/oneOf the same, so that duplicates collapse
    // as in Confluent: the JSON the node was read from (owned by the graph), and for the parts
    // of a schema object split by keyword group, which group (they share one JSON object).
    const nlohmann::ordered_json* source = nullptr;
    std::string_view part;

    template <typename Rules>
    const Rules& as() const {
        return std::get<Rules>(rules);
    }
};

// Every node of one parsed schema and of the schemas it references, and the JSON documents
// they were read from.
class SchemaGraph {
  public:
    explicit SchemaGraph(std::vector<std::shared_ptr<const nlohmann::ordered_json>> documents)
        : documents_(std::move(documents)) {}

    SchemaNode& add(SchemaKind kind) {
        nodes_.emplace_back();
        nodes_.back().kind = kind;
        return nodes_.back();
    }
    const SchemaNode* root() const { return root_; }
    void set_root(const SchemaNode* root) { root_ = root; }
    std::size_t size() const { return nodes_.size(); }

  private:
    // Never changed once read: nodes point into them.
    std::vector<std::shared_ptr<const nlohmann::ordered_json>> documents_;
    std::deque<SchemaNode> nodes_;  // a deque: adding never moves a node others point to
    const SchemaNode* root_ = nullptr;
};

// Whether two nodes were read from equal JSON (and are the same part of it).
inline bool same_source(const SchemaNode& a, const SchemaNode& b) {
    return a.part == b.part && a.source != nullptr && b.source != nullptr &&
           (a.source == b.source || *a.source == *b.source);
}

// The node a $ref stands for, following chains of $refs; the node itself when it is not one.
// The builder refuses chains that loop without reaching a schema, so this always ends.
inline const SchemaNode* referred_schema(const SchemaNode* node) {
    while (node != nullptr && node->kind == SchemaKind::kReference)
        node = node->as<ReferenceRules>().target;
    return node;
}

}  // namespace skiff::schema_registry::json_schema
