#include "broker/console/avro_encode.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

namespace skiff::broker::console {
namespace avro_encode_impl {

using schema_registry::avro::Node;
using schema_registry::avro::Type;
using schema_registry::avro::type_name;

// Thrown inside the writer only, turned into the error text at its one entry point.
struct EncodeError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class DatumWriter {
  public:
    // `visited` counts the values looked at by this writer and by the ones it tries union
    // branches with, so that trying branches can never multiply the work without bound.
    DatumWriter(const AvroDatumLimits& limits, size_t& visited)
        : limits_(limits), visited_(visited) {}

    void write(const Node& node, const nlohmann::json& value, const std::string& path,
               size_t depth) {
        if (depth > limits_.max_depth)
            fail(path, "the value nests deeper than " + std::to_string(limits_.max_depth));
        if (++visited_ > limits_.max_values)
            fail(path, "more than " + std::to_string(limits_.max_values) + " values");
        switch (node.type) {
            case Type::null_:
                if (!value.is_null())
                    fail(path, "expected null");
                return;
            case Type::boolean:
                if (!value.is_boolean())
                    fail(path, "expected true or false");
                out_.push_back(value.get<bool>() ? '\1' : '\0');
                return;
            case Type::int_:
                write_long(integer(value, path, std::numeric_limits<int32_t>::min(),
                                   std::numeric_limits<int32_t>::max()));
                return;
            case Type::long_:
                write_long(integer(value, path, std::numeric_limits<int64_t>::min(),
                                   std::numeric_limits<int64_t>::max()));
                return;
            case Type::float_:
                write_le(std::bit_cast<uint32_t>(static_cast<float>(number(value, path))), 4);
                return;
            case Type::double_:
                write_le(std::bit_cast<uint64_t>(number(value, path)), 8);
                return;
            case Type::string:
                if (!value.is_string())
                    fail(path, "expected a string");
                write_length_prefixed(value.get_ref<const std::string&>());
                return;
            case Type::bytes:
                write_length_prefixed(latin1_bytes(value, path));
                return;
            case Type::fixed: {
                const auto bytes = latin1_bytes(value, path);
                if (static_cast<int64_t>(bytes.size()) != node.size)
                    fail(path, "expected " + std::to_string(node.size) + " bytes for fixed " +
                                   node.full_name() + ", got " + std::to_string(bytes.size()));
                out_ += bytes;
                return;
            }
            case Type::enum_:
                write_enum(node, value, path);
                return;
            case Type::record:
                write_record(node, value, path, depth);
                return;
            case Type::array:
                if (!value.is_array())
                    fail(path, "expected an array");
                if (!value.empty()) {
                    write_long(static_cast<int64_t>(value.size()));
                    for (size_t i = 0; i < value.size(); ++i)
                        write(*node.items, value[i], path + "[" + std::to_string(i) + "]",
                              depth + 1);
                }
                write_long(0);
                return;
            case Type::map:
                if (!value.is_object())
                    fail(path, "expected an object (a map)");
                if (!value.empty()) {
                    write_long(static_cast<int64_t>(value.size()));
                    for (const auto& [key, item] : value.items()) {
                        write_length_prefixed(key);
                        write(*node.items, item, child(path, key), depth + 1);
                    }
                }
                write_long(0);
                return;
            case Type::union_:
                write_union(node, value, path, depth);
                return;
        }
        fail(path, "a type the writer does not know");
    }

    std::string take() { return std::move(out_); }

  private:
    [[noreturn]] static void fail(const std::string& path, const std::string& what) {
        throw EncodeError(path.empty() ? what : path + ": " + what);
    }

    static std::string child(const std::string& path, const std::string& name) {
        return path.empty() ? name : path + "." + name;
    }

    static int64_t integer(const nlohmann::json& value, const std::string& path, int64_t min,
                           int64_t max) {
        if (value.is_number_integer()) {
            if (value.is_number_unsigned() && value.get<uint64_t>() > static_cast<uint64_t>(max))
                fail(path, "out of range");
            const auto v = value.get<int64_t>();
            if (v < min || v > max)
                fail(path, "out of range");
            return v;
        }
        fail(path, "expected an integer");
    }

    static double number(const nlohmann::json& value, const std::string& path) {
        if (!value.is_number())
            fail(path, "expected a number");
        return value.get<double>();
    }

    // Avro's JSON encoding of bytes: each code point U+0000 ... U+00FF is one byte.
    static std::string latin1_bytes(const nlohmann::json& value, const std::string& path) {
        if (!value.is_string())
            fail(path, "expected a string of code points U+0000 to U+00FF (Avro's bytes)");
        const auto& text = value.get_ref<const std::string&>();
        std::string out;
        out.reserve(text.size());
        for (size_t i = 0; i < text.size(); ++i) {
            const auto c = static_cast<uint8_t>(text[i]);
            if (c < 0x80) {
                out.push_back(static_cast<char>(c));
            } else if ((c == 0xC2 || c == 0xC3) && i + 1 < text.size() &&
                       (static_cast<uint8_t>(text[i + 1]) & 0xC0) == 0x80) {
                out.push_back(static_cast<char>(((c & 0x03) << 6) |
                                                (static_cast<uint8_t>(text[i + 1]) & 0x3F)));
                ++i;
            } else {
                fail(path, "a code point above U+00FF in bytes");
            }
        }
        return out;
    }

    void write_enum(const Node& node, const nlohmann::json& value, const std::string& path) {
        if (!value.is_string())
            fail(path, "expected a symbol of enum " + node.full_name());
        const auto& symbol = value.get_ref<const std::string&>();
        for (size_t i = 0; i < node.symbols.size(); ++i) {
            if (node.symbols[i] == symbol) {
                write_long(static_cast<int64_t>(i));
                return;
            }
        }
        fail(path, "\"" + symbol + "\" is not a symbol of enum " + node.full_name());
    }

    void write_record(const Node& node, const nlohmann::json& value, const std::string& path,
                      size_t depth) {
        if (!value.is_object())
            fail(path, "expected an object (record " + node.full_name() + ")");
        size_t matched = 0;
        for (const auto& field : node.fields) {
            const auto it = value.find(field.name);
            if (it != value.end()) {
                ++matched;
                write(*field.type, *it, child(path, field.name), depth + 1);
            } else if (field.default_value) {
                write_default(field, child(path, field.name), depth + 1);
            } else {
                fail(child(path, field.name), "missing, and the field has no default");
            }
        }
        if (matched != value.size()) {
            for (const auto& [key, _] : value.items()) {
                bool known = false;
                for (const auto& field : node.fields)
                    known = known || field.name == key;
                if (!known)
                    fail(child(path, key), "not a field of record " + node.full_name());
            }
        }
    }

    // A default is written in the JSON encoding of the field's type, except that a union's
    // default is a value of its first branch, unwrapped.
    void write_default(const schema_registry::avro::Field& field, const std::string& path,
                       size_t depth) {
        const auto value = nlohmann::json::parse(field.default_value->dump());
        if (field.type->type == Type::union_ && !field.type->branches.empty()) {
            write_long(0);
            write(*field.type->branches.front(), value, path, depth + 1);
        } else {
            write(*field.type, value, path, depth);
        }
    }

    // {"branch": value} with the branch's type name or (short or full) name, null, or else the
    // first branch that takes the value as it is.
    void write_union(const Node& node, const nlohmann::json& value, const std::string& path,
                     size_t depth) {
        if (value.is_object() && value.size() == 1) {
            // Through the object's own iterator: a structured binding of items() would refer
            // into a proxy that is gone by the next line.
            const auto only = value.begin();
            const std::string& name = only.key();
            const nlohmann::json& inner = only.value();
            for (size_t i = 0; i < node.branches.size(); ++i) {
                if (branch_name_matches(*node.branches[i], name)) {
                    write_long(static_cast<int64_t>(i));
                    write(*node.branches[i], inner, path, depth + 1);
                    return;
                }
            }
        }
        for (size_t i = 0; i < node.branches.size(); ++i) {
            DatumWriter attempt(limits_, visited_);
            try {
                attempt.write(*node.branches[i], value, path, depth + 1);
            } catch (const EncodeError&) {
                continue;
            }
            write_long(static_cast<int64_t>(i));
            out_ += attempt.out_;
            return;
        }
        fail(path, "no branch of the union takes this value; write it as {\"<type>\": value}");
    }

    static bool branch_name_matches(const Node& branch, const std::string& name) {
        if (schema_registry::avro::is_named(branch.type))
            return name == branch.full_name() || name == branch.name;
        return name == type_name(branch.type);
    }

    void write_long(int64_t v) {
        auto zigzag = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
        while (zigzag >= 0x80) {
            out_.push_back(static_cast<char>((zigzag & 0x7F) | 0x80));
            zigzag >>= 7;
        }
        out_.push_back(static_cast<char>(zigzag));
    }

    void write_le(uint64_t bits, size_t bytes) {
        for (size_t i = 0; i < bytes; ++i)
            out_.push_back(static_cast<char>((bits >> (8 * i)) & 0xFF));
    }

    void write_length_prefixed(const std::string& bytes) {
        write_long(static_cast<int64_t>(bytes.size()));
        out_ += bytes;
    }

    const AvroDatumLimits& limits_;
    size_t& visited_;
    std::string out_;
};

}  // namespace avro_encode_impl

Expected<std::string, std::string> write_avro_datum(const schema_registry::avro::Node& schema,
                                                    const nlohmann::json& value,
                                                    const AvroDatumLimits& limits) {
    using namespace avro_encode_impl;  // this file's own helpers
    size_t visited = 0;
    DatumWriter writer(limits, visited);
    try {
        writer.write(schema, value, "", 0);
        return writer.take();
    } catch (const EncodeError& e) {
        return unexpected(std::string(e.what()));
    }
}

}  // namespace skiff::broker::console
