#include "broker/console/avro_datum.h"

#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace skiff::broker::console {
namespace avro_datum_impl {

using schema_registry::avro::Node;
using schema_registry::avro::Type;

// Thrown inside the reader only, turned into the error text at its one entry point.
struct DatumError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class DatumReader {
  public:
    DatumReader(std::span<const std::byte> bytes, const AvroDatumLimits& limits)
        : bytes_(bytes), limits_(limits) {}

    nlohmann::json read(const Node& node, size_t depth) {
        if (depth > limits_.max_depth)
            throw DatumError("the value nests deeper than " + std::to_string(limits_.max_depth));
        if (++values_ > limits_.max_values)
            throw DatumError("the value holds more than " + std::to_string(limits_.max_values) +
                             " values");
        switch (node.type) {
            case Type::null_:
                return nullptr;
            case Type::boolean: {
                const auto b = static_cast<uint8_t>(take(1)[0]);
                if (b > 1)
                    throw DatumError("a boolean byte other than 0 or 1");
                return b == 1;
            }
            case Type::int_: {
                const int64_t v = read_long();
                if (v < std::numeric_limits<int32_t>::min() ||
                    v > std::numeric_limits<int32_t>::max())
                    throw DatumError("an int out of range");
                return v;
            }
            case Type::long_:
                return read_long();
            case Type::float_: {
                const auto raw = take(4);
                uint32_t bits = 0;
                for (size_t i = 0; i < 4; ++i)
                    bits |= static_cast<uint32_t>(static_cast<uint8_t>(raw[i])) << (8 * i);
                return static_cast<double>(std::bit_cast<float>(bits));
            }
            case Type::double_: {
                const auto raw = take(8);
                uint64_t bits = 0;
                for (size_t i = 0; i < 8; ++i)
                    bits |= static_cast<uint64_t>(static_cast<uint8_t>(raw[i])) << (8 * i);
                return std::bit_cast<double>(bits);
            }
            case Type::bytes:
                return latin1(take(length()));
            case Type::string: {
                const auto raw = take(length());
                return std::string(reinterpret_cast<const char*>(raw.data()), raw.size());
            }
            case Type::fixed:
                return latin1(take(static_cast<size_t>(node.size)));
            case Type::enum_: {
                const int64_t index = read_long();
                if (index < 0 || static_cast<uint64_t>(index) >= node.symbols.size())
                    throw DatumError("enum index " + std::to_string(index) + " out of range for " +
                                     node.full_name());
                return node.symbols[static_cast<size_t>(index)];
            }
            case Type::union_: {
                const int64_t index = read_long();
                if (index < 0 || static_cast<uint64_t>(index) >= node.branches.size())
                    throw DatumError("union branch " + std::to_string(index) + " out of range");
                return read(*node.branches[static_cast<size_t>(index)], depth + 1);
            }
            case Type::record: {
                nlohmann::json object = nlohmann::json::object();
                for (const auto& field : node.fields)
                    object[field.name] = read(*field.type, depth + 1);
                return object;
            }
            case Type::array: {
                nlohmann::json items = nlohmann::json::array();
                while (const int64_t count = block_count()) {
                    for (int64_t i = 0; i < count; ++i)
                        items.push_back(read(*node.items, depth + 1));
                }
                return items;
            }
            case Type::map: {
                nlohmann::json object = nlohmann::json::object();
                while (const int64_t count = block_count()) {
                    for (int64_t i = 0; i < count; ++i) {
                        const auto raw = take(length());
                        std::string key(reinterpret_cast<const char*>(raw.data()), raw.size());
                        object[key] = read(*node.items, depth + 1);
                    }
                }
                return object;
            }
        }
        throw DatumError("a type the reader does not know");
    }

    size_t left() const { return bytes_.size() - pos_; }

  private:
    std::span<const std::byte> take(size_t n) {
        if (n > left())
            throw DatumError("the value ends early: " + std::to_string(n) + " bytes wanted, " +
                             std::to_string(left()) + " left");
        auto out = bytes_.subspan(pos_, n);
        pos_ += n;
        return out;
    }

    // Zig-zag varint of at most 10 bytes.
    int64_t read_long() {
        uint64_t raw = 0;
        for (int shift = 0; shift < 70; shift += 7) {
            if (left() == 0)
                throw DatumError("the value ends inside a number");
            const auto b = static_cast<uint8_t>(bytes_[pos_++]);
            raw |= static_cast<uint64_t>(b & 0x7F) << shift;
            if ((b & 0x80) == 0)
                return static_cast<int64_t>(raw >> 1) ^ -static_cast<int64_t>(raw & 1);
            if (shift == 63)
                break;
        }
        throw DatumError("a number longer than 10 bytes");
    }

    // A length of bytes or a string: never negative, never past the end.
    size_t length() {
        const int64_t n = read_long();
        if (n < 0)
            throw DatumError("a negative length");
        if (static_cast<uint64_t>(n) > left())
            throw DatumError("a length of " + std::to_string(n) + " bytes past the value's end (" +
                             std::to_string(left()) + " left)");
        return static_cast<size_t>(n);
    }

    // An array or map block's item count (0 ends it); a negative count is followed by the
    // block's size in bytes, which is read and checked only as a number.
    int64_t block_count() {
        int64_t count = read_long();
        if (count < 0) {
            if (count == std::numeric_limits<int64_t>::min())
                throw DatumError("an impossible block count");
            count = -count;
            if (read_long() < 0)
                throw DatumError("a negative block size");
        }
        if (static_cast<uint64_t>(count) > limits_.max_values - values_)
            throw DatumError("a block of " + std::to_string(count) + " items, more than allowed");
        return count;
    }

    // Avro's JSON encoding of bytes: each byte one code point (U+0000 ... U+00FF).
    static std::string latin1(std::span<const std::byte> raw) {
        std::string out;
        out.reserve(raw.size());
        for (const std::byte b : raw) {
            const auto v = static_cast<uint8_t>(b);
            if (v < 0x80) {
                out.push_back(static_cast<char>(v));
            } else {
                out.push_back(static_cast<char>(0xC0 | (v >> 6)));
                out.push_back(static_cast<char>(0x80 | (v & 0x3F)));
            }
        }
        return out;
    }

    std::span<const std::byte> bytes_;
    const AvroDatumLimits& limits_;
    size_t pos_ = 0;
    size_t values_ = 0;
};

}  // namespace avro_datum_impl

Expected<nlohmann::json, std::string> read_avro_datum(const schema_registry::avro::Node& schema,
                                                      std::span<const std::byte> bytes,
                                                      const AvroDatumLimits& limits) {
    using namespace avro_datum_impl;  // this file's own helpers
    DatumReader reader(bytes, limits);
    try {
        auto value = reader.read(schema, 0);
        if (reader.left() != 0)
            return unexpected(std::to_string(reader.left()) + " bytes left after the value");
        return value;
    } catch (const DatumError& e) {
        return unexpected(std::string(e.what()));
    }
}

}  // namespace skiff::broker::console
