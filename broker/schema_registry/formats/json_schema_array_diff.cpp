// Arrays: the items schema, tuple items judged by content model, additionalItems and the item
// counts (Confluent's ArraySchemaDiff).
//
// A tuple ("items": [...], 2020-12's prefixItems) has a content model as an object has: open
// when anything may follow its items (no additionalItems, or true), closed when nothing may
// (false), partially open when what follows must match a schema. A tuple item the reader adds or
// removes is judged as a property is (json_schema_object_diff.cpp), with one difference Confluent
// makes: an item added to a closed writer tuple is compatible even when not empty, since the
// writer never wrote anything at that position.
#include "broker/schema_registry/formats/json_schema_diff_context.h"

namespace skiff::schema_registry::json_schema {
namespace {

using enum DifferenceType;

bool is_open(const ArrayRules& array) {
    return array.additional_items == nullptr && array.permits_additional_items;
}

void compare_with_partial_model(DiffContext& context, const SchemaNode* original,
                                const SchemaNode* update, DifferenceType covered,
                                DifferenceType not_covered) {
    DiffContext attempt = context.subcontext();
    compare(attempt, original, update);
    context.add_all(attempt.differences());
    context.add(attempt.compatible() ? covered : not_covered);
}

void compare_tuple_items(DiffContext& context, const ArrayRules& original,
                         const ArrayRules& update) {
    std::size_t common = std::min(original.tuple_items.size(), update.tuple_items.size());
    for (std::size_t i = 0; i < common; ++i) {
        auto scope = context.enter("items/" + std::to_string(i));
        compare(context, original.tuple_items[i], update.tuple_items[i]);
    }
    // Items the reader no longer has: the reader's model must accept what was written there.
    for (std::size_t i = common; i < original.tuple_items.size(); ++i) {
        auto scope = context.enter("items/" + std::to_string(i));
        const SchemaNode* removed = original.tuple_items[i];
        if (is_open(update))
            context.add(ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL);
        else if (update.additional_items != nullptr)
            compare_with_partial_model(context, removed, update.additional_items,
                                       ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
                                       ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL);
        else
            context.add(removed->kind == SchemaKind::kFalse
                            ? ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL
                            : ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL);
    }
    // Items the writer did not have: the writer's model says what may be there.
    for (std::size_t i = common; i < update.tuple_items.size(); ++i) {
        auto scope = context.enter("items/" + std::to_string(i));
        const SchemaNode* added = update.tuple_items[i];
        if (is_open(original))
            context.add(added->kind == SchemaKind::kEmpty
                            ? ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL
                            : ITEM_ADDED_TO_OPEN_CONTENT_MODEL);
        else if (original.additional_items != nullptr)
            compare_with_partial_model(context, original.additional_items, added,
                                       ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
                                       ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL);
        else
            context.add(ITEM_ADDED_TO_CLOSED_CONTENT_MODEL);
    }
}

void compare_additional_items(DiffContext& context, const ArrayRules& original,
                              const ArrayRules& update) {
    auto scope = context.enter("additionalItems");
    if (original.permits_additional_items != update.permits_additional_items)
        context.add(original.permits_additional_items ? ADDITIONAL_ITEMS_REMOVED
                                                      : ADDITIONAL_ITEMS_ADDED);
    else if (original.additional_items == nullptr && update.additional_items != nullptr)
        context.add(ADDITIONAL_ITEMS_NARROWED);
    else if (original.additional_items != nullptr && update.additional_items == nullptr)
        context.add(ADDITIONAL_ITEMS_EXTENDED);
    else
        compare(context, original.additional_items, update.additional_items);
}

}  // namespace

void compare_arrays(DiffContext& context, const ArrayRules& original, const ArrayRules& update) {
    {
        auto scope = context.enter("items");
        compare(context, original.all_items, update.all_items);
    }
    compare_tuple_items(context, original, update);
    compare_additional_items(context, original, update);
    compare_limit(context, "maxItems", original.max_items, update.max_items, MAX_ITEMS_ADDED,
                  MAX_ITEMS_REMOVED, MAX_ITEMS_INCREASED, MAX_ITEMS_DECREASED);
    compare_limit(context, "minItems", original.min_items, update.min_items, MIN_ITEMS_ADDED,
                  MIN_ITEMS_REMOVED, MIN_ITEMS_INCREASED, MIN_ITEMS_DECREASED);
    if (original.unique_items != update.unique_items)
        context.add("uniqueItems",
                    original.unique_items ? UNIQUE_ITEMS_REMOVED : UNIQUE_ITEMS_ADDED);
}

}  // namespace skiff::schema_registry::json_schema
