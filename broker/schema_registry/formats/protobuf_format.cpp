// The PROTOBUF schema type of the registry: reading (protobuf_source.h), resolving with the
// schema's references (protobuf_pool.h), the canonical text (protobuf_printer.h) and the
// compatibility check (protobuf_compatibility.h), behind the SchemaFormat seam.
#include "broker/schema_registry/formats/protobuf_compatibility.h"
#include "broker/schema_registry/formats/protobuf_pool.h"
#include "broker/schema_registry/formats/protobuf_printer.h"
#include "broker/schema_registry/formats/protobuf_schema.h"
#include "broker/schema_registry/formats/protobuf_source.h"
#include "broker/schema_registry/formats/schema_format.h"

#include <stdexcept>

namespace skiff::schema_registry {
namespace {

class ProtobufFormat final : public SchemaFormat {
  public:
    std::string_view type() const override { return "PROTOBUF"; }

    ParseOutcome parse(std::string_view text, const std::vector<ResolvedReference>& references,
                       bool normalize) const override {
        auto read = protobuf::read_proto_source(text);
        if (!read.source)
            return {nullptr, "Invalid PROTOBUF schema: " + read.error};
        auto resolved = protobuf::resolve_schema(*read.source, references);
        if (!resolved.schema)
            return {nullptr, "Invalid PROTOBUF schema: " + resolved.error};
        std::string canonical =
            protobuf::print_schema(*resolved.schema->file, read.source->file, normalize);
        return {std::make_shared<protobuf::ProtobufSchema>(std::move(*resolved.schema),
                                                           std::move(canonical)),
                {}};
    }

    std::vector<Incompatibility> check(const ParsedSchema& updated,
                                       const ParsedSchema& previous) const override {
        const auto* reader = dynamic_cast<const protobuf::ProtobufSchema*>(&updated);
        const auto* writer = dynamic_cast<const protobuf::ProtobufSchema*>(&previous);
        if (!reader || !writer)
            throw std::invalid_argument("PROTOBUF compatibility asked of a schema of another type");
        std::vector<Incompatibility> incompatibilities;
        for (const auto& difference : protobuf::compare_schemas(*writer, *reader)) {
            if (!protobuf::is_compatible(difference.type))
                incompatibilities.push_back(protobuf::to_incompatibility(difference));
        }
        return incompatibilities;
    }
};

}  // namespace

const SchemaFormat& protobuf_format() {
    static const ProtobufFormat format;
    return format;
}

}  // namespace skiff::schema_registry
