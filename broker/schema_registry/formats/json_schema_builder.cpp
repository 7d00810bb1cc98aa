#include "broker/schema_registry/formats/json_schema_builder.h"

#include <set>

#include "broker/schema_registry/formats/json_schema_graph_builder.h"
#include "broker/schema_registry/formats/json_schema_keywords.h"

namespace skiff::schema_registry::json_schema {

using nlohmann::ordered_json;

std::string GraphBuilder::run() {
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

const SchemaNode* GraphBuilder::build(const ordered_json& json, const Location& at,
                                      const std::string& base) {
    if (json.is_boolean()) {
        SchemaNode& node = graph_.add(json.get<bool>() ? SchemaKind::kEmpty : SchemaKind::kFalse);
        node.source = &json;
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
    ObjectBeingBuilt object{json, at, base, draft, {}};
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
                rules.subschemas.push_back(
                    child(object, keyword_path(keyword, std::to_string(i)), (*it)[i]));
            node.rules = std::move(rules);
            parts.push_back(&node);
        }
        if (json.contains("not")) {
            SchemaNode& node = part(object, SchemaKind::kNot, "not");
            node.rules = NotRules{child(object, "/not", json.at("not"))};
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
    node->source = &json;
    node->part = {};
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
    for_each_subschema(json, draft, [&](const ordered_json& value, const std::string& relative) {
        child(object, relative, value);
    });
    return node;
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

std::variant<std::unique_ptr<SchemaGraph>, std::string> build_schema_graph(
    const std::vector<SchemaDocument>& documents) {
    std::vector<std::shared_ptr<const ordered_json>> jsons;
    jsons.reserve(documents.size());
    for (const SchemaDocument& document : documents)
        jsons.push_back(document.json);
    auto graph = std::make_unique<SchemaGraph>(std::move(jsons));
    GraphBuilder builder(documents, *graph);
    if (std::string error = builder.run(); !error.empty())
        return "Invalid JSON Schema: " + error;
    return graph;
}

}  // namespace skiff::schema_registry::json_schema
