#include "broker/schema_registry/formats/avro_libavro_check.h"

#include <avro.h>

#include <mutex>

namespace skiff::schema_registry::avro {
namespace {

std::mutex& libavro_mutex() {
    static std::mutex mutex;
    return mutex;
}

// A record name that none of the texts contains, so the wrapper cannot clash with a type of
// theirs.
std::string wrapper_name(std::string_view text, const std::vector<ResolvedReference>& references) {
    auto used = [&](const std::string& name) {
        if (text.find(name) != std::string_view::npos)
            return true;
        for (const auto& reference : references)
            if (reference.schema.find(name) != std::string::npos)
                return true;
        return false;
    };
    std::string name = "skiff_reference_scope";
    for (int suffix = 1; used(name); ++suffix)
        name = "skiff_reference_scope_" + std::to_string(suffix);
    return name;
}

// {"type":"record","name":W,"fields":[{"name":"r0","type":<reference 0>}, ...,
//  {"name":"schema","type":<text>}]}: the texts are pasted verbatim, being JSON values already.
std::string wrap(std::string_view text, const std::vector<ResolvedReference>& references) {
    std::string wrapped =
        R"({"type":"record","name":")" + wrapper_name(text, references) + R"(","fields":[)";
    for (size_t i = 0; i < references.size(); ++i)
        wrapped +=
            R"({"name":"r)" + std::to_string(i) + R"(","type":)" + references[i].schema + "},";
    wrapped += R"({"name":"schema","type":)";
    wrapped += text;
    wrapped += "}]}";
    return wrapped;
}

}  // namespace

std::string libavro_parse_error(std::string_view text,
                                const std::vector<ResolvedReference>& references) {
    const std::string input = references.empty() ? std::string(text) : wrap(text, references);
    std::lock_guard lock(libavro_mutex());
    avro_schema_t schema = nullptr;
    if (avro_schema_from_json_length(input.data(), input.size(), &schema) != 0)
        return std::string("libavro: ") + avro_strerror();
    avro_schema_decref(schema);
    return {};
}

}  // namespace skiff::schema_registry::avro
