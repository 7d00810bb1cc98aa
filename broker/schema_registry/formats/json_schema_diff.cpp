#include "broker/schema_registry/formats/json_schema_diff.h"

#include <algorithm>

#include "broker/schema_registry/formats/json_schema_diff_context.h"

namespace skiff::schema_registry::json_schema {
namespace {

using enum DifferenceType;

bool is_combined(const SchemaNode* node) {
    return node->kind == SchemaKind::kCombined;
}

// Tries `original` against one subschema of `update` (or the other way round): keeps the
// differences and returns true when they are compatible.
bool try_match(DiffContext& context, const SchemaNode* original, const SchemaNode* update) {
    DiffContext attempt = context.subcontext();
    compare(attempt, original, update);
    if (!attempt.compatible())
        return false;
    context.add_all(attempt.differences());
    return true;
}

void compare_kinds(DiffContext& context, const SchemaNode* original, const SchemaNode* update) {
    // A schema that became a combination, or stopped being one: a singleton stands for its one
    // subschema; a reader's anyOf/oneOf reads the writer's data if one of its subschemas does
    // (SUM_TYPE_EXTENDED); a writer's allOf is read by what reads one of its subschemas
    // (PRODUCT_TYPE_NARROWED). Otherwise the kinds differ and the comparison below says so.
    if (!is_combined(original) && is_combined(update)) {
        const CombinedRules& combined = update->as<CombinedRules>();
        if (combined.subschemas.size() == 1) {
            if (try_match(context, original, combined.subschemas[0]))
                return;
        } else if (combined.criterion != Criterion::kAllOf) {
            for (const SchemaNode* subschema : combined.subschemas) {
                if (try_match(context, original, subschema)) {
                    context.add(SUM_TYPE_EXTENDED);
                    return;
                }
            }
        }
    } else if (is_combined(original) && !is_combined(update)) {
        const CombinedRules& combined = original->as<CombinedRules>();
        if (combined.subschemas.size() == 1) {
            if (try_match(context, combined.subschemas[0], update))
                return;
        } else if (combined.criterion == Criterion::kAllOf) {
            for (const SchemaNode* subschema : combined.subschemas) {
                if (try_match(context, subschema, update)) {
                    context.add(PRODUCT_TYPE_NARROWED);
                    return;
                }
            }
        }
    }

    if (original->kind != update->kind) {
        // Nothing was valid before (false), or anything is now ({} or true): always readable.
        if (original->kind != SchemaKind::kFalse && update->kind != SchemaKind::kEmpty)
            context.add(TYPE_CHANGED);
        return;
    }

    if (original->id != update->id)
        context.add(ID_CHANGED);
    if (original->title != update->title)
        context.add(TITLE_CHANGED);
    if (original->description != update->description)
        context.add(DESCRIPTION_CHANGED);
    if (original->default_value != update->default_value)
        context.add(DEFAULT_CHANGED);

    switch (original->kind) {
        case SchemaKind::kString:
            compare_strings(context, original->as<StringRules>(), update->as<StringRules>());
            break;
        case SchemaKind::kNumber:
            compare_numbers(context, original->as<NumberRules>(), update->as<NumberRules>());
            break;
        case SchemaKind::kObject:
            compare_objects(context, original->as<ObjectRules>(), update->as<ObjectRules>());
            break;
        case SchemaKind::kArray:
            compare_arrays(context, original->as<ArrayRules>(), update->as<ArrayRules>());
            break;
        case SchemaKind::kEnum:
            compare_enums(context, original->as<EnumRules>(), update->as<EnumRules>());
            break;
        case SchemaKind::kConst:
            compare_consts(context, original->as<ConstRules>(), update->as<ConstRules>());
            break;
        case SchemaKind::kCombined:
            compare_combined(context, original->as<CombinedRules>(), update->as<CombinedRules>());
            break;
        case SchemaKind::kNot:
            compare_nots(context, original->as<NotRules>(), update->as<NotRules>());
            break;
        default:
            // Empty, false, null, boolean, if/then/else: nothing more to compare (Confluent
            // compares nothing inside if/then/else either).
            break;
    }
}

}  // namespace

std::string DiffContext::path() const {
    std::string text = "#/";
    for (std::size_t i = 0; i < path_.size(); ++i) {
        if (i > 0)
            text.push_back('/');
        text += path_[i];
    }
    return text;
}

void DiffContext::add_relative(const std::vector<Difference>& differences) {
    std::string prefix = path();
    for (const Difference& difference : differences) {
        if (path_.empty() || difference.path.size() <= 2)
            keep({difference.type, path_.empty() ? difference.path : prefix});
        else
            keep({difference.type, prefix + "/" + difference.path.substr(2)});
    }
}

void DiffContext::keep(Difference difference) {
    if (differences_.size() < kMaxDifferences) {
        differences_.push_back(std::move(difference));
        return;
    }
    if (is_compatible(difference.type) || !compatible())
        return;
    differences_.back() = std::move(difference);  // all compatible so far: the verdict changes
}

bool DiffContext::compatible() const {
    return std::all_of(differences_.begin(), differences_.end(),
                       [](const Difference& d) { return is_compatible(d.type); });
}

void compare(DiffContext& context, const SchemaNode* original, const SchemaNode* update) {
    if (original == nullptr && update == nullptr)
        return;
    if (original == nullptr) {
        context.add(SCHEMA_ADDED);
        return;
    }
    if (update == nullptr) {
        context.add(SCHEMA_REMOVED);
        return;
    }
    original = referred_schema(original);
    update = referred_schema(update);

    PairLedger& ledger = context.ledger();
    const PairLedger::NodePair pair{original, update};
    const std::vector<Difference>* known = nullptr;
    switch (ledger.look_up(pair, &known)) {
        case PairLedger::Next::kKnown:
            context.add_relative(*known);
            return;
        case PairLedger::Next::kCycle:
            return;
        case PairLedger::Next::kGiveUp:
            context.add(COMPATIBILITY_CHECK_TOO_COMPLEX);
            return;
        case PairLedger::Next::kCompare:
            break;
    }
    // The pair is compared from an empty path, so that its differences can be remembered
    // relative to it and placed wherever the pair comes up.
    ledger.enter(pair);
    DiffContext pair_context(ledger);
    compare_kinds(pair_context, original, update);
    ledger.leave(pair, pair_context.differences());
    context.add_relative(pair_context.differences());
}

std::vector<Difference> diff_schemas(const SchemaNode* writer, const SchemaNode* reader,
                                     DiffLimits limits) {
    PairLedger ledger(limits);
    DiffContext context(ledger);
    compare(context, writer, reader);
    std::vector<Difference> differences = context.differences();
    // Giving up inside a tried match leaves no trace once the match is dropped: say it here.
    bool reported = std::any_of(differences.begin(), differences.end(), [](const Difference& d) {
        return d.type == COMPATIBILITY_CHECK_TOO_COMPLEX;
    });
    if (ledger.gave_up() && !reported)
        differences.push_back({COMPATIBILITY_CHECK_TOO_COMPLEX, "#/"});
    return differences;
}

}  // namespace skiff::schema_registry::json_schema
