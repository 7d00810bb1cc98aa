// The state of one comparison of two JSON schemas, shared by the comparison's files (one per
// kind of schema: json_schema_{object,array,combined,scalar}_diff.cpp, tied together by
// json_schema_diff.cpp), as Confluent's diff.Context is.
//
// A DiffContext collects differences at a JSON path. A subcontext starts at the same path with
// no differences; the comparison uses one to try a match (a subschema of a oneOf against each of
// the other schema's) and keeps its differences only if the match is compatible. All contexts of
// one comparison share one PairLedger (json_schema_diff_ledger.h), which keeps it finite and
// cheap.
//
// A context keeps at most kMaxDifferences differences. The same subschema reached by several
// paths (three oneOf branches all leading to one definition, at every level of a recursion)
// reports its differences once per path, and that multiplies; past the bound, compatible
// differences are dropped and an incompatible one is kept in place of one, so the verdict is
// never lost, only the repetition.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "broker/schema_registry/formats/json_schema_diff_ledger.h"
#include "broker/schema_registry/formats/json_schema_difference.h"
#include "broker/schema_registry/formats/json_schema_model.h"

namespace skiff::schema_registry::json_schema {

inline constexpr std::size_t kMaxDifferences = 1000;

class DiffContext {
  public:
    explicit DiffContext(PairLedger& ledger) : ledger_(&ledger) {}

    DiffContext subcontext() const {
        DiffContext sub(*ledger_);
        sub.path_ = path_;
        return sub;
    }
    PairLedger& ledger() { return *ledger_; }

    // Adds a path segment ("properties/age", "allOf/1") for as long as the scope lives.
    class PathScope {
      public:
        PathScope(DiffContext& context, std::string segment) : context_(context) {
            context_.path_.push_back(std::move(segment));
        }
        ~PathScope() { context_.path_.pop_back(); }
        PathScope(const PathScope&) = delete;
        PathScope& operator=(const PathScope&) = delete;

      private:
        DiffContext& context_;
    };
    PathScope enter(std::string segment) { return PathScope(*this, std::move(segment)); }

    std::string path() const;
    void add(DifferenceType type) { keep({type, path()}); }
    void add(const std::string& keyword, DifferenceType type) {
        PathScope scope(*this, keyword);
        add(type);
    }
    void add_all(const std::vector<Difference>& differences) {
        for (const Difference& difference : differences)
            keep(difference);
    }
    // Adds differences whose paths are relative to the current path ("#/" being the path
    // itself), as a remembered pair's are.
    void add_relative(const std::vector<Difference>& differences);

    bool compatible() const;
    const std::vector<Difference>& differences() const { return differences_; }

  private:
    void keep(Difference difference);

    PairLedger* ledger_;
    std::vector<std::string> path_;
    std::vector<Difference> differences_;
};

// A limit keyword (maxLength, minimum, maxItems, ...) compared: added, removed, raised or
// lowered, each reported at path/keyword.
template <typename Value>
void compare_limit(DiffContext& context, const std::string& keyword,
                   const std::optional<Value>& original, const std::optional<Value>& update,
                   DifferenceType added, DifferenceType removed, DifferenceType increased,
                   DifferenceType decreased) {
    if (!original && update)
        context.add(keyword, added);
    else if (original && !update)
        context.add(keyword, removed);
    else if (original && update && *original < *update)
        context.add(keyword, increased);
    else if (original && update && *original > *update)
        context.add(keyword, decreased);
}

// The comparison's entry for any two subschemas (json_schema_diff.cpp): `original` is the
// writer's, `update` the reader's; null means the schema has none there.
void compare(DiffContext& context, const SchemaNode* original, const SchemaNode* update);

// One per kind, called once both are known to be of that kind.
void compare_objects(DiffContext& context, const ObjectRules& original, const ObjectRules& update);
void compare_arrays(DiffContext& context, const ArrayRules& original, const ArrayRules& update);
void compare_combined(DiffContext& context, const CombinedRules& original,
                      const CombinedRules& update);
void compare_strings(DiffContext& context, const StringRules& original, const StringRules& update);
void compare_numbers(DiffContext& context, const NumberRules& original, const NumberRules& update);
void compare_enums(DiffContext& context, const EnumRules& original, const EnumRules& update);
void compare_consts(DiffContext& context, const ConstRules& original, const ConstRules& update);
void compare_nots(DiffContext& context, const NotRules& original, const NotRules& update);

}  // namespace skiff::schema_registry::json_schema
