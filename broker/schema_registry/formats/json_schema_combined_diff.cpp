// allOf, anyOf and oneOf against one another (Confluent's CombinedSchemaDiff).
//
// First the criterion: the same, or one the reader reads more with (anything to anyOf; a
// singleton to oneOf or to another singleton; allOf to a singleton) is compatible, any other
// change is COMBINED_TYPE_CHANGED and ends the comparison. Then the subschemas, duplicates
// collapsed: more or fewer of them is SUM_TYPE_EXTENDED/NARROWED (anyOf, oneOf) or
// PRODUCT_TYPE_EXTENDED/ NARROWED (allOf). Then every writer subschema is compared with every
// reader subschema, and the compatible pairs are matched one to one, as many as possible (a maximum
// bipartite matching): if the matching does not cover the smaller side, some subschema has no
// compatible partner and the change is COMBINED_TYPE_SUBSCHEMAS_CHANGED. The matched pairs' own
// differences are kept, at the writer subschema's path ("#/oneOf/0/maxLength").
#include <optional>

#include "broker/schema_registry/formats/json_schema_diff_context.h"

namespace skiff::schema_registry::json_schema {
namespace {

using enum DifferenceType;

std::string criterion_name(Criterion criterion) {
    switch (criterion) {
        case Criterion::kAllOf:
            return "allOf";
        case Criterion::kAnyOf:
            return "anyOf";
        case Criterion::kOneOf:
            return "oneOf";
    }
    return "";
}

std::optional<DifferenceType> compare_criteria(const CombinedRules& original,
                                               const CombinedRules& update) {
    if (original.criterion == update.criterion)
        return std::nullopt;
    bool original_singleton = original.subschemas.size() == 1;
    bool update_singleton = update.subschemas.size() == 1;
    // Reading with anyOf accepts whatever allOf or oneOf accepted; between singletons the
    // criterion means nothing; a singleton read as oneOf is the same; an allOf read through a
    // single subschema accepts more.
    if (update.criterion == Criterion::kAnyOf || (original_singleton && update_singleton) ||
        (original_singleton && update.criterion == Criterion::kOneOf) ||
        (update_singleton && original.criterion == Criterion::kAllOf))
        return COMBINED_TYPE_EXTENDED;
    return COMBINED_TYPE_CHANGED;
}

// The subschemas with duplicates (the same JSON) left out, first occurrences kept.
std::vector<const SchemaNode*> distinct(const std::vector<const SchemaNode*>& subschemas) {
    std::vector<const SchemaNode*> out;
    for (const SchemaNode* subschema : subschemas) {
        bool seen = false;
        for (const SchemaNode* kept : out)
            seen = seen || same_source(*kept, *subschema);
        if (!seen)
            out.push_back(subschema);
    }
    return out;
}

// Kuhn's augmenting paths: the sides hold a few subschemas, so its O(V*E) is nothing.
class Matching {
  public:
    explicit Matching(const std::vector<std::vector<bool>>& compatible)
        : compatible_(compatible),
          partner_of_update_(compatible.empty() ? 0 : compatible[0].size(), -1) {
        for (std::size_t original = 0; original < compatible_.size(); ++original) {
            std::vector<bool> visited(partner_of_update_.size(), false);
            augment(static_cast<int>(original), visited);
        }
    }
    // For each update subschema, the original subschema matched with it, or -1.
    const std::vector<int>& partners() const { return partner_of_update_; }

  private:
    bool augment(int original, std::vector<bool>& visited) {
        for (std::size_t update = 0; update < partner_of_update_.size(); ++update) {
            if (!compatible_[original][update] || visited[update])
                continue;
            visited[update] = true;
            if (partner_of_update_[update] < 0 || augment(partner_of_update_[update], visited)) {
                partner_of_update_[update] = original;
                return true;
            }
        }
        return false;
    }

    const std::vector<std::vector<bool>>& compatible_;
    std::vector<int> partner_of_update_;
};

}  // namespace

void compare_combined(DiffContext& context, const CombinedRules& original,
                      const CombinedRules& update) {
    std::optional<DifferenceType> criterion = compare_criteria(original, update);
    if (criterion)
        context.add(*criterion);
    if (criterion == COMBINED_TYPE_CHANGED)
        return;

    std::vector<const SchemaNode*> before = distinct(original.subschemas);
    std::vector<const SchemaNode*> after = distinct(update.subschemas);
    // More subschemas are named after the reader's criterion, fewer after the writer's: an
    // allOf losing subschemas is PRODUCT_TYPE_NARROWED (compatible) even when read as anyOf.
    if (before.size() < after.size())
        context.add(update.criterion == Criterion::kAllOf ? PRODUCT_TYPE_EXTENDED
                                                          : SUM_TYPE_EXTENDED);
    else if (before.size() > after.size())
        context.add(original.criterion == Criterion::kAllOf ? PRODUCT_TYPE_NARROWED
                                                            : SUM_TYPE_NARROWED);

    std::vector<std::vector<bool>> compatible(before.size(), std::vector<bool>(after.size()));
    std::vector<std::vector<std::vector<Difference>>> differences(
        before.size(), std::vector<std::vector<Difference>>(after.size()));
    for (std::size_t i = 0; i < before.size(); ++i) {
        auto scope = context.enter(criterion_name(original.criterion) + "/" + std::to_string(i));
        for (std::size_t j = 0; j < after.size(); ++j) {
            DiffContext attempt = context.subcontext();
            compare(attempt, before[i], after[j]);
            compatible[i][j] = attempt.compatible();
            if (compatible[i][j])
                differences[i][j] = attempt.differences();
        }
    }
    Matching matching(compatible);
    std::size_t matched = 0;
    for (std::size_t j = 0; j < after.size(); ++j) {
        int i = matching.partners()[j];
        if (i < 0)
            continue;
        ++matched;
        context.add_all(differences[i][j]);
    }
    if (matched < std::min(before.size(), after.size()))
        context.add(COMBINED_TYPE_SUBSCHEMAS_CHANGED);
}

}  // namespace skiff::schema_registry::json_schema
