#include "broker/schema_registry/formats/avro_compatibility.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <utility>

namespace skiff::schema_registry::avro {
namespace {

// One incompatibility at `path`, relative to the reader/writer pair it was found in until the
// check returns ("/fields/1/type"; "" for the pair itself), then from the schemas' roots.
// `info` is Avro Java's message, which Confluent shows as additionalInfo.
struct Finding {
    std::string type;
    std::string path;
    std::string info;
};
using Findings = std::vector<Finding>;

Findings under(const std::string& prefix, Findings findings) {
    for (auto& finding : findings)
        finding.path = prefix + finding.path;
    return findings;
}

void append(Findings& to, Findings more) {
    std::move(more.begin(), more.end(), std::back_inserter(to));
}

// Confluent's Difference, with the reader as "new" and the writer as "old".
std::string describe(const Finding& finding, const std::string& path) {
    if (finding.type == "FIXED_SIZE_MISMATCH")
        return "The size of FIXED type field at path '" + path +
               "' in the new schema does not match with the old schema";
    if (finding.type == "TYPE_MISMATCH")
        return "The type (path '" + path +
               "') of a field in the new schema does not match with the old schema";
    if (finding.type == "NAME_MISMATCH")
        return "The name of the schema has changed (path '" + path + "')";
    if (finding.type == "MISSING_ENUM_SYMBOLS")
        return "The new schema is missing enum symbols '" + finding.info + "' at path '" + path +
               "' in the old schema";
    if (finding.type == "MISSING_UNION_BRANCH")
        return "The new schema is missing a type inside a union field at path '" + path +
               "' in the old schema";
    if (finding.type == "READER_FIELD_MISSING_DEFAULT_VALUE")
        return "The field '" + finding.info + "' at path '" + path +
               "' in the new schema has no default value and is missing in the old schema";
    return {};
}

// The writer field a reader field reads: the one of the same name, else the first the reader
// field's aliases name. (Avro Java throws when a name and an alias match two different writer
// fields; the field of the same name is the one Avro's decoder reads, so it wins here.)
const Field* writer_field_for(const Node& writer, const Field& reader_field) {
    auto named = [&](const std::string& name) -> const Field* {
        for (const Field& field : writer.fields)
            if (field.name == name)
                return &field;
        return nullptr;
    };
    if (const Field* direct = named(reader_field.name))
        return direct;
    for (const auto& alias : reader_field.aliases)
        if (const Field* aliased = named(alias))
            return aliased;
    return nullptr;
}

class CompatibilityChecker {
  public:
    Findings check(const Node& reader, const Node& writer) {
        const auto key = std::make_pair(&reader, &writer);
        if (const auto found = memo_.find(key); found != memo_.end())
            return found->second.in_progress ? Findings{} : found->second.findings;
        memo_[key].in_progress = true;
        Findings findings = calculate(reader, writer);
        memo_[key] = {false, findings};
        return findings;
    }

  private:
    struct Memo {
        bool in_progress = false;
        Findings findings;
    };

    bool compatible(const Node& reader, const Node& writer) {
        return check(reader, writer).empty();
    }

    Findings calculate(const Node& reader, const Node& writer) {
        if (reader.type == writer.type)
            return same_type(reader, writer);
        if (writer.type == Type::union_) {
            // Data may come in any of the writer's branches: each must resolve.
            Findings findings;
            for (size_t i = 0; i < writer.branches.size(); ++i)
                append(findings,
                       under("/" + std::to_string(i), check(reader, *writer.branches[i])));
            return findings;
        }
        const Type w = writer.type;
        switch (reader.type) {
            case Type::long_:
                if (w == Type::int_)
                    return {};
                break;
            case Type::float_:
                if (w == Type::int_ || w == Type::long_)
                    return {};
                break;
            case Type::double_:
                if (w == Type::int_ || w == Type::long_ || w == Type::float_)
                    return {};
                break;
            case Type::bytes:
                if (w == Type::string)
                    return {};
                break;
            case Type::string:
                if (w == Type::bytes)
                    return {};
                break;
            case Type::union_:
                for (const Node* branch : reader.branches)
                    if (compatible(*branch, writer))
                        return {};
                return {{"MISSING_UNION_BRANCH", "",
                         "reader union lacking writer type: " + java_type_name(w)}};
            default:
                break;
        }
        return {{"TYPE_MISMATCH", "",
                 "reader type: " + java_type_name(reader.type) +
                     " not compatible with writer type: " + java_type_name(w)}};
    }

    Findings same_type(const Node& reader, const Node& writer) {
        switch (reader.type) {
            case Type::array:
                return under("/items", check(*reader.items, *writer.items));
            case Type::map:
                return under("/values", check(*reader.items, *writer.items));
            case Type::fixed: {
                Findings findings = names(reader, writer);
                if (reader.size != writer.size)
                    findings.push_back({"FIXED_SIZE_MISMATCH", "/size",
                                        "expected: " + std::to_string(writer.size) +
                                            ", found: " + std::to_string(reader.size)});
                return findings;
            }
            case Type::enum_: {
                Findings findings = names(reader, writer);
                append(findings, symbols(reader, writer));
                return findings;
            }
            case Type::record: {
                Findings findings = names(reader, writer);
                append(findings, fields(reader, writer));
                return findings;
            }
            case Type::union_: {
                Findings findings;
                for (size_t i = 0; i < writer.branches.size(); ++i) {
                    const Node& branch = *writer.branches[i];
                    if (!compatible(reader, branch))
                        findings.push_back(
                            {"MISSING_UNION_BRANCH", "/" + std::to_string(i),
                             "reader union lacking writer type: " + java_type_name(branch.type)});
                }
                return findings;
            }
            default:  // the same primitive
                return {};
        }
    }

    // Unqualified names, as the spec has it since Avro 1.10, or a reader alias naming the writer.
    static Findings names(const Node& reader, const Node& writer) {
        const bool aliased = std::find(reader.aliases.begin(), reader.aliases.end(),
                                       writer.full_name()) != reader.aliases.end();
        if (reader.name == writer.name || aliased)
            return {};
        return {{"NAME_MISMATCH", "/name", "expected: " + writer.full_name()}};
    }

    static Findings symbols(const Node& reader, const Node& writer) {
        std::set<std::string> missing(writer.symbols.begin(), writer.symbols.end());
        for (const auto& symbol : reader.symbols)
            missing.erase(symbol);
        // The reader's default stands in for every symbol it does not know.
        if (missing.empty() || reader.enum_default)
            return {};
        std::string list;
        for (const auto& symbol : missing)
            list += (list.empty() ? "" : ", ") + symbol;
        return {{"MISSING_ENUM_SYMBOLS", "/symbols", "[" + list + "]"}};
    }

    Findings fields(const Node& reader, const Node& writer) {
        Findings findings;
        for (size_t i = 0; i < reader.fields.size(); ++i) {
            const Field& reader_field = reader.fields[i];
            const std::string path = "/fields/" + std::to_string(i);
            if (const Field* writer_field = writer_field_for(writer, reader_field))
                append(findings,
                       under(path + "/type", check(*reader_field.type, *writer_field->type)));
            else if (!reader_field.default_value)
                findings.push_back({"READER_FIELD_MISSING_DEFAULT_VALUE", path, reader_field.name});
        }
        return findings;
    }

    std::map<std::pair<const Node*, const Node*>, Memo> memo_;
};

}  // namespace

std::vector<Incompatibility> check_compatibility(const Node& reader, const Node& writer) {
    std::vector<Incompatibility> result;
    for (const Finding& finding : CompatibilityChecker().check(reader, writer)) {
        const std::string path = finding.path.empty() ? "/" : finding.path;
        result.push_back({finding.type, describe(finding, path), finding.info});
    }
    return result;
}

}  // namespace skiff::schema_registry::avro
