#include "broker/schema_registry/formats/protobuf_printer.h"

#include "broker/schema_registry/formats/protobuf_option_printer.h"
#include "broker/schema_registry/formats/protobuf_schema.h"

#include <algorithm>
#include <map>
#include <vector>

namespace skiff::schema_registry::protobuf {
namespace {

namespace gp = google::protobuf;

std::string pad(int depth) {
    return std::string(size_t(depth) * 2, ' ');
}

// "a, b to c" parts of reserved and extensions statements; `last` is inclusive.
std::string number_range(int first, int last, int max) {
    if (first == last)
        return std::to_string(first);
    return std::to_string(first) + " to " + (last == max ? "max" : std::to_string(last));
}

struct Range {
    int first;
    std::string text;
};

class SchemaPrinter {
  public:
    SchemaPrinter(const gp::FileDescriptor& file, bool normalize)
        : file_(file), pool_(*file.pool()), normalize_(normalize) {}

    std::string print(const gp::FileDescriptorProto& written) const {
        std::string out;
        if (file_.syntax() == gp::FileDescriptor::SYNTAX_PROTO3)
            out += "syntax = \"proto3\";\n";
        else if (!normalize_)
            out += "syntax = \"proto2\";\n";
        if (!file_.package().empty())
            out += "package " + file_.package() + ";\n";
        out += section(imports());
        out += section(options(file_.options(), 0));
        std::string types;
        for (int i = 0; i < file_.message_type_count(); ++i) {
            // A group of a file-level extend is printed inside its extend block.
            if (!is_group_type(*file_.message_type(i)))
                types += message(*file_.message_type(i), written.message_type(i), 0);
        }
        for (int i = 0; i < file_.enum_type_count(); ++i)
            types += enumeration(*file_.enum_type(i), 0);
        out += section(types);
        out += section(extends(file_, written.extension(), 0));
        std::string services;
        for (int i = 0; i < file_.service_count(); ++i)
            services += service(*file_.service(i), written.service(i));
        out += section(services);
        return out;
    }

  private:
    static std::string section(const std::string& text) { return text.empty() ? "" : "\n" + text; }

    // "header {", each non-empty section after a line break, "}"; "header {}" when all are empty.
    static std::string block(const std::string& header, const std::vector<std::string>& sections,
                             int depth) {
        std::string out = pad(depth) + header + " {";
        bool any = false;
        for (const auto& text : sections) {
            if (text.empty())
                continue;
            out += "\n" + text;
            any = true;
        }
        return out + (any ? pad(depth) : "") + "}\n";
    }

    std::string imports() const {
        std::vector<std::string> plain;
        std::vector<std::string> public_ones;
        std::vector<std::string> weak;
        plain.reserve(static_cast<size_t>(file_.dependency_count()));
        public_ones.reserve(static_cast<size_t>(file_.public_dependency_count()));
        weak.reserve(static_cast<size_t>(file_.weak_dependency_count()));
        for (int i = 0; i < file_.dependency_count(); ++i)
            plain.push_back(file_.dependency(i)->name());
        for (int i = 0; i < file_.public_dependency_count(); ++i)
            public_ones.push_back(file_.public_dependency(i)->name());
        for (int i = 0; i < file_.weak_dependency_count(); ++i)
            weak.push_back(file_.weak_dependency(i)->name());
        // dependency() lists every import; public and weak ones are printed with their keyword.
        auto not_in = [](const std::vector<std::string>& names) {
            return [&names](const std::string& name) {
                return std::find(names.begin(), names.end(), name) != names.end();
            };
        };
        plain.erase(std::remove_if(plain.begin(), plain.end(), not_in(public_ones)), plain.end());
        plain.erase(std::remove_if(plain.begin(), plain.end(), not_in(weak)), plain.end());
        std::string out;
        for (auto* names : {&plain, &public_ones, &weak}) {
            if (normalize_)
                std::sort(names->begin(), names->end());
            const char* keyword = names == &plain         ? ""
                                  : names == &public_ones ? "public "
                                                          : "weak ";
            for (const auto& name : *names)
                out += "import " + std::string(keyword) + "\"" + name + "\";\n";
        }
        return out;
    }

    std::string options(const gp::Message& options, int depth) const {
        std::string out;
        for (const auto& assignment : option_assignments(options, pool_))
            out += pad(depth) + "option " + assignment + ";\n";
        return out;
    }

    // The type of a message or enum field: as written, or fully qualified when normalizing.
    std::string named_type(const std::string& full_name, const std::string& written) const {
        return normalize_ || written.empty() ? "." + full_name : written;
    }

    std::string field_type(const gp::FieldDescriptor& field,
                           const gp::FieldDescriptorProto& written,
                           const gp::DescriptorProto* written_entry) const {
        if (field.is_map()) {
            const auto* value = field.message_type()->map_value();
            std::string value_type = value->type_name();
            if (value->message_type() || value->enum_type()) {
                const auto& full = value->message_type() ? value->message_type()->full_name()
                                                         : value->enum_type()->full_name();
                value_type = named_type(
                    full, written_entry ? written_entry->field(1).type_name() : std::string());
            }
            return "map<" + std::string(field.message_type()->map_key()->type_name()) + ", " +
                   value_type + ">";
        }
        if (field.message_type())
            return named_type(field.message_type()->full_name(), written.type_name());
        if (field.enum_type())
            return named_type(field.enum_type()->full_name(), written.type_name());
        return field.type_name();
    }

    static std::string label(const gp::FieldDescriptor& field) {
        if (field.is_map() || field.real_containing_oneof())
            return "";
        if (field.is_repeated())
            return "repeated ";
        if (field.is_required())
            return "required ";
        if (field.file()->syntax() == gp::FileDescriptor::SYNTAX_PROTO2 ||
            field.has_optional_keyword())
            return "optional ";
        return "";
    }

    // A message field of the schema's own nested types, by name: the written proto of a map
    // entry or a group is found beside the field's.
    static const gp::DescriptorProto* written_nested(const gp::DescriptorProto* written_parent,
                                                     const std::string& name) {
        if (!written_parent)
            return nullptr;
        for (const auto& nested : written_parent->nested_type())
            if (nested.name() == name)
                return &nested;
        return nullptr;
    }

    std::string field(const gp::FieldDescriptor& field, const gp::FieldDescriptorProto& written,
                      const gp::DescriptorProto* written_parent, int depth) const {
        if (field.type() == gp::FieldDescriptor::TYPE_GROUP) {
            const auto& group = *field.message_type();
            const auto* written_group = written_nested(written_parent, group.name());
            return message_body(group, written_group ? *written_group : gp::DescriptorProto(),
                                label(field) + "group " + group.name() + " = " +
                                    std::to_string(field.number()) +
                                    field_option_list(field, written, pool_),
                                depth);
        }
        const auto* entry =
            field.is_map() ? written_nested(written_parent, field.message_type()->name()) : nullptr;
        return pad(depth) + label(field) + field_type(field, written, entry) + " " + field.name() +
               " = " + std::to_string(field.number()) + field_option_list(field, written, pool_) +
               ";\n";
    }

    template <typename Container>
    std::vector<int> indexes_by_number(const Container& count_and_number, int count) const {
        std::vector<int> order(size_t(count), 0);
        for (int i = 0; i < count; ++i)
            order[size_t(i)] = i;
        if (normalize_)
            std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
                return count_and_number(a) < count_and_number(b);
            });
        return order;
    }

    std::string reserved(std::vector<Range> numbers, std::vector<std::string> names,
                         int depth) const {
        if (normalize_) {
            std::stable_sort(numbers.begin(), numbers.end(),
                             [](const Range& a, const Range& b) { return a.first < b.first; });
            std::sort(names.begin(), names.end());
        }
        std::string out;
        for (const auto& range : numbers)
            out += pad(depth) + "reserved " + range.text + ";\n";
        for (const auto& name : names)
            out += pad(depth) + "reserved \"" + name + "\";\n";
        return out;
    }

    std::string message(const gp::Descriptor& message, const gp::DescriptorProto& written,
                        int depth) const {
        return message_body(message, written, "message " + message.name(), depth);
    }

    std::string message_body(const gp::Descriptor& message, const gp::DescriptorProto& as_read,
                             const std::string& header, int depth) const {
        const int inner = depth + 1;
        // The proto as read lines up with the descriptor element for element. Where it cannot be
        // found (a group declared in an extend block), the resolved proto stands in: its type
        // names are fully qualified, which is still valid text.
        gp::DescriptorProto resolved;
        const bool lines_up = as_read.field_size() == message.field_count() &&
                              as_read.nested_type_size() == message.nested_type_count() &&
                              as_read.extension_size() == message.extension_count();
        if (!lines_up)
            message.CopyTo(&resolved);
        const gp::DescriptorProto& written = lines_up ? as_read : resolved;
        std::vector<Range> numbers;
        for (int i = 0; i < message.reserved_range_count(); ++i) {
            const auto* range = message.reserved_range(i);
            numbers.push_back({range->start, number_range(range->start, range->end - 1,
                                                          gp::FieldDescriptor::kMaxNumber)});
        }
        std::vector<std::string> names;
        names.reserve(static_cast<size_t>(message.reserved_name_count()));
        for (int i = 0; i < message.reserved_name_count(); ++i)
            names.push_back(message.reserved_name(i));

        auto by_number = [&](int i) { return message.field(i)->number(); };
        std::string fields;
        for (int i : indexes_by_number(by_number, message.field_count())) {
            if (!message.field(i)->real_containing_oneof())
                fields += field(*message.field(i), written.field(i), &written, inner);
        }

        std::string oneofs;
        std::vector<const gp::OneofDescriptor*> real_oneofs;
        real_oneofs.reserve(static_cast<size_t>(message.real_oneof_decl_count()));
        for (int i = 0; i < message.real_oneof_decl_count(); ++i)
            real_oneofs.push_back(message.oneof_decl(i));
        if (normalize_)
            std::stable_sort(real_oneofs.begin(), real_oneofs.end(), [](auto* a, auto* b) {
                return lowest_number(*a) < lowest_number(*b);
            });
        for (const auto* oneof : real_oneofs) {
            std::string members;
            for (int i : indexes_by_number(by_number, message.field_count())) {
                if (message.field(i)->real_containing_oneof() == oneof)
                    members += field(*message.field(i), written.field(i), &written, inner + 1);
            }
            oneofs += block("oneof " + oneof->name(),
                            {options(oneof->options(), inner + 1), members}, inner);
        }

        std::vector<Range> extension_ranges;
        for (int i = 0; i < message.extension_range_count(); ++i) {
            const auto* range = message.extension_range(i);
            std::string text =
                number_range(range->start, range->end - 1, gp::FieldDescriptor::kMaxNumber);
            text += bracketed(option_assignments(*range->options_, pool_));
            extension_ranges.push_back({range->start, text});
        }
        if (normalize_)
            std::stable_sort(extension_ranges.begin(), extension_ranges.end(),
                             [](const Range& a, const Range& b) { return a.first < b.first; });
        std::string extensions;
        for (const auto& range : extension_ranges)
            extensions += pad(inner) + "extensions " + range.text + ";\n";

        std::string nested;
        for (int i = 0; i < message.nested_type_count(); ++i) {
            const auto& type = *message.nested_type(i);
            // Map entries are written as map<K, V> fields and groups with their field.
            if (type.options().map_entry() || is_group_type(type))
                continue;
            nested += this->message(type, written.nested_type(i), inner);
        }
        for (int i = 0; i < message.enum_type_count(); ++i)
            nested += enumeration(*message.enum_type(i), inner);

        return block(header,
                     {reserved(numbers, names, inner), options(message.options(), inner), fields,
                      oneofs, extensions, extends(message, written.extension(), inner), nested},
                     depth);
    }

    static int lowest_number(const gp::OneofDescriptor& oneof) {
        int lowest = gp::FieldDescriptor::kMaxNumber;
        for (int i = 0; i < oneof.field_count(); ++i)
            lowest = std::min(lowest, oneof.field(i)->number());
        return lowest;
    }

    // `extend` blocks of a file or message, one per extended type in order of first use.
    template <typename Scope>
    std::string extends(const Scope& scope,
                        const gp::RepeatedPtrField<gp::FieldDescriptorProto>& written,
                        int depth) const {
        std::vector<std::string> extendees;
        std::map<std::string, std::string> members;
        for (int i = 0; i < scope.extension_count(); ++i) {
            const auto& extension = *scope.extension(i);
            const std::string extendee =
                named_type(extension.containing_type()->full_name(), written.Get(i).extendee());
            if (!members.count(extendee))
                extendees.push_back(extendee);
            members[extendee] += field(extension, written.Get(i), nullptr, depth + 1);
        }
        std::string out;
        for (const auto& extendee : extendees)
            out += block("extend " + extendee, {members[extendee]}, depth);
        return out;
    }

    std::string enumeration(const gp::EnumDescriptor& type, int depth) const {
        const int inner = depth + 1;
        std::vector<Range> numbers;
        for (int i = 0; i < type.reserved_range_count(); ++i) {
            const auto* range = type.reserved_range(i);
            // Enum ranges are inclusive, and may go up to INT32_MAX ("max").
            numbers.push_back({range->start, number_range(range->start, range->end, 0x7fffffff)});
        }
        std::vector<std::string> names;
        names.reserve(static_cast<size_t>(type.reserved_name_count()));
        for (int i = 0; i < type.reserved_name_count(); ++i)
            names.push_back(type.reserved_name(i));
        auto by_number = [&](int i) { return type.value(i)->number(); };
        // Confluent writes the options and the values of an enum as one section.
        std::string body = options(type.options(), inner);
        for (int i : indexes_by_number(by_number, type.value_count())) {
            const auto& value = *type.value(i);
            body += pad(inner) + value.name() + " = " + std::to_string(value.number()) +
                    bracketed(option_assignments(value.options(), pool_)) + ";\n";
        }
        return block("enum " + type.name(), {reserved(numbers, names, inner), body}, depth);
    }

    std::string service(const gp::ServiceDescriptor& service,
                        const gp::ServiceDescriptorProto& written) const {
        std::string methods;
        for (int i = 0; i < service.method_count(); ++i) {
            const auto& method = *service.method(i);
            const auto& written_method = written.method(i);
            std::string line =
                "rpc " + method.name() + " (" + (method.client_streaming() ? "stream " : "") +
                named_type(method.input_type()->full_name(), written_method.input_type()) +
                ") returns (" + (method.server_streaming() ? "stream " : "") +
                named_type(method.output_type()->full_name(), written_method.output_type()) + ")";
            const std::string method_options = options(method.options(), 2);
            methods +=
                method_options.empty() ? pad(1) + line + ";\n" : block(line, {method_options}, 1);
        }
        return block("service " + service.name(), {options(service.options(), 1), methods}, 0);
    }

    const gp::FileDescriptor& file_;
    const gp::DescriptorPool& pool_;
    bool normalize_;
};

}  // namespace

std::string print_schema(const gp::FileDescriptor& file, const gp::FileDescriptorProto& written,
                         bool normalize) {
    return SchemaPrinter(file, normalize).print(written);
}

}  // namespace skiff::schema_registry::protobuf
