// What one comparison of two JSON schemas knows about the pairs of subschemas it compares: which
// are being compared (the stack), what the ones compared before gave, and what it has cost.
// It keeps the comparison finite and cheap:
//
// - Recursive schemas: a pair met again while it is being compared further up is a cycle and
//   counts as compatible there, as in Confluent (the greatest fixed point: a recursive type is
//   compatible unless some finite unfolding shows otherwise). Deep in the stack (kLooseCycleDepth
//   pairs), the writer's subschema alone being compared further up is enough, as in Confluent
//   8.0: recursions of different lengths on the two sides (3 definitions against 5) otherwise
//   unfold to the least common multiple of the lengths before a pair repeats.
// - Combinations: oneOf against oneOf compares every subschema with every other, and nested
//   combinations multiply that. A pair's differences are remembered (relative to the pair) and
//   reused wherever it comes up again. A result that relied on a cycle of a pair still being
//   compared further up holds only while that pair is on the stack: it is reused until then and
//   forgotten when that pair is done; a result that relied on nothing, or only on itself, holds
//   for good.
// - Cost: past DiffLimits::max_comparisons compared pairs or max_depth nested ones, the
//   comparison gives up, and the check reports COMPATIBILITY_CHECK_TOO_COMPLEX (incompatible): a
//   broker thread must not spend minutes or its whole stack on one registration, and accepting a
//   change that was not checked is worse than asking for a simpler one.
#pragma once

#include <cstddef>
#include <map>
#include <utility>
#include <vector>

#include "broker/schema_registry/formats/json_schema_difference.h"
#include "broker/schema_registry/formats/json_schema_model.h"

namespace skiff::schema_registry::json_schema {

struct DiffLimits {
    std::size_t max_comparisons = 1'000'000;
    int max_depth = 400;
    int loose_cycle_depth = 64;
};

class PairLedger {
  public:
    using NodePair = std::pair<const SchemaNode*, const SchemaNode*>;  // writer's, reader's

    explicit PairLedger(DiffLimits limits) : limits_(limits) {}

    enum class Next {
        kCompare,  // compare it, between enter() and leave()
        kKnown,    // its differences are `known`
        kCycle,    // it is being compared further up: nothing to add
        kGiveUp,   // too costly: report COMPATIBILITY_CHECK_TOO_COMPLEX
    };
    Next look_up(const NodePair& pair, const std::vector<Difference>** known);
    void enter(const NodePair& pair);
    void leave(const NodePair& pair, const std::vector<Difference>& differences);
    bool gave_up() const { return gave_up_; }

  private:
    struct Frame {
        NodePair pair;
        int relies_on;  // the lowest frame whose cycle this frame's result counted on
    };
    void rely_on(int frame);

    DiffLimits limits_;
    std::vector<Frame> stack_;
    std::map<NodePair, int> in_progress_;                      // pair to its frame
    std::map<const SchemaNode*, std::vector<int>> originals_;  // writer's node to its frames
    std::map<NodePair, std::vector<Difference>> settled_;
    std::map<NodePair, std::pair<std::vector<Difference>, int>> provisional_;  // and its frame
    std::vector<std::vector<NodePair>> provisional_by_frame_;
    std::size_t comparisons_ = 0;
    bool gave_up_ = false;
};

}  // namespace skiff::schema_registry::json_schema
