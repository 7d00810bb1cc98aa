#include "broker/schema_registry/formats/protobuf_option_printer.h"

#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/stubs/strutil.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <memory>

namespace skiff::schema_registry::protobuf {
namespace {

namespace gp = google::protobuf;

std::string trim_right(std::string text) {
    while (!text.empty() && (text.back() == ' ' || text.back() == '\n'))
        text.pop_back();
    return text;
}

std::string option_value(const gp::TextFormat::Printer& printer, const gp::Message& options,
                         const gp::FieldDescriptor& field, int index) {
    std::string value;
    printer.PrintFieldValueToString(options, &field, index, &value);
    if (field.cpp_type() == gp::FieldDescriptor::CPPTYPE_MESSAGE)
        return "{ " + trim_right(value) + " }";
    return value;
}

// The json_name protoc derives from a field's name; only a different one was written explicitly.
std::string default_json_name(const std::string& name) {
    std::string json;
    bool capitalize_next = false;
    for (char c : name) {
        if (c == '_') {
            capitalize_next = true;
        } else if (capitalize_next) {
            json += char(std::toupper(static_cast<unsigned char>(c)));
            capitalize_next = false;
        } else {
            json += c;
        }
    }
    return json;
}

std::string name_of(const std::string& assignment) {
    return assignment.substr(0, assignment.find(' '));
}

}  // namespace

std::vector<std::string> option_assignments(const gp::Message& options,
                                            const gp::DescriptorPool& pool) {
    // Custom options are extensions the compiled-in options types do not know: libprotobuf keeps
    // them as unknown fields. Re-reading the options as the schema pool's own type of the same
    // name (present whenever the schema imports descriptor.proto, which custom options need)
    // makes them ordinary extension fields.
    gp::DynamicMessageFactory factory;
    std::unique_ptr<gp::Message> with_extensions;
    const gp::Message* readable = &options;
    if (const auto* type = pool.FindMessageTypeByName(options.GetDescriptor()->full_name())) {
        with_extensions.reset(factory.GetPrototype(type)->New());
        if (with_extensions->ParseFromString(options.SerializeAsString()))
            readable = with_extensions.get();
    }

    gp::TextFormat::Printer printer;
    printer.SetSingleLineMode(true);
    std::vector<const gp::FieldDescriptor*> fields;
    readable->GetReflection()->ListFields(*readable, &fields);
    std::vector<std::pair<std::string, std::string>> named;
    for (const auto* field : fields) {
        const std::string name =
            field->is_extension() ? "(" + field->full_name() + ")" : field->name();
        if (!field->is_repeated()) {
            named.emplace_back(name, option_value(printer, *readable, *field, -1));
            continue;
        }
        // A repeated option is written once per element, in the elements' order.
        const int count = readable->GetReflection()->FieldSize(*readable, field);
        for (int i = 0; i < count; ++i)
            named.emplace_back(name, option_value(printer, *readable, *field, i));
    }
    std::stable_sort(named.begin(), named.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::string> assignments;
    assignments.reserve(named.size());
    for (auto& [name, value] : named)
        assignments.push_back(name.append(" = ").append(value));
    return assignments;
}

std::string bracketed(const std::vector<std::string>& assignments) {
    std::string out;
    for (size_t i = 0; i < assignments.size(); ++i)
        out += (i ? ", " : " [") + assignments[i];
    return assignments.empty() ? out : out + "]";
}

std::string field_option_list(const gp::FieldDescriptor& field,
                              const gp::FieldDescriptorProto& written,
                              const gp::DescriptorPool& pool) {
    std::vector<std::string> assignments = option_assignments(field.options(), pool);
    if (written.has_default_value()) {
        std::string value = written.default_value();
        // A string default is stored unescaped, a bytes default already C-escaped.
        if (field.type() == gp::FieldDescriptor::TYPE_STRING)
            value = "\"" + gp::CEscape(value) + "\"";
        else if (field.type() == gp::FieldDescriptor::TYPE_BYTES)
            value = "\"" + value + "\"";
        assignments.push_back("default = " + value);
    }
    if (field.has_json_name() && field.json_name() != default_json_name(field.name()))
        assignments.push_back("json_name = \"" + gp::CEscape(field.json_name()) + "\"");
    std::stable_sort(assignments.begin(), assignments.end(),
                     [](const auto& a, const auto& b) { return name_of(a) < name_of(b); });
    return bracketed(assignments);
}

}  // namespace skiff::schema_registry::protobuf
