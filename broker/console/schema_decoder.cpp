#include "broker/console/schema_decoder.h"

#include <google/protobuf/dynamic_message.h>

#include <functional>
#include <set>
#include <vector>

#include "broker/console/avro_datum.h"
#include "broker/console/protobuf_json.h"
#include "broker/schema_registry/formats/avro_schema_reader.h"
#include "broker/schema_registry/formats/protobuf_schema.h"
#include "broker/schema_registry/registry.h"
#include "broker/schema_registry/service/registry_acls.h"

namespace skiff::broker::console {

namespace sr = skiff::schema_registry;

namespace schema_decoder_impl {

// References resolved transitively, dependencies first, as the registry's formats take them.
constexpr size_t kMaxReferences = 256;
constexpr size_t kMaxReferenceDepth = 32;
constexpr size_t kMaxMessageIndexes = 64;

bool read_zigzag_varint(std::span<const std::byte> bytes, size_t& pos, int64_t& out) {
    uint64_t raw = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (pos >= bytes.size())
            return false;
        const auto b = static_cast<uint8_t>(bytes[pos++]);
        raw |= static_cast<uint64_t>(b & 0x7F) << shift;
        if ((b & 0x80) == 0) {
            out = static_cast<int64_t>(raw >> 1) ^ -static_cast<int64_t>(raw & 1);
            return true;
        }
    }
    return false;
}

Expected<nlohmann::json, std::string> decode_protobuf(const sr::ParsedSchema& parsed,
                                                      std::span<const std::byte> bytes) {
    const auto* schema = dynamic_cast<const sr::protobuf::ProtobufSchema*>(&parsed);
    if (!schema)
        return unexpected(std::string("not a protobuf schema"));
    size_t pos = 0;
    int64_t count = 0;
    if (!read_zigzag_varint(bytes, pos, count) || count < 0 ||
        static_cast<uint64_t>(count) > kMaxMessageIndexes)
        return unexpected(std::string("malformed message indexes"));
    std::vector<int64_t> indexes;
    for (int64_t i = 0; i < count; ++i) {
        int64_t index = 0;
        if (!read_zigzag_varint(bytes, pos, index))
            return unexpected(std::string("malformed message indexes"));
        indexes.push_back(index);
    }
    if (indexes.empty())
        indexes.push_back(0);  // Confluent writes a lone 0 for the file's first message
    const google::protobuf::FileDescriptor& file = schema->file();
    const google::protobuf::Descriptor* type = nullptr;
    for (size_t i = 0; i < indexes.size(); ++i) {
        const int64_t index = indexes[i];
        const int available = i == 0 ? file.message_type_count() : type->nested_type_count();
        if (index < 0 || index >= available)
            return unexpected("message index " + std::to_string(index) + " names no message type");
        type = i == 0 ? file.message_type(static_cast<int>(index))
                      : type->nested_type(static_cast<int>(index));
    }
    google::protobuf::DynamicMessageFactory factory(file.pool());
    const google::protobuf::Message* prototype = factory.GetPrototype(type);
    if (!prototype)
        return unexpected(std::string("no message type to decode with"));
    std::unique_ptr<google::protobuf::Message> message(prototype->New());
    const auto rest = bytes.subspan(pos);
    if (!message->ParseFromArray(rest.data(), static_cast<int>(rest.size())))
        return unexpected("not a valid " + type->full_name() + " message");
    return protobuf_to_json(*message);
}

}  // namespace schema_decoder_impl

std::optional<int32_t> wire_format_schema_id(std::span<const std::byte> bytes) {
    if (bytes.size() < 5 || bytes[0] != std::byte{0})
        return std::nullopt;
    uint32_t id = 0;
    for (size_t i = 1; i < 5; ++i)
        id = (id << 8) | static_cast<uint8_t>(bytes[i]);
    return static_cast<int32_t>(id);
}

std::string encode_path_segment(std::string_view text) {
    static constexpr char kDigits[] = "0123456789ABCDEF";
    std::string out;
    for (const char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if ((u >= 'A' && u <= 'Z') || (u >= 'a' && u <= 'z') || (u >= '0' && u <= '9') ||
            u == '-' || u == '.' || u == '_' || u == '~') {
            out.push_back(c);
        } else {
            out.push_back('%');
            out.push_back(kDigits[u >> 4]);
            out.push_back(kDigits[u & 0x0F]);
        }
    }
    return out;
}

SchemaDecoder::SchemaDecoder(sr::Registry& registry, std::string principal, std::string host)
    : registry_(registry), principal_(std::move(principal)), host_(std::move(host)) {}

SchemaDecoder::~SchemaDecoder() = default;

std::pair<int, nlohmann::json> SchemaDecoder::registry_call(const std::string& method,
                                                            const std::string& path,
                                                            const std::string& body) {
    sr::RestRequest request;
    request.method = method;
    request.path = path;
    request.body = body;
    request.principal = principal_;
    // The registry's ACL hook reads the client's address from here, as for its own listener.
    schema_registry_service::RegistryCaller caller(host_);
    auto answer = registry_.handle(request);
    auto json = nlohmann::json::parse(answer.body, nullptr, false);
    if (json.is_discarded())
        json = nullptr;
    return {answer.status, std::move(json)};
}

std::optional<nlohmann::json> SchemaDecoder::registry_get(const std::string& path) {
    auto [status, json] = registry_call("GET", path);
    if (status != 200 || json.is_null())
        return std::nullopt;
    return std::move(json);
}

const SchemaDecoder::Schema* SchemaDecoder::lookup(int32_t id) {
    using namespace schema_decoder_impl;  // this file's own helpers
    if (auto it = schemas_.find(id); it != schemas_.end())
        return it->second.get();
    auto& slot = schemas_[id];
    auto found = registry_get("/schemas/ids/" + std::to_string(id));
    if (!found || !found->is_object() || !(*found)["schema"].is_string())
        return nullptr;
    auto schema = std::make_unique<Schema>();
    schema->id = id;
    schema->type = found->value("schemaType", std::string("AVRO"));
    if (auto versions = registry_get("/schemas/ids/" + std::to_string(id) + "/versions");
        versions && versions->is_array() && !versions->empty() && (*versions)[0].is_object())
        schema->subject = (*versions)[0].value("subject", std::string());

    // Every reference, transitively, dependencies before the schemas that use them.
    std::vector<sr::ResolvedReference> references;
    std::set<std::string> seen;
    std::string error;
    std::function<void(const nlohmann::json&, size_t)> resolve = [&](const nlohmann::json& refs,
                                                                     size_t depth) {
        if (!refs.is_array() || !error.empty())
            return;
        if (depth > kMaxReferenceDepth) {
            error = "references nest too deep";
            return;
        }
        for (const auto& ref : refs) {
            if (!ref.is_object() || !ref["name"].is_string() || !ref["subject"].is_string() ||
                !ref["version"].is_number_integer()) {
                error = "a malformed reference";
                return;
            }
            const auto name = ref["name"].get<std::string>();
            if (!seen.insert(name).second)
                continue;
            if (references.size() >= kMaxReferences) {
                error = "too many references";
                return;
            }
            const auto subject = ref["subject"].get<std::string>();
            const int version = ref["version"].get<int>();
            auto held = registry_get("/subjects/" + encode_path_segment(subject) + "/versions/" +
                                     std::to_string(version));
            if (!held || !held->is_object() || !(*held)["schema"].is_string()) {
                error = "the reference ";
                error.append(name).append(" (").append(subject).append(" version ");
                error.append(std::to_string(version)).append(") cannot be read");
                return;
            }
            if (held->contains("references"))
                resolve((*held)["references"], depth + 1);
            references.push_back({name, subject, version, (*held)["schema"].get<std::string>()});
        }
    };
    if (found->contains("references"))
        resolve((*found)["references"], 0);

    const auto text = (*found)["schema"].get<std::string>();
    if (!error.empty()) {
        schema->error = error;
    } else if (schema->type == "AVRO") {
        auto read = sr::avro::read_schema(text, references);
        if (read.tree)
            schema->avro = std::move(read.tree);
        else
            schema->error = "the Avro schema cannot be read: " + read.error;
    } else if (schema->type == "PROTOBUF") {
        auto parsed = sr::protobuf_format().parse(text, references, false);
        if (parsed.schema)
            schema->protobuf = std::move(parsed.schema);
        else
            schema->error = "the Protobuf schema cannot be read: " + parsed.error;
    } else if (schema->type != "JSON") {
        schema->error = "schemas of type " + schema->type + " are not decoded";
    }
    slot = std::move(schema);
    return slot.get();
}

std::optional<nlohmann::json> SchemaDecoder::decode(std::span<const std::byte> bytes) {
    using namespace schema_decoder_impl;  // this file's own helpers
    const auto id = wire_format_schema_id(bytes);
    if (!id)
        return std::nullopt;
    const Schema* schema = lookup(*id);
    if (!schema)
        return std::nullopt;
    nlohmann::json out = {{"id", *id}, {"type", schema->type}, {"subject", schema->subject}};
    const auto payload = bytes.subspan(5);
    Expected<nlohmann::json, std::string> decoded = unexpected(schema->error);
    if (bytes.size() > kMaxDecodedValueBytes) {
        decoded = unexpected("values over " + std::to_string(kMaxDecodedValueBytes) +
                             " bytes are not decoded");
    } else if (!schema->error.empty()) {
        // `decoded` already says why
    } else if (schema->type == "JSON") {
        auto json = nlohmann::json::parse(payload.begin(), payload.end(), nullptr, false);
        if (json.is_discarded())
            decoded = unexpected(std::string("the value after the schema id is not JSON"));
        else
            decoded = std::move(json);
    } else if (schema->avro) {
        decoded = read_avro_datum(*schema->avro->root, payload);
    } else if (schema->protobuf) {
        decoded = decode_protobuf(*schema->protobuf, payload);
    }
    if (decoded)
        out["decoded"] = std::move(*decoded);
    else
        out["schema_error"] = decoded.error();
    return out;
}

}  // namespace skiff::broker::console
