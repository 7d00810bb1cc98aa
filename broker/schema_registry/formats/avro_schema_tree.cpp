#include "broker/schema_registry/formats/avro_schema_tree.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

namespace skiff::schema_registry::avro {
namespace {

constexpr std::array<std::pair<Type, std::string_view>, 14> kTypeNames{{
    {Type::null_, "null"},
    {Type::boolean, "boolean"},
    {Type::int_, "int"},
    {Type::long_, "long"},
    {Type::float_, "float"},
    {Type::double_, "double"},
    {Type::bytes, "bytes"},
    {Type::string, "string"},
    {Type::record, "record"},
    {Type::enum_, "enum"},
    {Type::array, "array"},
    {Type::map, "map"},
    {Type::union_, "union"},
    {Type::fixed, "fixed"},
}};

}  // namespace

std::string_view type_name(Type type) {
    for (const auto& [t, name] : kTypeNames)
        if (t == type)
            return name;
    return "unknown";
}

std::string java_type_name(Type type) {
    std::string name(type_name(type));
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return name;
}

std::optional<Type> primitive_type(std::string_view name) {
    for (const auto& [t, type_name] : kTypeNames)
        if (type_name == name && !is_named(t) && t != Type::array && t != Type::map &&
            t != Type::union_)
            return t;
    return std::nullopt;
}

bool is_type_name(std::string_view name) {
    return std::any_of(kTypeNames.begin(), kTypeNames.end(),
                       [&](const auto& entry) { return entry.second == name; });
}

}  // namespace skiff::schema_registry::avro
