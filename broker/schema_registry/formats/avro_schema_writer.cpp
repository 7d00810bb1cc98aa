#include "broker/schema_registry/formats/avro_schema_writer.h"

#include <set>

#include "broker/schema_registry/formats/avro_java_json.h"
#include "broker/schema_registry/formats/avro_names.h"

namespace skiff::schema_registry::avro {
namespace {

class SchemaWriter {
  public:
    explicit SchemaWriter(const std::vector<const Node*>& known) {
        for (const Node* node : known)
            written_.insert(node->full_name());
    }

    std::string write(const Node& root) {
        write(root, "");
        return std::move(out_);
    }

  private:
    void write(const Node& node, const std::string& enclosing) {
        switch (node.type) {
            case Type::record:
            case Type::enum_:
            case Type::fixed:
                write_named(node, enclosing);
                return;
            case Type::array:
            case Type::map:
                out_ += R"({"type":")";
                out_ += type_name(node.type);
                out_ += node.type == Type::array ? R"(","items":)" : R"(","values":)";
                write(*node.items, enclosing);
                write_properties(node.properties);
                out_ += '}';
                return;
            case Type::union_: {
                out_ += '[';
                bool first = true;
                for (const Node* branch : node.branches) {
                    if (!first)
                        out_ += ',';
                    first = false;
                    write(*branch, enclosing);
                }
                out_ += ']';
                return;
            }
            default:
                if (node.properties.empty()) {
                    append_json_string(out_, type_name(node.type));
                    return;
                }
                out_ += R"({"type":)";
                append_json_string(out_, type_name(node.type));
                write_properties(node.properties);
                out_ += '}';
        }
    }

    void write_named(const Node& node, const std::string& enclosing) {
        if (!written_.insert(node.full_name()).second) {
            append_json_string(out_, written_name(node.space, node.name, enclosing));
            return;
        }
        out_ += R"({"type":)";
        append_json_string(out_, type_name(node.type));
        out_ += R"(,"name":)";
        append_json_string(out_, node.name);
        if (node.space != enclosing) {
            out_ += R"(,"namespace":)";
            append_json_string(out_, node.space);
        }
        if (node.doc) {
            out_ += R"(,"doc":)";
            append_json_string(out_, *node.doc);
        }
        if (node.type == Type::record) {
            out_ += R"(,"fields":[)";
            bool first = true;
            for (const Field& field : node.fields) {
                if (!first)
                    out_ += ',';
                first = false;
                write_field(field, node.space);
            }
            out_ += ']';
        } else if (node.type == Type::enum_) {
            out_ += R"(,"symbols":)";
            append_json_value(out_, Json(node.symbols));
            if (node.enum_default) {
                out_ += R"(,"default":)";
                append_json_string(out_, *node.enum_default);
            }
        } else {
            out_ += R"(,"size":)";
            out_ += std::to_string(node.size);
        }
        write_properties(node.properties);
        if (!node.aliases.empty()) {
            out_ += R"(,"aliases":[)";
            bool first = true;
            for (const auto& alias : node.aliases) {
                if (!first)
                    out_ += ',';
                first = false;
                const auto [alias_space, alias_name] = split_full_name(alias);
                append_json_string(out_, written_name(alias_space, alias_name, node.space));
            }
            out_ += ']';
        }
        out_ += '}';
    }

    // Inside a record, the record's namespace is the enclosing one.
    void write_field(const Field& field, const std::string& record_space) {
        out_ += R"({"name":)";
        append_json_string(out_, field.name);
        out_ += R"(,"type":)";
        write(*field.type, record_space);
        if (field.doc) {
            out_ += R"(,"doc":)";
            append_json_string(out_, *field.doc);
        }
        if (field.default_value) {
            out_ += R"(,"default":)";
            append_json_value(out_, *field.default_value);
        }
        if (field.order != FieldOrder::ascending)
            out_ += field.order == FieldOrder::descending ? R"(,"order":"descending")"
                                                          : R"(,"order":"ignore")";
        if (!field.aliases.empty()) {
            out_ += R"(,"aliases":)";
            append_json_value(out_, Json(field.aliases));
        }
        write_properties(field.properties);
        out_ += '}';
    }

    void write_properties(const Json& properties) {
        for (const auto& [key, value] : properties.items()) {
            out_ += ',';
            append_json_string(out_, key);
            out_ += ':';
            append_json_value(out_, value);
        }
    }

    std::set<std::string> written_;  // full names of the named types already written or known
    std::string out_;
};

}  // namespace

std::string write_schema(const Node& root, const std::vector<const Node*>& known) {
    return SchemaWriter(known).write(root);
}

}  // namespace skiff::schema_registry::avro
