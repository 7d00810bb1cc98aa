// Values in Confluent's wire format (magic byte 0, a 4-byte big-endian schema id, then the
// serialized datum) decoded through skiff's schema registry, for the console's messages view:
//   JSON      the rest is the JSON text (JSONSerializer)
//   AVRO      Avro binary (AvroSerializer), read over the registry's parsed schema (avro_datum.h)
//   PROTOBUF  the message indexes (a zig-zag varint count, 0 for [0], then each index), then
//             the message in protobuf binary, printed as protobuf's JSON mapping (field names as
//             written in the schema)
// The schema is asked of the registry's REST API as the console's caller (GET /schemas/ids/{id},
// its references by subject and version), so the registry's ACLs decide what may be decoded:
// an id the caller may not read, or that no schema has, is not decoded at all.
//
// One decoder serves one API call: it keeps the schemas it looked up for the next values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

namespace skiff::schema_registry {
class Registry;
class ParsedSchema;
namespace avro {
struct SchemaTree;
}
}  // namespace skiff::schema_registry

namespace skiff::broker::console {

// Values larger than this are not decoded (schema_error says so).
inline constexpr size_t kMaxDecodedValueBytes = size_t{1} << 20;

class SchemaDecoder {
  public:
    SchemaDecoder(schema_registry::Registry& registry, std::string principal, std::string host);
    ~SchemaDecoder();
    SchemaDecoder(const SchemaDecoder&) = delete;
    SchemaDecoder& operator=(const SchemaDecoder&) = delete;

    // The value's "schema" object ({"id", "type", "subject", and "decoded" or "schema_error"}),
    // or nullopt when the bytes are not in Confluent's wire format or the registry has no
    // schema of that id for this caller.
    std::optional<nlohmann::json> decode(std::span<const std::byte> bytes);

    // A schema as the registry holds it, parsed for reading and writing values of it.
    struct Schema {
        int32_t id = 0;
        std::string type;     // AVRO, JSON, PROTOBUF
        std::string subject;  // the first subject holding the id (empty when none is visible)
        std::string error;    // why values of this schema cannot be read (set: no parse below)
        std::unique_ptr<schema_registry::avro::SchemaTree> avro;
        std::shared_ptr<const schema_registry::ParsedSchema> protobuf;
    };
    // The schema of `id` as the caller may read it, or null (REST Proxy v3's produce too).
    const Schema* lookup(int32_t id);
    // A call of the registry's REST API as the caller: the status and the JSON answer (null
    // when the body is not JSON).
    std::pair<int, nlohmann::json> registry_call(const std::string& method, const std::string& path,
                                                 const std::string& body = {});

  private:
    std::optional<nlohmann::json> registry_get(const std::string& path);

    schema_registry::Registry& registry_;
    std::string principal_;
    std::string host_;
    std::map<int32_t, std::unique_ptr<Schema>> schemas_;  // null: not there for this caller
};

// The 4-byte id of a value in Confluent's wire format, or nullopt.
std::optional<int32_t> wire_format_schema_id(std::span<const std::byte> bytes);

// `text` percent-encoded as one path segment (everything but RFC 3986's unreserved characters).
std::string encode_path_segment(std::string_view text);

}  // namespace skiff::broker::console
