#include "broker/schema_registry/formats/json_schema_document.h"

#include "broker/schema_registry/formats/json_schema_keywords.h"
#include "broker/schema_registry/formats/json_schema_uri.h"

namespace skiff::schema_registry::json_schema {
namespace {

using nlohmann::ordered_json;

// The document's own URI: its "$id" resolved against the URI it was reached by. A fragment in
// the "$id" (draft 6/7 allow "$id": "#name" at the root) does not change the document's URI.
std::string document_uri(const ordered_json& json, Draft draft, const std::string& reached_by) {
    if (json.is_object()) {
        auto id = json.find(id_keyword(draft));
        if (id != json.end() && id->is_string())
            return without_fragment(resolve_uri(reached_by, id->get<std::string>()));
    }
    return reached_by;
}

std::variant<SchemaDocument, std::string> read_document(std::string_view text, std::string name,
                                                        const std::string& reached_by,
                                                        Draft default_draft) {
    auto json = read_json(text);
    if (auto* error = std::get_if<std::string>(&json))
        return *error;
    const ordered_json& value = std::get<ordered_json>(json);
    if (!value.is_object() && !value.is_boolean())
        return "a JSON Schema is an object or a boolean, not " +
               std::string(value.is_array() ? "an " : "a ") + value.type_name();
    SchemaDocument document;
    document.name = std::move(name);
    bool names_draft = value.is_object() && value.contains("$schema");
    document.draft = names_draft ? draft_named_by(value) : default_draft;
    document.registered_uri = reached_by;
    document.base_uri = document_uri(value, document.draft, reached_by);
    if (std::string error = check_document(value, document.draft); !error.empty())
        return error;
    document.json = std::make_shared<const ordered_json>(std::move(std::get<ordered_json>(json)));
    return document;
}

}  // namespace

Draft draft_named_by(const ordered_json& schema) {
    if (!schema.is_object())
        return Draft::k7;
    auto it = schema.find("$schema");
    if (it == schema.end() || !it->is_string())
        return Draft::k7;
    std::string url = it->get<std::string>();
    if (!url.empty() && url.back() == '#')
        url.pop_back();
    auto named = [&](std::string_view path) {
        return url == "http://json-schema.org/" + std::string(path) ||
               url == "https://json-schema.org/" + std::string(path);
    };
    if (named("draft/2020-12/schema"))
        return Draft::k2020_12;
    if (named("draft/2019-09/schema"))
        return Draft::k2019_09;
    auto prefixed = [&](std::string_view path) {
        return url.starts_with("http://json-schema.org/" + std::string(path)) ||
               url.starts_with("https://json-schema.org/" + std::string(path));
    };
    if (prefixed("draft-04/schema"))
        return Draft::k4;
    if (prefixed("draft-06/schema"))
        return Draft::k6;
    return Draft::k7;
}

std::string_view id_keyword(Draft draft) {
    return draft == Draft::k4 ? "id" : "$id";
}

std::variant<ordered_json, std::string> read_json(std::string_view text) {
    int deepest = 0;
    // The callback only measures: nlohmann's parser itself is not recursive, so it reads any
    // depth safely, and the depth is checked once it is done.
    auto measure = [&deepest](int depth, ordered_json::parse_event_t, ordered_json&) {
        deepest = std::max(deepest, depth);
        return true;
    };
    ordered_json json;
    try {
        json = ordered_json::parse(text.begin(), text.end(), measure);
    } catch (const ordered_json::exception& e) {
        // parse_error, and out_of_range for a number beyond a double (1e400).
        return std::string("the text is not JSON: ") + e.what();
    }
    if (deepest > kMaxNestingDepth)
        return "the JSON is nested more than " + std::to_string(kMaxNestingDepth) + " levels deep";
    return json;
}

std::variant<std::vector<SchemaDocument>, std::string> read_documents(
    std::string_view text, const std::vector<ResolvedReference>& references) {
    std::vector<SchemaDocument> documents;
    auto root = read_document(text, "", "", Draft::k7);
    if (auto* error = std::get_if<std::string>(&root))
        return "Invalid JSON Schema: " + *error;
    documents.push_back(std::move(std::get<SchemaDocument>(root)));
    // Confluent registers each reference at its name resolved against the referring schema's
    // "$id", which is where a "$ref" written with that name lands too.
    const std::string root_uri = documents[0].base_uri;
    for (const ResolvedReference& reference : references) {
        auto document = read_document(reference.schema, reference.name,
                                      resolve_uri(root_uri, reference.name), documents[0].draft);
        if (auto* error = std::get_if<std::string>(&document))
            return "Invalid JSON Schema in the reference '" + reference.name + "' (subject '" +
                   reference.subject + "', version " + std::to_string(reference.version) +
                   "): " + *error;
        documents.push_back(std::move(std::get<SchemaDocument>(document)));
    }
    return documents;
}

}  // namespace skiff::schema_registry::json_schema
