#include "broker/schema_registry/formats/json_schema_canonical.h"

#include "broker/schema_registry/formats/jackson_string.h"

#include <algorithm>
#include <charconv>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace skiff::schema_registry::json_schema {
namespace {

struct WrittenMember;

// A JSON value with its scalars already written as Jackson writes them.
struct WrittenValue {
    enum class Shape { kScalar, kObject, kArray } shape = Shape::kScalar;
    std::string scalar;
    std::vector<WrittenMember> members;
    std::vector<WrittenValue> items;
};

// An object's member, name and value: a type of its own, since a std::pair holding the still
// incomplete WrittenValue is not allowed (clang refuses it; GCC let it through).
struct WrittenMember {
    std::string first;
    WrittenValue second;
};

// Jackson's string escaping (jackson_string.h).
std::string json_quoted(std::string_view text) {
    std::string out;
    append_jackson_string(out, text);
    return out;
}

// A decimal as Java's BigDecimal(text).toString() writes it: the digits and the scale are the
// text's own (trailing zeros kept), in plain notation when the scale is not negative and the
// exponent not below -6, in scientific notation ("1E+2", "1.5E-7") otherwise.
std::string big_decimal_text(std::string_view lexeme) {
    bool negative = !lexeme.empty() && lexeme[0] == '-';
    if (negative)
        lexeme.remove_prefix(1);
    std::size_t e = lexeme.find_first_of("eE");
    std::string_view mantissa = lexeme.substr(0, e);
    long long exponent = 0;
    if (e != std::string_view::npos) {
        std::string_view text = lexeme.substr(e + 1);
        if (!text.empty() && text[0] == '+')
            text.remove_prefix(1);
        auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), exponent);
        // An exponent beyond 64 bits: no schema means it, and no notation would be shorter.
        if (error != std::errc() || end != text.data() + text.size() || exponent > (1LL << 40) ||
            exponent < -(1LL << 40))
            return std::string(negative ? "-" : "") + std::string(lexeme);
    }
    std::size_t point = mantissa.find('.');
    std::string digits(mantissa.substr(0, point));
    long long scale = 0;
    if (point != std::string_view::npos) {
        digits += mantissa.substr(point + 1);
        scale = static_cast<long long>(mantissa.size() - point - 1);
    }
    scale -= exponent;
    digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size() - 1));
    bool zero = digits == "0";
    long long count = static_cast<long long>(digits.size());
    long long adjusted = count - 1 - scale;
    std::string out = negative && !zero ? "-" : "";
    if (scale >= 0 && adjusted >= -6) {
        if (scale == 0)
            out += digits;
        else if (count > scale)
            out += digits.substr(0, count - scale) + "." + digits.substr(count - scale);
        else
            out += "0." + std::string(scale - count, '0') + digits;
    } else {
        out += digits.substr(0, 1);
        if (count > 1)
            out += "." + digits.substr(1);
        out += "E";
        out += adjusted >= 0 ? "+" : "";
        out += std::to_string(adjusted);
    }
    return out;
}

// Builds the WrittenValue tree from nlohmann's SAX events.
class TreeWriter : public nlohmann::json_sax<nlohmann::json> {
  public:
    WrittenValue root;

    bool null() override { return scalar("null"); }
    bool boolean(bool value) override { return scalar(value ? "true" : "false"); }
    bool number_integer(number_integer_t value) override { return scalar(std::to_string(value)); }
    bool number_unsigned(number_unsigned_t value) override { return scalar(std::to_string(value)); }
    bool number_float(number_float_t, const string_t& lexeme) override {
        // An integer too large for 64 bits arrives here too: Jackson keeps its digits.
        if (lexeme.find_first_of(".eE") == std::string::npos)
            return scalar(lexeme);
        return scalar(big_decimal_text(lexeme));
    }
    bool string(string_t& value) override { return scalar(json_quoted(value)); }
    bool binary(binary_t&) override { return false; }
    bool start_object(std::size_t) override {
        WrittenValue& value = place();
        value = WrittenValue{WrittenValue::Shape::kObject, {}, {}, {}};
        open_.push_back({&value, {}});
        return true;
    }
    bool key(string_t& name) override {
        Open& object = open_.back();
        auto [it, added] = object.index.try_emplace(name, object.value->members.size());
        if (added)
            object.value->members.push_back(WrittenMember{name, WrittenValue{}});
        // A repeated key keeps its first place and takes the new value, as in Jackson's tree.
        next_ = &object.value->members[it->second].second;
        return true;
    }
    bool end_object() override {
        open_.pop_back();
        return true;
    }
    bool start_array(std::size_t) override {
        WrittenValue& value = place();
        value = WrittenValue{WrittenValue::Shape::kArray, {}, {}, {}};
        open_.push_back({&value, {}});
        return true;
    }
    bool end_array() override {
        open_.pop_back();
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
        return false;
    }

  private:
    struct Open {
        WrittenValue* value;
        std::unordered_map<std::string, std::size_t> index;  // objects: key to member
    };

    // Where the next value goes: the root, the member whose key came last, or a new item.
    WrittenValue& place() {
        if (open_.empty())
            return root;
        WrittenValue* container = open_.back().value;
        if (container->shape == WrittenValue::Shape::kArray) {
            container->items.emplace_back();
            return container->items.back();
        }
        return *next_;
    }

    bool scalar(std::string text) {
        WrittenValue& value = place();
        value = WrittenValue{WrittenValue::Shape::kScalar, std::move(text), {}, {}};
        return true;
    }

    std::vector<Open> open_;
    WrittenValue* next_ = nullptr;
};

void write(WrittenValue& value, bool sorted, std::string& out) {
    switch (value.shape) {
        case WrittenValue::Shape::kScalar:
            out += value.scalar;
            return;
        case WrittenValue::Shape::kArray:
            out.push_back('[');
            for (std::size_t i = 0; i < value.items.size(); ++i) {
                if (i > 0)
                    out.push_back(',');
                write(value.items[i], sorted, out);
            }
            out.push_back(']');
            return;
        case WrittenValue::Shape::kObject:
            if (sorted)
                std::sort(value.members.begin(), value.members.end(),
                          [](const auto& a, const auto& b) { return a.first < b.first; });
            out.push_back('{');
            for (std::size_t i = 0; i < value.members.size(); ++i) {
                if (i > 0)
                    out.push_back(',');
                out += json_quoted(value.members[i].first);
                out.push_back(':');
                write(value.members[i].second, sorted, out);
            }
            out.push_back('}');
            return;
    }
}

}  // namespace

std::string canonical_text(std::string_view json, bool normalize) {
    TreeWriter tree;
    nlohmann::json::sax_parse(json.begin(), json.end(), &tree);
    std::string out;
    write(tree.root, normalize, out);
    return out;
}

}  // namespace skiff::schema_registry::json_schema
