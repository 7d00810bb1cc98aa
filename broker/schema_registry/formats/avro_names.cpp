#include "broker/schema_registry/formats/avro_names.h"

#include <algorithm>

#include "broker/schema_registry/formats/avro_schema_tree.h"

namespace skiff::schema_registry::avro {

std::string name_error(std::string_view name) {
    if (name.empty())
        return "Empty name";
    auto letter = [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    };
    if (!letter(name.front()))
        return "Illegal initial character: " + std::string(name);
    for (const char c : name)
        if (!letter(c) && !(c >= '0' && c <= '9'))
            return "Illegal character in: " + std::string(name);
    return {};
}

std::string namespace_error(std::string_view space) {
    if (space.empty())
        return {};
    for (size_t start = 0; start <= space.size();) {
        const auto dot = std::min(space.find('.', start), space.size());
        if (auto why = name_error(space.substr(start, dot - start)); !why.empty())
            return why + " (in namespace " + std::string(space) + ")";
        start = dot + 1;
    }
    return {};
}

std::pair<std::string, std::string> split_full_name(std::string_view full_name) {
    const auto dot = full_name.rfind('.');
    if (dot == std::string_view::npos)
        return {"", std::string(full_name)};
    return {std::string(full_name.substr(0, dot)), std::string(full_name.substr(dot + 1))};
}

std::string full_name_in(std::string_view written, std::string_view space) {
    if (written.find('.') != std::string_view::npos) {
        auto [name_space, name] = split_full_name(written);
        return name_space.empty() ? name : std::string(written);
    }
    return space.empty() ? std::string(written) : std::string(space) + "." + std::string(written);
}

std::string written_name(const std::string& space, const std::string& name,
                         const std::string& enclosing) {
    if (!space.empty() && space == enclosing && !is_type_name(name))
        return name;
    return space.empty() ? name : space + "." + name;
}

}  // namespace skiff::schema_registry::avro
