// Placeholder: the JSON schema type is not built yet; every schema is refused.
#include "broker/schema_registry/formats/schema_format.h"

namespace skiff::schema_registry {
namespace {
class UnbuiltJSON final : public SchemaFormat {
  public:
    std::string_view type() const override { return "JSON"; }
    ParseOutcome parse(std::string_view, const std::vector<ResolvedReference>&,
                       bool) const override {
        return {nullptr, "JSON schemas are not supported yet"};
    }
    std::vector<Incompatibility> check(const ParsedSchema&, const ParsedSchema&) const override {
        return {};
    }
};
}  // namespace

const SchemaFormat& json_schema_format() {
    static const UnbuiltJSON format;
    return format;
}

}  // namespace skiff::schema_registry
