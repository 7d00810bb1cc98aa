// The differences the JSON Schema compatibility check finds between a writer's schema and a
// reader's, with Confluent's names (io.confluent.kafka.schemaregistry.json.diff.Difference.Type)
// and Confluent's verdict on each: whether a reader using the new schema can still read data the
// old one accepted (its COMPATIBLE_CHANGES, the STRICT policy of Confluent Platform 8.0).
//
// A check reports only the incompatible ones, each with a sentence naming the two schemas by the
// roles they play: the reader's (check()'s `updated`) and the writer's (`previous`). Those roles
// hold whichever way the registry calls check() (it swaps the arguments for FORWARD).
#pragma once

#include <string>
#include <string_view>

namespace skiff::schema_registry::json_schema {

// X(name, compatible): the table every other use of the list is generated from.
#define SKIFF_JSON_SCHEMA_DIFFERENCES(X)                                   \
    X(ID_CHANGED, true)                                                    \
    X(DESCRIPTION_CHANGED, true)                                           \
    X(TITLE_CHANGED, true)                                                 \
    X(DEFAULT_CHANGED, true)                                               \
    X(SCHEMA_ADDED, false)                                                 \
    X(SCHEMA_REMOVED, true)                                                \
    X(TYPE_EXTENDED, true)                                                 \
    X(TYPE_NARROWED, false)                                                \
    X(TYPE_CHANGED, false)                                                 \
    X(MAX_LENGTH_ADDED, false)                                             \
    X(MAX_LENGTH_REMOVED, true)                                            \
    X(MAX_LENGTH_INCREASED, true)                                          \
    X(MAX_LENGTH_DECREASED, false)                                         \
    X(MIN_LENGTH_ADDED, false)                                             \
    X(MIN_LENGTH_REMOVED, true)                                            \
    X(MIN_LENGTH_INCREASED, false)                                         \
    X(MIN_LENGTH_DECREASED, true)                                          \
    X(PATTERN_ADDED, false)                                                \
    X(PATTERN_REMOVED, true)                                               \
    X(PATTERN_CHANGED, false)                                              \
    X(MAXIMUM_ADDED, false)                                                \
    X(MAXIMUM_REMOVED, true)                                               \
    X(MAXIMUM_INCREASED, true)                                             \
    X(MAXIMUM_DECREASED, false)                                            \
    X(MINIMUM_ADDED, false)                                                \
    X(MINIMUM_REMOVED, true)                                               \
    X(MINIMUM_INCREASED, false)                                            \
    X(MINIMUM_DECREASED, true)                                             \
    X(EXCLUSIVE_MAXIMUM_ADDED, false)                                      \
    X(EXCLUSIVE_MAXIMUM_REMOVED, true)                                     \
    X(EXCLUSIVE_MAXIMUM_INCREASED, true)                                   \
    X(EXCLUSIVE_MAXIMUM_DECREASED, false)                                  \
    X(EXCLUSIVE_MINIMUM_ADDED, false)                                      \
    X(EXCLUSIVE_MINIMUM_REMOVED, true)                                     \
    X(EXCLUSIVE_MINIMUM_INCREASED, false)                                  \
    X(EXCLUSIVE_MINIMUM_DECREASED, true)                                   \
    X(MULTIPLE_OF_ADDED, false)                                            \
    X(MULTIPLE_OF_REMOVED, true)                                           \
    X(MULTIPLE_OF_EXPANDED, false)                                         \
    X(MULTIPLE_OF_REDUCED, true)                                           \
    X(MULTIPLE_OF_CHANGED, false)                                          \
    X(REQUIRED_ATTRIBUTE_ADDED, false)                                     \
    X(REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED, true)                         \
    X(REQUIRED_ATTRIBUTE_REMOVED, true)                                    \
    X(MAX_PROPERTIES_ADDED, false)                                         \
    X(MAX_PROPERTIES_REMOVED, true)                                        \
    X(MAX_PROPERTIES_INCREASED, true)                                      \
    X(MAX_PROPERTIES_DECREASED, false)                                     \
    X(MIN_PROPERTIES_ADDED, false)                                         \
    X(MIN_PROPERTIES_REMOVED, true)                                        \
    X(MIN_PROPERTIES_INCREASED, false)                                     \
    X(MIN_PROPERTIES_DECREASED, true)                                      \
    X(ADDITIONAL_PROPERTIES_ADDED, true)                                   \
    X(ADDITIONAL_PROPERTIES_REMOVED, false)                                \
    X(ADDITIONAL_PROPERTIES_EXTENDED, true)                                \
    X(ADDITIONAL_PROPERTIES_NARROWED, false)                               \
    X(DEPENDENCY_ARRAY_ADDED, false)                                       \
    X(DEPENDENCY_ARRAY_REMOVED, true)                                      \
    X(DEPENDENCY_ARRAY_EXTENDED, false)                                    \
    X(DEPENDENCY_ARRAY_NARROWED, true)                                     \
    X(DEPENDENCY_ARRAY_CHANGED, false)                                     \
    X(DEPENDENCY_SCHEMA_ADDED, false)                                      \
    X(DEPENDENCY_SCHEMA_REMOVED, true)                                     \
    X(PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL, false)                         \
    X(PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL, true)        \
    X(REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL, false)              \
    X(REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL, true)  \
    X(OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL, true)               \
    X(PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL, true)                      \
    X(PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL, true)         \
    X(PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL, false)                   \
    X(PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL, true)   \
    X(PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL, false) \
    X(PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL, true)     \
    X(PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL, false)   \
    X(MAX_ITEMS_ADDED, false)                                              \
    X(MAX_ITEMS_REMOVED, true)                                             \
    X(MAX_ITEMS_INCREASED, true)                                           \
    X(MAX_ITEMS_DECREASED, false)                                          \
    X(MIN_ITEMS_ADDED, false)                                              \
    X(MIN_ITEMS_REMOVED, true)                                             \
    X(MIN_ITEMS_INCREASED, false)                                          \
    X(MIN_ITEMS_DECREASED, true)                                           \
    X(UNIQUE_ITEMS_ADDED, false)                                           \
    X(UNIQUE_ITEMS_REMOVED, true)                                          \
    X(ADDITIONAL_ITEMS_ADDED, true)                                        \
    X(ADDITIONAL_ITEMS_REMOVED, false)                                     \
    X(ADDITIONAL_ITEMS_EXTENDED, true)                                     \
    X(ADDITIONAL_ITEMS_NARROWED, false)                                    \
    X(ITEM_ADDED_TO_OPEN_CONTENT_MODEL, false)                             \
    X(ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL, true)            \
    X(ITEM_ADDED_TO_CLOSED_CONTENT_MODEL, true)                            \
    X(ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL, true)                          \
    X(ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL, true)             \
    X(ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL, false)                       \
    X(ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL, true)       \
    X(ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL, false)     \
    X(ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL, true)         \
    X(ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL, false)       \
    X(ENUM_ARRAY_EXTENDED, true)                                           \
    X(ENUM_ARRAY_NARROWED, false)                                          \
    X(ENUM_ARRAY_CHANGED, false)                                           \
    X(COMBINED_TYPE_EXTENDED, true)                                        \
    X(COMBINED_TYPE_CHANGED, false)                                        \
    X(PRODUCT_TYPE_EXTENDED, false)                                        \
    X(PRODUCT_TYPE_NARROWED, true)                                         \
    X(SUM_TYPE_EXTENDED, true)                                             \
    X(SUM_TYPE_NARROWED, false)                                            \
    X(COMBINED_TYPE_SUBSCHEMAS_CHANGED, false)                             \
    X(NOT_TYPE_EXTENDED, false)                                            \
    X(NOT_TYPE_NARROWED, true)                                             \
    /* skiff's own: the check gave up (see json_schema_diff_ledger.h) */   \
    X(COMPATIBILITY_CHECK_TOO_COMPLEX, false)

enum class DifferenceType {
#define SKIFF_JSON_SCHEMA_DIFFERENCE_ENUM(name, compatible) name,
    SKIFF_JSON_SCHEMA_DIFFERENCES(SKIFF_JSON_SCHEMA_DIFFERENCE_ENUM)
#undef SKIFF_JSON_SCHEMA_DIFFERENCE_ENUM
};

// One difference and where: a JSON path in Confluent's form, "#/" then the keywords and names
// leading to it ("#/properties/age/maximum"; "#/" alone for the root).
struct Difference {
    DifferenceType type;
    std::string path;
    bool operator==(const Difference&) const = default;
};

std::string_view difference_name(DifferenceType type);
bool is_compatible(DifferenceType type);
// A sentence for the developer whose schema change was refused.
std::string describe(const Difference& difference);

}  // namespace skiff::schema_registry::json_schema
