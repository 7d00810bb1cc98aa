#include "broker/schema_registry/formats/avro_normalization.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>

#include "broker/schema_registry/formats/avro_default_values.h"

namespace skiff::schema_registry::avro {
namespace {

// A property Avro Java reads as an int (an integer that fits 32 bits); nullopt otherwise.
std::optional<int64_t> int_property(const Node& node, const char* key) {
    const auto found = node.properties.find(key);
    if (found == node.properties.end() || !found->is_number_integer())
        return std::nullopt;
    if (found->is_number_unsigned() &&
        found->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int32_t>::max()))
        return std::nullopt;
    const auto value = found->get<int64_t>();
    if (value < std::numeric_limits<int32_t>::min() || value > std::numeric_limits<int32_t>::max())
        return std::nullopt;
    return value;
}

// Avro Java 1.12's Decimal.validate: backed by bytes or fixed, 0 < precision <= what the
// fixed can hold, 0 <= scale <= precision.
bool valid_decimal(const Node& node) {
    if (node.type != Type::bytes && node.type != Type::fixed)
        return false;
    const auto precision = int_property(node, "precision");
    if (!precision || *precision <= 0)
        return false;
    if (node.type == Type::fixed) {
        const auto max_precision =
            static_cast<int64_t>(std::floor(std::log10(2.0) * (8.0 * node.size - 1)));
        if (*precision > max_precision)
            return false;
    }
    if (node.properties.contains("scale")) {
        const auto scale = int_property(node, "scale");
        if (!scale || *scale < 0 || *scale > *precision)
            return false;
    }
    return true;
}

// Whether Avro Java (LogicalTypes.fromSchemaIgnoreInvalid) sees a valid logical type here; an
// invalid or unknown one is only a property.
bool has_known_logical_type(const Node& node) {
    const auto found = node.properties.find("logicalType");
    if (found == node.properties.end() || !found->is_string())
        return false;
    const auto& name = found->get_ref<const std::string&>();
    if (name == "decimal")
        return valid_decimal(node);
    if (name == "big-decimal")
        return node.type == Type::bytes;
    if (name == "uuid")
        return node.type == Type::string || (node.type == Type::fixed && node.size == 16);
    if (name == "date" || name == "time-millis")
        return node.type == Type::int_;
    static const std::set<std::string> kLongTypes{
        "time-micros",          "timestamp-millis",       "timestamp-micros",
        "timestamp-nanos",      "local-timestamp-millis", "local-timestamp-micros",
        "local-timestamp-nanos"};
    return kLongTypes.contains(name) && node.type == Type::long_;
}

Json sorted_properties(const Json& properties, const std::vector<std::string>& first) {
    Json out = Json::object();
    for (const auto& key : first)
        if (properties.contains(key))
            out[key] = properties.at(key);
    std::map<std::string, Json> rest;
    for (const auto& [key, value] : properties.items())
        if (!out.contains(key))
            rest.emplace(key, value);
    for (auto& [key, value] : rest)
        out[key] = std::move(value);
    return out;
}

void normalize_properties(Node& node) {
    std::vector<std::string> first;
    if (has_known_logical_type(node)) {
        first.push_back("logicalType");
        if (node.properties.at("logicalType") == "decimal") {
            first.push_back("precision");
            if (int_property(node, "scale").value_or(0) != 0)
                first.push_back("scale");
        }
    }
    node.properties = sorted_properties(node.properties, first);
}

class Normalizer {
  public:
    void visit(Node& node) {
        if (is_named(node.type)) {
            if (node.from_reference || !visited_.insert(&node).second)
                return;
            if (node.doc && node.doc->empty())
                node.doc.reset();
            std::sort(node.aliases.begin(), node.aliases.end());
        }
        normalize_properties(node);
        switch (node.type) {
            case Type::record:
                for (Field& field : node.fields) {
                    std::sort(field.aliases.begin(), field.aliases.end());
                    field.properties = sorted_properties(field.properties, {});
                    if (field.default_value)
                        field.default_value = normalized_default(field.type, *field.default_value);
                    visit(*field.type);
                }
                return;
            case Type::array:
            case Type::map:
                visit(*node.items);
                return;
            case Type::union_:
                for (Node* branch : node.branches)
                    visit(*branch);
                return;
            default:
                return;
        }
    }

  private:
    std::set<const Node*> visited_;  // named types done, so that recursive types end
};

}  // namespace

void normalize_schema(SchemaTree& tree) {
    Normalizer().visit(*tree.root);
}

}  // namespace skiff::schema_registry::avro
