#include "broker/schema_registry/formats/json_schema_resolver.h"

#include "broker/schema_registry/formats/json_schema_keywords.h"
#include "broker/schema_registry/formats/json_schema_uri.h"

namespace skiff::schema_registry::json_schema {
namespace {

using nlohmann::ordered_json;

std::string pointer_from(const std::vector<std::string>& tokens) {
    std::string pointer;
    for (const std::string& token : tokens)
        pointer += "/" + escape_pointer_token(token);
    return pointer;
}

}  // namespace

ReferenceResolver::ReferenceResolver(const std::vector<SchemaDocument>& documents)
    : documents_(documents) {
    for (std::size_t i = 0; i < documents.size(); ++i)
        index_document(i);
}

void ReferenceResolver::index_document(std::size_t document) {
    const SchemaDocument& doc = documents_[document];
    Location root{document, ""};
    // First come, first served: the schema's own URIs win over a reference's, and a reference
    // over a later one, so no document can take another's place.
    resources_.try_emplace(doc.base_uri, root);
    if (!doc.registered_uri.empty()) {
        resources_.try_emplace(doc.registered_uri, root);
        // The name as the registry gives it, for a $ref written verbatim under an "$id" that
        // would resolve it elsewhere; and "./name" as Confluent also registers it.
        resources_.try_emplace(doc.name, root);
        if (!doc.name.starts_with("."))
            resources_.try_emplace("./" + doc.name, root);
    }
    index_schema(*doc.json, root, doc.base_uri, 0);
}

void ReferenceResolver::index_schema(const ordered_json& schema, const Location& at,
                                     const std::string& base, int depth) {
    if (!schema.is_object() || depth > kMaxNestingDepth)
        return;
    Draft draft = documents_[at.document].draft;
    std::string here = base;
    auto id = schema.find(id_keyword(draft));
    if (id != schema.end() && id->is_string() && !at.pointer.empty()) {
        std::string uri = resolve_uri(base, id->get<std::string>());
        std::string fragment = fragment_of(uri);
        if (!fragment.empty() && draft <= Draft::k7)
            anchors_.try_emplace(without_fragment(uri) + "#" + fragment, at);
        here = without_fragment(uri);
        resources_.try_emplace(here, at);
    } else if (id != schema.end() && id->is_string() && draft <= Draft::k7) {
        // A root "$id": "#name" names the root.
        if (std::string fragment = fragment_of(id->get<std::string>()); !fragment.empty())
            anchors_.try_emplace(base + "#" + fragment, at);
    }
    auto anchor = schema.find("$anchor");
    if (draft >= Draft::k2019_09 && anchor != schema.end() && anchor->is_string())
        anchors_.try_emplace(here + "#" + anchor->get<std::string>(), at);
    for_each_subschema(schema, draft, [&](const ordered_json& child, const std::string& to) {
        index_schema(child, Location{at.document, at.pointer + to}, here, depth + 1);
    });
}

std::variant<Location, std::string> ReferenceResolver::resolve(std::string_view ref,
                                                               std::string_view base) const {
    std::string target = resolve_uri(base, ref);
    std::string resource = without_fragment(target);
    auto found = resources_.find(resource);
    if (found == resources_.end())
        found = resources_.find(without_fragment(ref));
    if (found == resources_.end())
        return "it names '" + resource +
               "', which is neither this schema nor one of the schema references given with it";
    std::string fragment = fragment_of(target);
    if (fragment.empty())
        return found->second;
    if (fragment[0] != '/') {
        auto anchor = anchors_.find(found->first + "#" + fragment);
        if (anchor == anchors_.end())
            anchor = anchors_.find(resource + "#" + fragment);
        if (anchor == anchors_.end())
            return "no schema in '" + resource + "' is named '" + fragment + "'";
        return anchor->second;
    }
    auto tokens = parse_json_pointer(fragment);
    if (!tokens)
        return "'" + fragment + "' is not a JSON Pointer";
    const Location& start = found->second;
    const ordered_json* value = evaluate_json_pointer(value_at(start), *tokens);
    if (value == nullptr && start.pointer.empty() && !tokens->empty() && (*tokens)[0] == "$defs") {
        // Confluent's bridge: "#/$defs/X" finds a top-level "definitions/X" too.
        (*tokens)[0] = "definitions";
        value = evaluate_json_pointer(value_at(start), *tokens);
    }
    if (value == nullptr)
        return "nothing is at '" + fragment + "' in " +
               (resource.empty() ? std::string("this schema") : "'" + resource + "'");
    if (!value->is_object() && !value->is_boolean())
        return "'" + fragment + "' is " + value->type_name() + ", not a schema";
    return Location{start.document, start.pointer + pointer_from(*tokens)};
}

std::string ReferenceResolver::base_at(const Location& location) const {
    const SchemaDocument& doc = documents_[location.document];
    std::string base = doc.base_uri;
    auto tokens = parse_json_pointer(location.pointer);
    if (!tokens)
        return base;
    const ordered_json* at = doc.json.get();
    for (const std::string& token : *tokens) {
        at = evaluate_json_pointer(*at, {token});
        if (at == nullptr)
            break;
        auto id = at->is_object() ? at->find(id_keyword(doc.draft)) : at->end();
        if (at->is_object() && id != at->end() && id->is_string())
            base = without_fragment(resolve_uri(base, id->get<std::string>()));
    }
    return base;
}

const ordered_json& ReferenceResolver::value_at(const Location& location) const {
    const SchemaDocument& doc = documents_[location.document];
    auto tokens = parse_json_pointer(location.pointer);
    const ordered_json* value = tokens ? evaluate_json_pointer(*doc.json, *tokens) : nullptr;
    return value != nullptr ? *value : *doc.json;
}

}  // namespace skiff::schema_registry::json_schema
