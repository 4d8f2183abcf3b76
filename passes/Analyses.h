//===- Analyses.h - What the passes find, as side tables --------*- C++ -*-===//
//
// The passes never write results into the IR: each fills a table here,
// keyed by statement or by the lowered module's op ids, and the report, the
// annotated IR printer and the re-cost API read the tables. Plans are kept
// as data (which step, on which value, over which axes, at what time); the
// sentences the report prints are rendered from them (Describe.h).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_ANALYSES_H
#define SHARDC_PASSES_ANALYSES_H

#include "ir/Module.h"
#include "ir/Resharding.h"
#include "passes/CostModel.h"
#include <optional>
#include <vector>

namespace shardc {

/// One step of a plan as the user reads it: `AllGather 'A' over X`,
/// `convert 'g' to fp32`.
struct PlanStep {
  StepKind Kind;     ///< Slice, Convert or a collective
  std::string Value; ///< the value it applies to (operand or result name)
  AxisList Axes;     ///< none for a conversion
  DType Elt;         ///< the dtype after the step (what a Convert makes)
};

/// A whole plan for one statement, the op time it gives and the bytes it
/// moves (over its collectives, the busiest uplink's bytes of each level).
struct PlanSummary {
  llvm::SmallVector<PlanStep, 4> Steps; ///< empty: the local product
  double Time = 0;
  double BytesMoved = 0;
};

/// insert-collectives' choice for a contraction or a reshard that converts:
/// the plan it took and the best one it rejected (absent when there was no
/// alternative).
struct PlanChoice {
  PlanSummary Chosen;
  std::optional<PlanSummary> Rejected;
  /// The lowered op the choice is remarked on: the local product, or the
  /// conversion.
  unsigned At = 0;
  /// The two plans' op times tie, so the choice fell to bytes moved (or
  /// then to the number of collectives, or the order): the renderings then
  /// show the bytes too.
  bool TimesTie = false;
};

/// Program totals (COST-MODEL.md §4), repeat counts applied.
struct ProgramCost {
  double Time = 0, TMath = 0, THbm = 0, TComms = 0;
  double Flops = 0; ///< useful FLOPs over all chips (contractions)
  double Mfu = 0;
  llvm::SmallVector<double, 4> LevelBytes; ///< per level, through one uplink
};

/// Every table one mesh's compile fills.
struct Analyses {
  /// insert-collectives: by statement, for contractions and converting
  /// reshards.
  std::vector<std::optional<PlanChoice>> Choices;
  /// place-collectives: by lowered op id, for collectives.
  std::vector<std::optional<CollectiveCost>> Collectives;
  /// estimate-costs: by lowered op id (local ops and collectives), by
  /// statement, and the totals.
  std::vector<std::optional<OpCost>> OpCosts;
  std::vector<std::optional<OpCost>> StatementCosts;
  std::optional<ProgramCost> Totals;
};

} // namespace shardc

#endif // SHARDC_PASSES_ANALYSES_H
