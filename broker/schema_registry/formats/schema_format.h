// The schema types of the schema registry (AVRO, JSON, PROTOBUF): parsing a schema's text, the
// canonical text the registry stores and compares, and the compatibility check between two
// versions. The registry itself (subjects, ids, configs, the _schemas topic, HTTP) knows no
// schema language; everything language-specific is behind this interface, one file per type.
//
// Compatibility has one direction here, as in Confluent's implementation: `check(updated,
// previous)` answers "can a consumer using `updated` read data written with `previous`?"
// (BACKWARD). The registry gets FORWARD by swapping the arguments and FULL by asking both ways.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skiff::schema_registry {

// A schema reference as the registry resolved it: the name the referring schema uses for it (an
// Avro full type name, a .proto import path, a JSON Schema $ref URL), where it is registered,
// and the referenced schema's text as stored. The registry passes every reference a schema
// needs, transitively, dependencies before the schemas that use them.
struct ResolvedReference {
    std::string name;
    std::string subject;
    int version = 0;
    std::string schema;
};

class ParsedSchema {
  public:
    virtual ~ParsedSchema() = default;
    // The text the registry stores, serves and compares: two registrations whose canonical texts
    // (and references) are equal are the same schema and share one id (Confluent's
    // canonicalString()). With normalize (parse's argument) it is the normalized form.
    virtual const std::string& canonical() const = 0;
    // The schema in another representation, for GET /schemas/ids/{id}?format=...: PROTOBUF's
    // "serialized" (a base64 FileDescriptorProto), AVRO's "resolved" (references inlined).
    // nullopt when the type has no such format (the registry then serves the canonical text).
    virtual std::optional<std::string> formatted(std::string_view format) const {
        return std::nullopt;
    }
};

struct ParseOutcome {
    std::shared_ptr<const ParsedSchema> schema;  // null when the text is not a valid schema
    std::string error;                           // why, for error 42201's message
};

// One incompatibility, as Confluent reports it in a verbose compatibility check's "messages":
// errorType is Confluent's name for the rule (READER_FIELD_MISSING_DEFAULT_VALUE,
// TYPE_MISMATCH, FIELD_KIND_CHANGED, PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL, ...),
// description a sentence a developer understands, additional_info what Confluent puts in
// additionalInfo (for Avro the field or type name; for Protobuf and JSON the path).
struct Incompatibility {
    std::string error_type;
    std::string description;
    std::string additional_info;
    // "{errorType:'...', description:'...', additionalInfo:'...'}" as Confluent prints them.
    std::string to_string() const;
};

class SchemaFormat {
  public:
    virtual ~SchemaFormat() = default;
    virtual std::string_view type() const = 0;  // "AVRO", "JSON" or "PROTOBUF"
    virtual ParseOutcome parse(std::string_view text,
                               const std::vector<ResolvedReference>& references,
                               bool normalize) const = 0;
    // Why a reader using `updated` cannot read data written with `previous`; empty when it can.
    // Both were parsed by this format.
    virtual std::vector<Incompatibility> check(const ParsedSchema& updated,
                                               const ParsedSchema& previous) const = 0;
};

// Each defined in its type's own file.
const SchemaFormat& avro_format();
const SchemaFormat& json_schema_format();
const SchemaFormat& protobuf_format();

// The format of a schemaType as the API names it ("AVRO" when the request gives none); null when
// skiff has no such type.
const SchemaFormat* find_format(std::string_view type);
// Every type, for GET /schemas/types.
std::vector<std::string_view> format_types();

}  // namespace skiff::schema_registry
