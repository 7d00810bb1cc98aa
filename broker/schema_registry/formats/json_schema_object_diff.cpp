// Objects: properties judged by content model, required, dependencies, additionalProperties and
// the property counts (Confluent's ObjectSchemaDiff).
//
// The content model decides what a property added or removed means. An object is open when
// anything may come beside its properties (no additionalProperties, or true, and no
// patternProperties), closed when nothing may (additionalProperties: false), partially open
// when what may come must match a schema (additionalProperties or patternProperties).
// - A property the reader adds is safe only if the writer could not have written it with other
//   values: the writer's model is closed (safe), or partially open with values the new
//   property's schema accepts. Added to an open writer, it is refused (unless its schema is
//   empty: any value).
// - A property the reader removes is safe only if the reader still accepts what the writer wrote
//   there: the reader's model is open, or partially open with a schema accepting it, or the
//   property was false (never written).
#include <algorithm>
#include <regex>
#include <unordered_map>

#include "broker/schema_registry/formats/json_schema_diff_context.h"

namespace skiff::schema_registry::json_schema {
namespace {

using enum DifferenceType;
using NamedSchemas = std::vector<std::pair<std::string, const SchemaNode*>>;

const SchemaNode* find_named(const NamedSchemas& schemas, const std::string& name) {
    auto it = std::find_if(schemas.begin(), schemas.end(),
                           [&](const auto& entry) { return entry.first == name; });
    return it == schemas.end() ? nullptr : it->second;
}

bool is_required(const ObjectRules& object, const std::string& name) {
    return std::find(object.required.begin(), object.required.end(), name) != object.required.end();
}

// The names of both, the original's first, each once.
template <typename Entries>
std::vector<std::string> names_of_both(const Entries& original, const Entries& update) {
    std::vector<std::string> names;
    names.reserve(original.size() + update.size());
    for (const auto& [name, value] : original)
        names.push_back(name);
    for (const auto& [name, value] : update) {
        if (std::find(names.begin(), names.end(), name) == names.end())
            names.push_back(name);
    }
    return names;
}

bool is_open(const ObjectRules& object) {
    return object.pattern_properties.empty() && object.additional_properties == nullptr &&
           object.permits_additional_properties;
}

// The schema a partially open object gives a property it does not declare: the first
// patternProperties entry whose regular expression is found in the name, else the
// additionalProperties schema; null when there is none.
const SchemaNode* schema_for_undeclared(const ObjectRules& object, const std::string& name) {
    for (const auto& [pattern, schema] : object.pattern_properties) {
        try {
            if (std::regex_search(name, std::regex(pattern, std::regex::ECMAScript)))
                return schema;
        } catch (const std::regex_error&) {
            // A pattern std::regex cannot compile (\p{L}, lookbehind: see check_regex in
            // json_schema_keywords.cpp) matches no name here; the additionalProperties schema,
            // if any, then decides.
        }
    }
    return object.additional_properties;
}

// Compares a declared property of one side with what the other side's partially open model
// gives it, adding the comparison's differences and then `covered` or `not_covered`.
void compare_with_partial_model(DiffContext& context, const SchemaNode* original,
                                const SchemaNode* update, DifferenceType covered,
                                DifferenceType not_covered) {
    DiffContext attempt = context.subcontext();
    compare(attempt, original, update);
    context.add_all(attempt.differences());
    context.add(attempt.compatible() ? covered : not_covered);
}

void compare_required(DiffContext& context, const ObjectRules& original,
                      const ObjectRules& update) {
    auto scope = context.enter("required");
    for (const auto& [name, schema] : original.properties) {
        const SchemaNode* updated = find_named(update.properties, name);
        if (updated == nullptr)
            continue;
        bool was_required = is_required(original, name);
        bool is_now_required = is_required(update, name);
        if (was_required && !is_now_required)
            context.add(name, REQUIRED_ATTRIBUTE_REMOVED);
        else if (!was_required && is_now_required)
            context.add(name, updated->default_value ? REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED
                                                     : REQUIRED_ATTRIBUTE_ADDED);
    }
}

void compare_property(DiffContext& context, const ObjectRules& original, const ObjectRules& update,
                      const std::string& name) {
    const SchemaNode* before = find_named(original.properties, name);
    const SchemaNode* after = find_named(update.properties, name);
    if (after == nullptr) {
        // Removed: only the reader's model matters, the one that must still accept the values.
        if (is_open(update)) {
            context.add(PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL);
        } else if (const SchemaNode* partial = schema_for_undeclared(update, name)) {
            compare_with_partial_model(
                context, before, partial,
                PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
                PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL);
        } else {
            context.add(before->kind == SchemaKind::kFalse
                            ? PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL
                            : PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL);
        }
        return;
    }
    if (before == nullptr) {
        // Added: only the writer's model matters, the one that may have let the name through.
        if (is_open(original)) {
            context.add(after->kind == SchemaKind::kEmpty
                            ? PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL
                            : PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL);
            return;
        }
        if (const SchemaNode* partial = schema_for_undeclared(original, name))
            compare_with_partial_model(context, partial, after,
                                       PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
                                       PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL);
        // Closed or partially open, a new property must not be required unless it has a default:
        // the writer never wrote it.
        if (!is_required(update, name))
            context.add(OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL);
        else if (after->default_value)
            context.add(REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL);
        else
            context.add(REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL);
        return;
    }
    compare(context, before, after);
}

void compare_properties(DiffContext& context, const ObjectRules& original,
                        const ObjectRules& update) {
    auto scope = context.enter("properties");
    for (const std::string& name : names_of_both(original.properties, update.properties)) {
        auto property = context.enter(name);
        compare_property(context, original, update, name);
    }
}

void compare_dependencies(DiffContext& context, const ObjectRules& original,
                          const ObjectRules& update) {
    auto scope = context.enter("dependencies");
    using PropertyDependencies = std::vector<std::pair<std::string, std::vector<std::string>>>;
    auto find_names = [](const PropertyDependencies& all,
                         const std::string& name) -> const std::vector<std::string>* {
        for (const auto& [key, names] : all) {
            if (key == name)
                return &names;
        }
        return nullptr;
    };
    auto contains_all = [](const std::vector<std::string>& all,
                           const std::vector<std::string>& some) {
        return std::all_of(some.begin(), some.end(), [&](const std::string& name) {
            return std::find(all.begin(), all.end(), name) != all.end();
        });
    };
    for (const std::string& name :
         names_of_both(original.property_dependencies, update.property_dependencies)) {
        const std::vector<std::string>* before = find_names(original.property_dependencies, name);
        const std::vector<std::string>* after = find_names(update.property_dependencies, name);
        if (after == nullptr)
            context.add(name, DEPENDENCY_ARRAY_REMOVED);
        else if (before == nullptr)
            context.add(name, DEPENDENCY_ARRAY_ADDED);
        else if (contains_all(*after, *before) && contains_all(*before, *after))
            continue;
        else if (contains_all(*after, *before))
            context.add(name, DEPENDENCY_ARRAY_EXTENDED);
        else if (contains_all(*before, *after))
            context.add(name, DEPENDENCY_ARRAY_NARROWED);
        else
            context.add(name, DEPENDENCY_ARRAY_CHANGED);
    }
    for (const std::string& name :
         names_of_both(original.schema_dependencies, update.schema_dependencies)) {
        const SchemaNode* before = find_named(original.schema_dependencies, name);
        const SchemaNode* after = find_named(update.schema_dependencies, name);
        if (after == nullptr) {
            context.add(name, DEPENDENCY_SCHEMA_REMOVED);
        } else if (before == nullptr) {
            context.add(name, DEPENDENCY_SCHEMA_ADDED);
        } else {
            auto dependency = context.enter(name);
            compare(context, before, after);
        }
    }
}

void compare_additional_properties(DiffContext& context, const ObjectRules& original,
                                   const ObjectRules& update) {
    auto scope = context.enter("additionalProperties");
    if (original.permits_additional_properties != update.permits_additional_properties)
        context.add(update.permits_additional_properties ? ADDITIONAL_PROPERTIES_ADDED
                                                         : ADDITIONAL_PROPERTIES_REMOVED);
    else if (original.additional_properties == nullptr && update.additional_properties != nullptr)
        context.add(ADDITIONAL_PROPERTIES_NARROWED);
    else if (original.additional_properties != nullptr && update.additional_properties == nullptr)
        context.add(ADDITIONAL_PROPERTIES_EXTENDED);
    else
        compare(context, original.additional_properties, update.additional_properties);
}

}  // namespace

void compare_objects(DiffContext& context, const ObjectRules& original, const ObjectRules& update) {
    compare_required(context, original, update);
    compare_properties(context, original, update);
    compare_dependencies(context, original, update);
    compare_additional_properties(context, original, update);
    compare_limit(context, "maxProperties", original.max_properties, update.max_properties,
                  MAX_PROPERTIES_ADDED, MAX_PROPERTIES_REMOVED, MAX_PROPERTIES_INCREASED,
                  MAX_PROPERTIES_DECREASED);
    compare_limit(context, "minProperties", original.min_properties, update.min_properties,
                  MIN_PROPERTIES_ADDED, MIN_PROPERTIES_REMOVED, MIN_PROPERTIES_INCREASED,
                  MIN_PROPERTIES_DECREASED);
}

}  // namespace skiff::schema_registry::json_schema
