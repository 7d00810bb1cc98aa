// Placeholder: the AVRO schema type is not built yet; every schema is refused.
#include "broker/schema_registry/formats/schema_format.h"

namespace skiff::schema_registry {
namespace {
class UnbuiltAVRO final : public SchemaFormat {
  public:
    std::string_view type() const override { return "AVRO"; }
    ParseOutcome parse(std::string_view, const std::vector<ResolvedReference>&,
                       bool) const override {
        return {nullptr, "AVRO schemas are not supported yet"};
    }
    std::vector<Incompatibility> check(const ParsedSchema&, const ParsedSchema&) const override {
        return {};
    }
};
}  // namespace

const SchemaFormat& avro_format() {
    static const UnbuiltAVRO format;
    return format;
}

}  // namespace skiff::schema_registry
