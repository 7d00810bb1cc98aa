#include "broker/schema_registry/formats/json_schema_format.h"

#include "broker/schema_registry/formats/json_schema_builder.h"
#include "broker/schema_registry/formats/json_schema_canonical.h"
#include "broker/schema_registry/formats/json_schema_diff.h"
#include "broker/schema_registry/formats/json_schema_document.h"

namespace skiff::schema_registry {
namespace {

using json_schema::JsonParsedSchema;

class JsonSchemaFormat final : public SchemaFormat {
  public:
    std::string_view type() const override { return "JSON"; }

    ParseOutcome parse(std::string_view text, const std::vector<ResolvedReference>& references,
                       bool normalize) const override {
        auto documents = json_schema::read_documents(text, references);
        if (auto* error = std::get_if<std::string>(&documents))
            return {nullptr, *error};
        auto graph = json_schema::build_schema_graph(
            std::get<std::vector<json_schema::SchemaDocument>>(documents));
        if (auto* error = std::get_if<std::string>(&graph))
            return {nullptr, *error};
        return {std::make_shared<JsonParsedSchema>(
                    json_schema::canonical_text(text, normalize),
                    std::move(std::get<std::unique_ptr<json_schema::SchemaGraph>>(graph))),
                ""};
    }

    std::vector<Incompatibility> check(const ParsedSchema& updated,
                                       const ParsedSchema& previous) const override {
        const auto* reader = dynamic_cast<const JsonParsedSchema*>(&updated);
        const auto* writer = dynamic_cast<const JsonParsedSchema*>(&previous);
        if (reader == nullptr || writer == nullptr)
            return {{"TYPE_CHANGED", "Only two JSON schemas can be compared", "#/"}};
        std::vector<Incompatibility> incompatibilities;
        for (const json_schema::Difference& difference :
             json_schema::all_differences(*reader, *writer)) {
            if (json_schema::is_compatible(difference.type))
                continue;
            incompatibilities.push_back({std::string(json_schema::difference_name(difference.type)),
                                         json_schema::describe(difference), difference.path});
        }
        return incompatibilities;
    }
};

}  // namespace

namespace json_schema {

std::vector<Difference> all_differences(const JsonParsedSchema& updated,
                                        const JsonParsedSchema& previous) {
    return diff_schemas(previous.root(), updated.root());
}

}  // namespace json_schema

const SchemaFormat& json_schema_format() {
    static const JsonSchemaFormat format;
    return format;
}

}  // namespace skiff::schema_registry
