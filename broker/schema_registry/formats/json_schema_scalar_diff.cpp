// Strings, numbers, enums, consts and "not" (Confluent's StringSchemaDiff, NumberSchemaDiff,
// EnumSchemaDiff, ConstSchemaDiff and NotSchemaDiff).
//
// Where skiff departs from Confluent 8.0, on purpose:
// - EXCLUSIVE_MAXIMUM_DECREASED compares the two exclusive maximums; Confluent compares the
//   writer's exclusiveMaximum with the reader's maximum (and fails when the reader has none).
// - multipleOf divisibility is decided on the values (0.5 divides 1.5); Confluent 8.0 truncates
//   both to integers first (and fails on 0.5). Later Confluent versions do what skiff does.
#include <algorithm>
#include <cmath>

#include "broker/schema_registry/formats/json_schema_diff_context.h"

namespace skiff::schema_registry::json_schema {
namespace {

using enum DifferenceType;

// Whether `value` is a whole multiple of `divisor`, allowing for the binary representation of
// decimal fractions (0.3 / 0.1 is 2.9999999999999996 in doubles).
bool is_multiple_of(double value, double divisor) {
    if (divisor == 0)
        return false;
    double quotient = value / divisor;
    return std::fabs(quotient - std::round(quotient)) <= 1e-9 * std::max(1.0, std::fabs(quotient));
}

bool same_number(double a, double b) {
    return a == b || std::fabs(a - b) <= 1e-12 * std::max(std::fabs(a), std::fabs(b));
}

bool contains_all(const std::vector<nlohmann::ordered_json>& all,
                  const std::vector<nlohmann::ordered_json>& some) {
    return std::all_of(some.begin(), some.end(), [&](const nlohmann::ordered_json& value) {
        return std::find(all.begin(), all.end(), value) != all.end();
    });
}

}  // namespace

void compare_strings(DiffContext& context, const StringRules& original, const StringRules& update) {
    compare_limit(context, "maxLength", original.max_length, update.max_length, MAX_LENGTH_ADDED,
                  MAX_LENGTH_REMOVED, MAX_LENGTH_INCREASED, MAX_LENGTH_DECREASED);
    compare_limit(context, "minLength", original.min_length, update.min_length, MIN_LENGTH_ADDED,
                  MIN_LENGTH_REMOVED, MIN_LENGTH_INCREASED, MIN_LENGTH_DECREASED);
    if (!original.pattern && update.pattern)
        context.add("pattern", PATTERN_ADDED);
    else if (original.pattern && !update.pattern)
        context.add("pattern", PATTERN_REMOVED);
    else if (original.pattern && *original.pattern != *update.pattern)
        context.add("pattern", PATTERN_CHANGED);
}

void compare_numbers(DiffContext& context, const NumberRules& original, const NumberRules& update) {
    compare_limit(context, "maximum", original.maximum, update.maximum, MAXIMUM_ADDED,
                  MAXIMUM_REMOVED, MAXIMUM_INCREASED, MAXIMUM_DECREASED);
    compare_limit(context, "minimum", original.minimum, update.minimum, MINIMUM_ADDED,
                  MINIMUM_REMOVED, MINIMUM_INCREASED, MINIMUM_DECREASED);
    compare_limit(context, "exclusiveMaximum", original.exclusive_maximum, update.exclusive_maximum,
                  EXCLUSIVE_MAXIMUM_ADDED, EXCLUSIVE_MAXIMUM_REMOVED, EXCLUSIVE_MAXIMUM_INCREASED,
                  EXCLUSIVE_MAXIMUM_DECREASED);
    compare_limit(context, "exclusiveMinimum", original.exclusive_minimum, update.exclusive_minimum,
                  EXCLUSIVE_MINIMUM_ADDED, EXCLUSIVE_MINIMUM_REMOVED, EXCLUSIVE_MINIMUM_INCREASED,
                  EXCLUSIVE_MINIMUM_DECREASED);
    const std::optional<double>& before = original.multiple_of;
    const std::optional<double>& after = update.multiple_of;
    if (!before && after)
        context.add("multipleOf", MULTIPLE_OF_ADDED);
    else if (before && !after)
        context.add("multipleOf", MULTIPLE_OF_REMOVED);
    else if (before && !same_number(*before, *after)) {
        // A multiple of the old step accepts fewer numbers (EXPANDED: incompatible); a divisor
        // of it accepts more (REDUCED: compatible).
        if (is_multiple_of(*after, *before))
            context.add("multipleOf", MULTIPLE_OF_EXPANDED);
        else if (is_multiple_of(*before, *after))
            context.add("multipleOf", MULTIPLE_OF_REDUCED);
        else
            context.add("multipleOf", MULTIPLE_OF_CHANGED);
    }
    if (original.requires_integer != update.requires_integer)
        context.add(original.requires_integer ? TYPE_EXTENDED : TYPE_NARROWED);
}

void compare_enums(DiffContext& context, const EnumRules& original, const EnumRules& update) {
    bool keeps_all = contains_all(update.values, original.values);
    bool adds_none = contains_all(original.values, update.values);
    if (keeps_all && adds_none)
        return;
    context.add("enum", keeps_all   ? ENUM_ARRAY_EXTENDED
                        : adds_none ? ENUM_ARRAY_NARROWED
                                    : ENUM_ARRAY_CHANGED);
}

void compare_consts(DiffContext& context, const ConstRules& original, const ConstRules& update) {
    if (original.value != update.value)
        context.add("const", ENUM_ARRAY_CHANGED);
}

void compare_nots(DiffContext& context, const NotRules& original, const NotRules& update) {
    // What "not" excludes must shrink: the reader's excluded schema must be readable by the
    // writer's, so the two are compared the other way round.
    auto scope = context.enter("not");
    DiffContext reversed = context.subcontext();
    compare(reversed, update.negated, original.negated);
    context.add(reversed.compatible() ? NOT_TYPE_NARROWED : NOT_TYPE_EXTENDED);
}

}  // namespace skiff::schema_registry::json_schema
