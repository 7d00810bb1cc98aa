#include "broker/schema_registry/formats/json_schema_difference.h"

#include <array>

namespace skiff::schema_registry::json_schema {
namespace {

struct DifferenceInfo {
    std::string_view name;
    bool compatible;
};

constexpr std::array kDifferences = {
#define SKIFF_JSON_SCHEMA_DIFFERENCE_INFO(name, compatible) DifferenceInfo{#name, compatible},
    SKIFF_JSON_SCHEMA_DIFFERENCES(SKIFF_JSON_SCHEMA_DIFFERENCE_INFO)
#undef SKIFF_JSON_SCHEMA_DIFFERENCE_INFO
};

// The sentence for each incompatible difference, "{}" standing for the path. The compatible
// ones are never reported, so they share one.
std::string_view sentence(DifferenceType type) {
    using enum DifferenceType;
    switch (type) {
        case SCHEMA_ADDED:
            return "The reader schema has a subschema at '{}' that the writer schema does not "
                   "have, "
                   "so data the writer accepts may not match it";
        case TYPE_NARROWED:
            return "The reader schema accepts only integers at '{}' where the writer schema "
                   "accepts "
                   "any number";
        case TYPE_CHANGED:
            return "The type at '{}' is different in the reader schema and the writer schema";
        case MAX_LENGTH_ADDED:
        case MIN_LENGTH_ADDED:
        case PATTERN_ADDED:
        case MAXIMUM_ADDED:
        case MINIMUM_ADDED:
        case EXCLUSIVE_MAXIMUM_ADDED:
        case EXCLUSIVE_MINIMUM_ADDED:
        case MULTIPLE_OF_ADDED:
        case MAX_PROPERTIES_ADDED:
        case MIN_PROPERTIES_ADDED:
        case MAX_ITEMS_ADDED:
        case MIN_ITEMS_ADDED:
        case UNIQUE_ITEMS_ADDED:
        case DEPENDENCY_ARRAY_ADDED:
        case DEPENDENCY_SCHEMA_ADDED:
            return "The keyword at '{}' in the reader schema is not in the writer schema, so data "
                   "the writer accepts may break it";
        case MAX_LENGTH_DECREASED:
        case MAXIMUM_DECREASED:
        case EXCLUSIVE_MAXIMUM_DECREASED:
        case MAX_PROPERTIES_DECREASED:
        case MAX_ITEMS_DECREASED:
            return "The limit at '{}' is lower in the reader schema than in the writer schema";
        case MIN_LENGTH_INCREASED:
        case MINIMUM_INCREASED:
        case EXCLUSIVE_MINIMUM_INCREASED:
        case MIN_PROPERTIES_INCREASED:
        case MIN_ITEMS_INCREASED:
            return "The limit at '{}' is higher in the reader schema than in the writer schema";
        case PATTERN_CHANGED:
            return "The pattern at '{}' is different in the reader schema and the writer schema";
        case MULTIPLE_OF_EXPANDED:
            return "The multipleOf at '{}' in the reader schema is a multiple of the writer "
                   "schema's, so it accepts fewer numbers";
        case MULTIPLE_OF_CHANGED:
            return "The multipleOf at '{}' is different in the reader schema and the writer "
                   "schema, "
                   "and neither divides the other";
        case REQUIRED_ATTRIBUTE_ADDED:
            return "The property at '{}' is required, without a default, in the reader schema but "
                   "optional in the writer schema";
        case ADDITIONAL_PROPERTIES_REMOVED:
            return "The reader schema forbids the additional properties at '{}' that the writer "
                   "schema allows";
        case ADDITIONAL_PROPERTIES_NARROWED:
            return "The reader schema constrains the additional properties at '{}' with a schema "
                   "where the writer schema allows any";
        case DEPENDENCY_ARRAY_EXTENDED:
            return "The dependency at '{}' names more properties in the reader schema than in the "
                   "writer schema";
        case DEPENDENCY_ARRAY_CHANGED:
            return "The dependency at '{}' names different properties in the reader schema and the "
                   "writer schema";
        case PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL:
            return "The reader schema has a property at '{}' that the writer schema lacks, and the "
                   "writer schema's open content model lets data carry that property with any "
                   "value; "
                   "close the writer's content model (additionalProperties: false) first, or give "
                   "the new property an empty schema";
        case REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL:
            return "The reader schema requires a property at '{}', without a default, that the "
                   "writer schema (a closed or partially open content model) lacks";
        case PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL:
            return "The reader schema has a closed content model and lacks the property at '{}' "
                   "that the writer schema has";
        case PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL:
        case ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL:
            return "The reader schema lacks the property or item at '{}' that the writer schema "
                   "has, and the reader's partially open content model does not accept its values";
        case PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL:
        case ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL:
            return "The reader schema has a property or item at '{}' that the writer schema lacks, "
                   "and the writer's partially open content model accepts values the reader's "
                   "subschema does not";
        case ADDITIONAL_ITEMS_REMOVED:
            return "The reader schema forbids the additional items at '{}' that the writer schema "
                   "allows";
        case ADDITIONAL_ITEMS_NARROWED:
            return "The reader schema constrains the additional items at '{}' with a schema where "
                   "the writer schema allows any";
        case ITEM_ADDED_TO_OPEN_CONTENT_MODEL:
            return "The reader schema has a tuple item at '{}' that the writer schema lacks, and "
                   "the "
                   "writer schema's open content model lets data hold any value there";
        case ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL:
            return "The reader schema has a closed content model and lacks the tuple item at '{}' "
                   "that the writer schema has";
        case ENUM_ARRAY_NARROWED:
            return "The enum at '{}' in the reader schema lacks values of the writer schema's";
        case ENUM_ARRAY_CHANGED:
            return "The enum or const at '{}' allows values in the writer schema that the reader "
                   "schema does not";
        case COMBINED_TYPE_CHANGED:
            return "The combined type at '{}' changed between allOf, anyOf and oneOf in a way the "
                   "reader cannot read the writer's data with";
        case PRODUCT_TYPE_EXTENDED:
            return "The allOf at '{}' has more subschemas in the reader schema than in the writer "
                   "schema";
        case SUM_TYPE_NARROWED:
            return "The anyOf or oneOf at '{}' has fewer subschemas in the reader schema than in "
                   "the "
                   "writer schema";
        case COMBINED_TYPE_SUBSCHEMAS_CHANGED:
            return "The subschemas of the combined type at '{}' cannot each be matched with a "
                   "compatible subschema of the other schema";
        case NOT_TYPE_EXTENDED:
            return "The 'not' at '{}' excludes values in the reader schema that the writer schema "
                   "accepts";
        case COMPATIBILITY_CHECK_TOO_COMPLEX:
            return "The schemas are too large or too recursive to compare at '{}'; skiff gave up "
                   "rather than accept a change it could not check";
        default:
            return "The change at '{}' is compatible";
    }
}

}  // namespace

std::string_view difference_name(DifferenceType type) {
    return kDifferences[static_cast<std::size_t>(type)].name;
}

bool is_compatible(DifferenceType type) {
    return kDifferences[static_cast<std::size_t>(type)].compatible;
}

std::string describe(const Difference& difference) {
    std::string text(sentence(difference.type));
    if (std::size_t at = text.find("{}"); at != std::string::npos)
        text.replace(at, 2, difference.path);
    return text;
}

}  // namespace skiff::schema_registry::json_schema
