#include "broker/schema_registry/formats/json_schema_builder.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "broker/schema_registry/formats/json_schema_keywords.h"
#include "broker/schema_registry/formats/json_schema_resolver.h"
#include "broker/schema_registry/formats/json_schema_uri.h"

namespace skiff::schema_registry::json_schema {
namespace {

using nlohmann::ordered_json;

std::optional<double> number_of(const ordered_json& json, std::string_view key) {
    auto it = json.find(key);
    if (it == json.end() || !it->is_number())
        return std::nullopt;
    return it->get<double>();
}

std::optional<std::int64_t> count_of(const ordered_json& json, std::string_view key) {
    std::optional<double> value = number_of(json, key);
    if (!value)
        return std::nullopt;
    // Shapes are checked before building: a non-negative integral number. Beyond int64 it only
    // matters that it compares as larger than anything else.
    constexpr double kLargest = 9.2e18;
    return static_cast<std::int64_t>(std::min(*value, kLargest));
}

std::vector<std::string> strings_of(const ordered_json& array) {
    std::vector<std::string> out;
    for (const ordered_json& item : array)
        out.push_back(item.get<std::string>());
    return out;
}

// One schema object being split into its parts.
struct ObjectBeingBuilt {
    const ordered_json& json;
    Location at;
    std::string base;  // after the object's own "$id"
    Draft draft;
    std::string text;  // its JSON, what makes it the same as another
    std::set<std::string, std::less<>> consumed;
};

class GraphBuilder {
  public:
    GraphBuilder(const std::vector<SchemaDocument>& documents, SchemaGraph& graph)
        : documents_(documents), resolver_(documents), graph_(graph) {}

    std::string run() {
        graph_.set_root(node_at(Location{0, ""}, documents_[0].base_uri));
        // $refs are resolved after the tree that holds them is built, one at a time, so that a
        // recursive schema builds each place once instead of recursing forever.
        while (error_.empty() && !pending_.empty()) {
            PendingRef next = std::move(pending_.back());
            pending_.pop_back();
            auto resolved = resolver_.resolve(next.ref, next.base);
            if (auto* why = std::get_if<std::string>(&resolved)) {
                fail(next.at, "the $ref '" + next.ref + "' does not resolve: " + *why);
                break;
            }
            const Location& target = std::get<Location>(resolved);
            std::get<ReferenceRules>(next.node->rules).target =
                node_at(target, resolver_.base_at(target));
            references_.push_back(next.node);
        }
        if (error_.empty())
            check_reference_loops();
        return error_;
    }

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

    const SchemaNode* node_at(const Location& at, const std::string& base) {
        if (auto it = built_.find(at); it != built_.end())
            return it->second;
        const SchemaNode* node = build(resolver_.value_at(at), at, base);
        built_.emplace(at, node);
        return node;
    }

    const SchemaNode* child(const ObjectBeingBuilt& object, const std::string& relative) {
        return node_at(Location{object.at.document, object.at.pointer + relative}, object.base);
    }

    std::string keyword_path(std::string_view keyword, std::string_view key = {}) {
        std::string path = "/" + escape_pointer_token(keyword);
        if (!key.empty())
            path += "/" + escape_pointer_token(key);
        return path;
    }

    SchemaNode& part(const ObjectBeingBuilt& object, SchemaKind kind, std::string_view tag) {
        SchemaNode& node = graph_.add(kind);
        node.identity = std::string(tag) + ":" + object.text;
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

    const SchemaNode* build(const ordered_json& json, const Location& at, const std::string& base);
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

const SchemaNode* GraphBuilder::build(const ordered_json& json, const Location& at,
                                      const std::string& base) {
    if (json.is_boolean()) {
        SchemaNode& node = graph_.add(json.get<bool>() ? SchemaKind::kEmpty : SchemaKind::kFalse);
        node.identity = json.dump();
        return &node;
    }
    Draft draft = documents_[at.document].draft;
    if (!json.is_object()) {
        fail(at, "a schema is an object or a boolean");
        return &graph_.add(SchemaKind::kEmpty);
    }
    // A place reached only by a $ref ("#/components/A") was not checked with the document.
    if (std::string why = check_keyword_shapes(json, draft); !why.empty()) {
        fail(at, why);
        return &graph_.add(SchemaKind::kEmpty);
    }
    ObjectBeingBuilt object{json, at, base, draft, json.dump(), {}};
    auto id = json.find(id_keyword(draft));
    if (id != json.end() && id->is_string())
        object.base = without_fragment(resolve_uri(base, id->get<std::string>()));

    std::vector<SchemaNode*> parts;
    bool ref_hides_siblings = draft <= Draft::k7;
    if (auto ref = json.find("$ref"); ref != json.end()) {
        SchemaNode& node = part(object, SchemaKind::kReference, "$ref");
        node.rules = ReferenceRules{ref->get<std::string>(), nullptr};
        pending_.push_back(PendingRef{&node, ref->get<std::string>(), object.base, at});
        parts.push_back(&node);
    }
    if (parts.empty() || !ref_hides_siblings) {
        if (auto it = json.find("enum"); it != json.end()) {
            SchemaNode& node = part(object, SchemaKind::kEnum, "enum");
            node.rules = EnumRules{std::vector<ordered_json>(it->begin(), it->end())};
            parts.push_back(&node);
        }
        for (auto [keyword, criterion] :
             {std::pair{"allOf", Criterion::kAllOf}, std::pair{"anyOf", Criterion::kAnyOf},
              std::pair{"oneOf", Criterion::kOneOf}}) {
            auto it = json.find(keyword);
            if (it == json.end())
                continue;
            SchemaNode& node = part(object, SchemaKind::kCombined, keyword);
            CombinedRules rules{criterion, {}};
            for (std::size_t i = 0; i < it->size(); ++i)
                rules.subschemas.push_back(child(object, keyword_path(keyword, std::to_string(i))));
            node.rules = std::move(rules);
            parts.push_back(&node);
        }
        if (json.contains("not")) {
            SchemaNode& node = part(object, SchemaKind::kNot, "not");
            node.rules = NotRules{child(object, "/not")};
            parts.push_back(&node);
        }
        if (auto it = json.find("const"); it != json.end() && draft != Draft::k4) {
            SchemaNode& node = part(object, SchemaKind::kConst, "const");
            node.rules = ConstRules{*it};
            parts.push_back(&node);
        }
        if (auto it = json.find("type"); it != json.end()) {
            if (it->is_string()) {
                parts.push_back(&typed_part(object, it->get<std::string>()));
            } else {
                SchemaNode& node = part(object, SchemaKind::kCombined, "type");
                CombinedRules rules{Criterion::kAnyOf, {}};
                for (const ordered_json& name : *it)
                    rules.subschemas.push_back(&typed_part(object, name.get<std::string>()));
                node.rules = std::move(rules);
                parts.push_back(&node);
            }
        }
        // Keywords no "type" took still constrain the values of their type.
        if (has_unconsumed(object, array_keywords(draft)))
            parts.push_back(&array_part(object));
        if (has_unconsumed(object, object_keywords(draft)))
            parts.push_back(&object_part(object));
        if (has_unconsumed(object, number_keywords()))
            parts.push_back(&number_part(object, false));
        if (has_unconsumed(object, string_keywords()))
            parts.push_back(&string_part(object));
        if (draft >= Draft::k7 &&
            (json.contains("if") || json.contains("then") || json.contains("else")))
            parts.push_back(&part(object, SchemaKind::kConditional, "if"));
    }

    SchemaNode* node;
    if (parts.empty()) {
        node = &graph_.add(SchemaKind::kEmpty);
    } else if (parts.size() == 1) {
        node = parts[0];
    } else {
        node = &graph_.add(SchemaKind::kCombined);
        node->rules = CombinedRules{Criterion::kAllOf, {parts.begin(), parts.end()}};
    }
    node->identity = object.text;
    if (id != json.end() && id->is_string())
        node->id = id->get<std::string>();
    if (auto it = json.find("title"); it != json.end())
        node->title = it->get<std::string>();
    if (auto it = json.find("description"); it != json.end())
        node->description = it->get<std::string>();
    if (auto it = json.find("default"); it != json.end())
        node->default_value = *it;
    // Build every subschema, definitions and unused keywords included, so that each $ref in
    // the document is resolved and checked.
    for_each_subschema(json, draft, [&](const ordered_json&, const std::string& relative) {
        child(object, relative);
    });
    return node;
}

SchemaNode& GraphBuilder::string_part(ObjectBeingBuilt& object) {
    consume(object, string_keywords());
    SchemaNode& node = part(object, SchemaKind::kString, "string");
    StringRules rules;
    rules.min_length = count_of(object.json, "minLength");
    rules.max_length = count_of(object.json, "maxLength");
    if (auto it = object.json.find("pattern"); it != object.json.end())
        rules.pattern = it->get<std::string>();
    node.rules = std::move(rules);
    return node;
}

SchemaNode& GraphBuilder::number_part(ObjectBeingBuilt& object, bool integer) {
    consume(object, number_keywords());
    SchemaNode& node = part(object, SchemaKind::kNumber, integer ? "integer" : "number");
    NumberRules rules;
    rules.minimum = number_of(object.json, "minimum");
    rules.maximum = number_of(object.json, "maximum");
    rules.exclusive_minimum = number_of(object.json, "exclusiveMinimum");  // absent if boolean
    rules.exclusive_maximum = number_of(object.json, "exclusiveMaximum");
    rules.multiple_of = number_of(object.json, "multipleOf");
    rules.requires_integer = integer;
    node.rules = rules;
    return node;
}

SchemaNode& GraphBuilder::object_part(ObjectBeingBuilt& object) {
    consume(object, object_keywords(object.draft));
    SchemaNode& node = part(object, SchemaKind::kObject, "object");
    ObjectRules rules;
    const ordered_json& json = object.json;
    if (auto it = json.find("properties"); it != json.end()) {
        for (const auto& [name, value] : it->items())
            rules.properties.emplace_back(name, child(object, keyword_path("properties", name)));
    }
    if (auto it = json.find("required"); it != json.end())
        rules.required = strings_of(*it);
    if (auto it = json.find("additionalProperties"); it != json.end()) {
        if (it->is_boolean())
            rules.permits_additional_properties = it->get<bool>();
        else
            rules.additional_properties = child(object, "/additionalProperties");
    }
    if (auto it = json.find("patternProperties"); it != json.end()) {
        for (const auto& [pattern, value] : it->items())
            rules.pattern_properties.emplace_back(
                pattern, child(object, keyword_path("patternProperties", pattern)));
    }
    auto dependencies = [&](std::string_view keyword) {
        auto it = json.find(keyword);
        if (it == json.end() || (keyword != "dependencies" && object.draft < Draft::k2019_09))
            return;
        for (const auto& [name, value] : it->items()) {
            if (value.is_array())
                rules.property_dependencies.emplace_back(name, strings_of(value));
            else
                rules.schema_dependencies.emplace_back(name,
                                                       child(object, keyword_path(keyword, name)));
        }
    };
    dependencies("dependencies");
    dependencies("dependentRequired");
    dependencies("dependentSchemas");
    rules.min_properties = count_of(json, "minProperties");
    rules.max_properties = count_of(json, "maxProperties");
    node.rules = std::move(rules);
    return node;
}

SchemaNode& GraphBuilder::array_part(ObjectBeingBuilt& object) {
    consume(object, array_keywords(object.draft));
    SchemaNode& node = part(object, SchemaKind::kArray, "array");
    ArrayRules rules;
    const ordered_json& json = object.json;
    auto additional = [&](std::string_view keyword) {
        auto it = json.find(keyword);
        if (it == json.end())
            return;
        if (it->is_boolean())
            rules.permits_additional_items = it->get<bool>();
        else
            rules.additional_items = child(object, keyword_path(keyword));
    };
    auto items = json.find("items");
    if (object.draft == Draft::k2020_12) {
        // 2020-12 renamed the tuple form: prefixItems, then "items" for what follows. As in
        // Confluent's translation, a boolean "items" says whether more items may come, with or
        // without prefixItems; a schema is for every item, or for those after prefixItems.
        auto prefix = json.find("prefixItems");
        if (prefix != json.end()) {
            for (std::size_t i = 0; i < prefix->size(); ++i)
                rules.tuple_items.push_back(
                    child(object, keyword_path("prefixItems", std::to_string(i))));
        }
        if (prefix != json.end() || (items != json.end() && items->is_boolean()))
            additional("items");
        else if (items != json.end())
            rules.all_items = child(object, "/items");
    } else {
        if (items != json.end() && items->is_array()) {
            for (std::size_t i = 0; i < items->size(); ++i)
                rules.tuple_items.push_back(
                    child(object, keyword_path("items", std::to_string(i))));
        } else if (items != json.end()) {
            rules.all_items = child(object, "/items");
        }
        additional("additionalItems");
    }
    rules.min_items = count_of(json, "minItems");
    rules.max_items = count_of(json, "maxItems");
    if (auto it = json.find("uniqueItems"); it != json.end())
        rules.unique_items = it->get<bool>();
    node.rules = std::move(rules);
    return node;
}

SchemaNode& GraphBuilder::typed_part(ObjectBeingBuilt& object, const std::string& type) {
    if (type == "string")
        return string_part(object);
    if (type == "integer" || type == "number")
        return number_part(object, type == "integer");
    if (type == "object")
        return object_part(object);
    if (type == "array")
        return array_part(object);
    return part(object, type == "null" ? SchemaKind::kNull : SchemaKind::kBoolean, type);
}

void GraphBuilder::check_reference_loops() {
    for (const SchemaNode* start : references_) {
        std::set<const SchemaNode*> seen;
        const SchemaNode* at = start;
        while (at != nullptr && at->kind == SchemaKind::kReference) {
            if (!seen.insert(at).second) {
                error_ = "the $ref '" + start->as<ReferenceRules>().ref +
                         "' leads back to itself without reaching a schema";
                return;
            }
            at = at->as<ReferenceRules>().target;
        }
    }
}

}  // namespace

std::variant<std::unique_ptr<SchemaGraph>, std::string> build_schema_graph(
    const std::vector<SchemaDocument>& documents) {
    auto graph = std::make_unique<SchemaGraph>();
    GraphBuilder builder(documents, *graph);
    if (std::string error = builder.run(); !error.empty())
        return "Invalid JSON Schema: " + error;
    return graph;
}

}  // namespace skiff::schema_registry::json_schema
