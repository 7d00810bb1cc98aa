// The AVRO schema type: what the registry asks of a schema type, put together from the pieces
// that each do one job (see docs/schema-registry-avro.md):
//
//   avro_schema_reader      text (+ references) -> SchemaTree, with Avro Java's rules
//   avro_libavro_check      libavro must accept the text too
//   avro_normalization      Confluent's normalize, on the tree
//   avro_schema_writer      the canonical text (references by name) and the "resolved" one
//   avro_compatibility      the spec's resolution rules between two trees
#include <algorithm>
#include <cctype>
#include <memory>
#include <string>
#include <utility>

#include "broker/schema_registry/formats/avro_compatibility.h"
#include "broker/schema_registry/formats/avro_libavro_check.h"
#include "broker/schema_registry/formats/avro_normalization.h"
#include "broker/schema_registry/formats/avro_schema_reader.h"
#include "broker/schema_registry/formats/avro_schema_writer.h"
#include "broker/schema_registry/formats/schema_format.h"

namespace skiff::schema_registry {
namespace {

class AvroSchema final : public ParsedSchema {
  public:
    explicit AvroSchema(std::unique_ptr<avro::SchemaTree> tree) : tree_(std::move(tree)) {
        std::vector<const avro::Node*> known;
        for (const avro::Node* reference : tree_->reference_roots)
            if (avro::is_named(reference->type))
                known.push_back(reference);
        canonical_ = avro::write_schema(*tree_->root, known);
        resolved_ = avro::write_schema(*tree_->root, {});
    }

    const std::string& canonical() const override { return canonical_; }

    std::optional<std::string> formatted(std::string_view format) const override {
        std::string lower(format);
        std::transform(lower.begin(), lower.end(), lower.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        if (lower == "resolved")
            return resolved_;
        return std::nullopt;
    }

    const avro::Node& root() const { return *tree_->root; }

  private:
    std::unique_ptr<const avro::SchemaTree> tree_;
    std::string canonical_;
    std::string resolved_;  // referenced types inlined where first used
};

class AvroFormat final : public SchemaFormat {
  public:
    std::string_view type() const override { return "AVRO"; }

    ParseOutcome parse(std::string_view text, const std::vector<ResolvedReference>& references,
                       bool normalize) const override {
        auto read = avro::read_schema(text, references);
        if (!read.tree)
            return {nullptr, std::move(read.error)};
        if (auto error = avro::libavro_parse_error(text, references); !error.empty())
            return {nullptr, std::move(error)};
        if (normalize)
            avro::normalize_schema(*read.tree);
        return {std::make_shared<const AvroSchema>(std::move(read.tree)), {}};
    }

    std::vector<Incompatibility> check(const ParsedSchema& updated,
                                       const ParsedSchema& previous) const override {
        const auto* reader = dynamic_cast<const AvroSchema*>(&updated);
        const auto* writer = dynamic_cast<const AvroSchema*>(&previous);
        if (reader == nullptr || writer == nullptr)
            return {{"TYPE_MISMATCH", "Incompatible because of different schema type", ""}};
        return avro::check_compatibility(reader->root(), writer->root());
    }
};

}  // namespace

const SchemaFormat& avro_format() {
    static const AvroFormat format;
    return format;
}

}  // namespace skiff::schema_registry
