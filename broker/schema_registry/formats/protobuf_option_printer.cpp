#include "broker/schema_registry/formats/protobuf_option_printer.h"

#include <google/protobuf/dynamic_message.h>
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
    for (auto& [name, value] : named)
        assignments.push_back(name + " = " + value);
    return assignments;
}

}  // namespace skiff::schema_registry::protobuf
