#include "broker/schema_registry/formats/avro_schema_reader.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "broker/schema_registry/formats/avro_default_values.h"
#include "broker/schema_registry/formats/avro_java_json.h"
#include "broker/schema_registry/formats/avro_names.h"

namespace skiff::schema_registry::avro {
namespace {

// Deeper than any real schema; it bounds this reader's recursion (and so the writer's and the
// compatibility check's) on hostile input.
constexpr int kMaxNestingDepth = 128;

// Attributes the Avro spec gives a meaning to; every other one is a property, kept and written
// back. The same sets as Avro Java's SCHEMA_RESERVED, ENUM_RESERVED and FIELD_RESERVED.
const std::set<std::string> kSchemaReserved{"doc",  "fields",  "items",  "name", "namespace",
                                            "size", "symbols", "values", "type", "aliases"};
const std::set<std::string> kFieldReserved{"default", "doc", "name", "order", "type", "aliases"};

// Avro Java prints the offending JSON in its messages; long schemas are cut short here.
std::string describe(const Json& json) {
    constexpr size_t kMaxLength = 160;
    std::string text = json.dump();
    if (text.size() > kMaxLength) {
        size_t cut = kMaxLength;
        while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
            --cut;  // not inside a UTF-8 sequence
        text = text.substr(0, cut) + "...";
    }
    return text;
}

// The message goes into the registry's JSON answer, so it must be valid UTF-8; nlohmann's
// parse errors quote the bytes where the text went wrong, which need not be. Such bytes
// become '?'.
std::string valid_utf8(const std::string& text) {
    std::string out;
    for (size_t i = 0; i < text.size();) {
        const auto lead = static_cast<unsigned char>(text[i]);
        const size_t length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
        bool valid = lead < 0x80 || (lead >= 0xC2 && lead <= 0xF4 && i + length <= text.size());
        for (size_t k = 1; valid && k < length; ++k)
            valid = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
        if (valid) {
            out.append(text, i, length);
            i += length;
        } else {
            out += '?';
            ++i;
        }
    }
    return out;
}

// Text of an optional string attribute; Avro Java treats a non-string value as absent.
std::optional<std::string> optional_text(const Json& object, const char* key) {
    const auto found = object.find(key);
    if (found == object.end() || !found->is_string())
        return std::nullopt;
    return found->get<std::string>();
}

Json properties_of(const Json& object, const std::set<std::string>& reserved) {
    Json properties = Json::object();
    for (const auto& [key, value] : object.items())
        if (!reserved.contains(key))
            properties[key] = value;
    return properties;
}

class SchemaReader {
  public:
    explicit SchemaReader(SchemaTree& tree) : tree_(tree) {}

    // Reads one schema text; null (and error()) when it is not valid.
    Node* read_text(std::string_view text, bool from_reference) {
        from_reference_ = from_reference;
        Json json;
        try {
            json = Json::parse(text);
        } catch (const Json::parse_error& e) {
            // nlohmann's message says where the text goes wrong; drop its "[json.exception...]".
            const std::string what = e.what();
            const auto bracket = what.find("] ");
            return fail("Invalid JSON: " +
                        (bracket == std::string::npos ? what : what.substr(bracket + 2)));
        }
        return read(json, "", 0);
    }

    const std::string& error() const { return error_; }

  private:
    std::nullptr_t fail(std::string message) {
        if (error_.empty())
            error_ = std::move(message);
        return nullptr;
    }
    bool refuse(std::string message) {
        fail(std::move(message));
        return false;
    }

    // Java's Names.get: a dotted name is full, an undotted one is in the enclosing namespace.
    Node* lookup(const std::string& name, const std::string& space) const {
        const auto found = named_.find(full_name_in(name, space));
        return found == named_.end() ? nullptr : found->second;
    }

    Node* read(const Json& json, const std::string& space, int depth) {
        if (depth > kMaxNestingDepth)
            return fail("Schema nested deeper than " + std::to_string(kMaxNestingDepth) +
                        " levels");
        if (json.is_string()) {
            const auto& name = json.get_ref<const std::string&>();
            if (const auto primitive = primitive_type(name))
                return tree_.add(*primitive);
            if (Node* named = lookup(name, space))
                return named;
            return fail("Undefined name: " + describe(json));
        }
        if (json.is_array())
            return read_union(json, space, depth);
        if (!json.is_object())
            return fail("Schema not yet supported: " + describe(json));
        const auto type = optional_text(json, "type");
        if (!type)
            return fail("No type: " + describe(json));
        if (const auto primitive = primitive_type(*type)) {
            Node* node = tree_.add(*primitive);
            node->properties = properties_of(json, kSchemaReserved);
            return node;
        }
        if (*type == "record" || *type == "enum" || *type == "fixed")
            return read_named(json, *type, space, depth);
        if (*type == "array" || *type == "map") {
            const bool array = *type == "array";
            const auto items = json.find(array ? "items" : "values");
            if (items == json.end())
                return fail(
                    std::string(array ? "Array has no items type: " : "Map has no values type: ") +
                    describe(json));
            Node* node = tree_.add(array ? Type::array : Type::map);
            node->items = read(*items, space, depth + 1);
            node->properties = properties_of(json, kSchemaReserved);
            return node->items == nullptr ? nullptr : node;
        }
        // {"type": "com.acme.Name"} uses a named type, as the bare string would.
        if (Node* named = lookup(*type, space))
            return named;
        return fail("Type not supported: " + *type);
    }

    Node* read_union(const Json& json, const std::string& space, int depth) {
        if (json.empty())
            return fail("Union type must have at least one branch");
        Node* node = tree_.add(Type::union_);
        std::set<std::string> seen;
        for (const auto& branch_json : json) {
            Node* branch = read(branch_json, space, depth + 1);
            if (branch == nullptr)
                return nullptr;
            if (branch->type == Type::union_)
                return fail("Nested union: " + describe(json));
            const std::string key =
                is_named(branch->type) ? branch->full_name() : std::string(type_name(branch->type));
            if (!seen.insert(key).second)
                return fail("Duplicate in union:" + key);
            node->branches.push_back(branch);
        }
        return node;
    }

    Node* read_named(const Json& json, const std::string& type, const std::string& enclosing,
                     int depth) {
        const auto written_name = optional_text(json, "name");
        if (!written_name)
            return fail("No name in schema: " + describe(json));
        // An explicit namespace replaces the enclosing one ("" is the null namespace); a dotted
        // name carries its own.
        std::string space = optional_text(json, "namespace").value_or(enclosing);
        auto [name_space, name] = split_full_name(*written_name);
        if (written_name->find('.') != std::string::npos)
            space = name_space;
        if (auto why = name_error(name); !why.empty())
            return fail(why);
        if (auto why = namespace_error(space); !why.empty())
            return fail(why);
        Node* node = tree_.add(type == "record" ? Type::record
                               : type == "enum" ? Type::enum_
                                                : Type::fixed);
        node->name = name;
        node->space = space;
        node->doc = optional_text(json, "doc");
        node->from_reference = from_reference_;
        node->properties = properties_of(json, kSchemaReserved);
        if (primitive_type(node->full_name()))
            return fail("Schemas may not be named after primitives: " + node->full_name());
        if (!read_type_aliases(*node, json))
            return nullptr;
        // Defined before its fields are read, so that a record may contain itself.
        if (!named_.emplace(node->full_name(), node).second)
            return fail("Can't redefine: " + node->full_name());
        if (node->type == Type::record)
            return read_fields(*node, json, depth) ? node : nullptr;
        if (node->type == Type::enum_)
            return read_symbols(*node, json) ? node : nullptr;
        const auto size = json.find("size");
        if (size == json.end() || !size->is_number_integer() || size->get<int64_t>() < 0 ||
            size->get<int64_t>() > std::numeric_limits<int32_t>::max())
            return fail("Invalid or no size: " + describe(json));
        node->size = size->get<int64_t>();
        return node;
    }

    bool read_type_aliases(Node& node, const Json& json) {
        const auto aliases = json.find("aliases");
        if (aliases == json.end())
            return true;
        if (!aliases->is_array())
            return refuse("aliases not an array: " + describe(json));
        for (const auto& alias : *aliases) {
            if (!alias.is_string())
                return refuse("alias not a string: " + describe(alias));
            const auto& text = alias.get_ref<const std::string&>();
            if (auto why = name_error(split_full_name(text).second); !why.empty())
                return refuse(why);
            const std::string full = full_name_in(text, node.space);
            if (std::find(node.aliases.begin(), node.aliases.end(), full) == node.aliases.end())
                node.aliases.push_back(full);
        }
        return true;
    }

    bool read_symbols(Node& node, const Json& json) {
        const auto symbols = json.find("symbols");
        if (symbols == json.end() || !symbols->is_array())
            return refuse("Enum has no symbols: " + describe(json));
        if (symbols->empty())
            return refuse("Enum type must have at least one symbol: " + describe(json));
        std::set<std::string> seen;
        for (const auto& symbol : *symbols) {
            if (!symbol.is_string())
                return refuse("Enum symbol must be a string: " + describe(symbol));
            const auto& text = symbol.get_ref<const std::string&>();
            if (auto why = name_error(text); !why.empty())
                return refuse(why);
            if (!seen.insert(text).second)
                return refuse("Duplicate enum symbol: " + text);
            node.symbols.push_back(text);
        }
        node.enum_default = optional_text(json, "default");
        node.properties.erase("default");
        if (node.enum_default && !seen.contains(*node.enum_default)) {
            std::string set;
            for (const auto& s : node.symbols)
                set += (set.empty() ? "" : ", ") + s;
            return refuse("The Enum Default: " + *node.enum_default +
                          " is not in the enum symbol set: [" + set + "]");
        }
        return true;
    }

    bool read_fields(Node& record, const Json& json, int depth) {
        const auto fields = json.find("fields");
        if (fields == json.end() || !fields->is_array())
            return refuse("Record has no fields: " + describe(json));
        std::set<std::string> seen;
        for (const auto& field_json : *fields) {
            if (!field_json.is_object())
                return refuse("Record field must be an object: " + describe(field_json));
            Field field;
            const auto name = optional_text(field_json, "name");
            if (!name)
                return refuse("No field name: " + describe(field_json));
            field.name = *name;
            if (auto why = name_error(field.name); !why.empty())
                return refuse(why);
            field.doc = optional_text(field_json, "doc");
            const auto type = field_json.find("type");
            if (type == field_json.end())
                return refuse("No field type: " + describe(field_json));
            if (type->is_string() && !primitive_type(type->get<std::string>()) &&
                lookup(type->get<std::string>(), record.space) == nullptr)
                return refuse(type->dump() + " is not a defined name. The type of the \"" +
                              field.name +
                              "\" field must be a defined name or a {\"type\": ...} expression.");
            field.type = read(*type, record.space, depth + 1);
            if (field.type == nullptr)
                return false;
            if (!read_field_order(field, field_json) || !read_field_default(field, field_json))
                return false;
            field.properties = properties_of(field_json, kFieldReserved);
            if (const auto aliases = field_json.find("aliases"); aliases != field_json.end()) {
                if (!aliases->is_array())
                    return refuse("aliases not an array: " + describe(field_json));
                for (const auto& alias : *aliases) {
                    if (!alias.is_string())
                        return refuse("alias not a string: " + describe(alias));
                    const auto text = alias.get<std::string>();
                    if (std::find(field.aliases.begin(), field.aliases.end(), text) ==
                        field.aliases.end())
                        field.aliases.push_back(text);
                }
            }
            if (!seen.insert(field.name).second)
                return refuse("Duplicate field " + field.name + " in record " + record.full_name());
            record.fields.push_back(std::move(field));
        }
        return true;
    }

    bool read_field_order(Field& field, const Json& field_json) {
        const auto order = field_json.find("order");
        if (order == field_json.end())
            return true;
        const std::string text = order->is_string() ? order->get<std::string>() : "";
        std::string lower;
        for (const char c : text)
            lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (lower == "ascending")
            field.order = FieldOrder::ascending;
        else if (lower == "descending")
            field.order = FieldOrder::descending;
        else if (lower == "ignore")
            field.order = FieldOrder::ignore;
        else
            return refuse("Invalid order " + order->dump() + " for field " + field.name +
                          ": must be ascending, descending or ignore");
        return true;
    }

    bool read_field_default(Field& field, const Json& field_json) {
        const auto given = field_json.find("default");
        if (given == field_json.end())
            return true;
        Json value = *given;
        // Avro Java reads a float or double field's textual default as a number ("NaN" too).
        const Type kind = field.type->type;
        if ((kind == Type::float_ || kind == Type::double_) && value.is_string())
            if (const auto number = parse_java_double(value.get<std::string>()))
                value = *number;
        if (!is_valid_default(*field.type, value))
            return refuse(
                "Invalid default for field " + field.name + ": " + describe(*given) + " not a " +
                (is_named(kind) ? field.type->full_name() : std::string(type_name(kind))));
        field.default_value = std::move(value);
        return true;
    }

    SchemaTree& tree_;
    std::map<std::string, Node*> named_;  // full name -> definition, references' included
    std::string error_;
    bool from_reference_ = false;
};

}  // namespace

ReadResult read_schema(std::string_view text, const std::vector<ResolvedReference>& references) {
    auto tree = std::make_unique<SchemaTree>();
    SchemaReader reader(*tree);
    for (const auto& reference : references) {
        Node* root = reader.read_text(reference.schema, /*from_reference=*/true);
        if (root == nullptr)
            return {nullptr,
                    valid_utf8("Invalid reference " + reference.name + " (subject " +
                               reference.subject + ", version " +
                               std::to_string(reference.version) + "): " + reader.error())};
        tree->reference_roots.push_back(root);
    }
    tree->root = reader.read_text(text, /*from_reference=*/false);
    if (tree->root == nullptr)
        return {nullptr, valid_utf8(reader.error())};
    return {std::move(tree), {}};
}

}  // namespace skiff::schema_registry::avro
