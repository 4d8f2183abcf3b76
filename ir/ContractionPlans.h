//===- ContractionPlans.h - The ways to compute a contraction ---*- C++ -*-===//
//
// The candidates of COST-MODEL.md §2's four contraction cases, as types: for
// every conflict between the operands' shardings, the ways to resolve it (a
// shared dim sharded differently is gathered down to the common prefix, or
// the less-sharded operand is sliced up to match; an axis on a free dim of
// both is gathered from one of them), and for each combination the operand
// types, the local product's natural type (partial sums over the contracted
// axes) and the steps to the written output. Which plans exist does not
// depend on the mesh's sizes, so the frontend checks that one does; the
// passes price them on a mesh and pick one.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_IR_CONTRACTIONPLANS_H
#define SHARDC_IR_CONTRACTIONPLANS_H

#include "ir/Resharding.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace shardc {

struct ContractionPlan {
  ShardType L, R, Natural; ///< the local product's operands and result
  ReshardSteps LSteps, RSteps, OutSteps;
};

/// A contraction as the planner sees it: operand and written result types.
struct ContractionShape {
  const ShardType &L, &R, &Out;
  llvm::ArrayRef<ContractionDim> Dims;
};

/// Calls \p F on every valid plan, in a fixed order (so ties between equally
/// cheap plans break the same way on every run). \p EvenOn orders each
/// plan's steps as planReshard does and drops the plans with a type that
/// does not divide evenly on it (without padding no such plan is priced).
void forEachContractionPlan(
    const ContractionShape &C, const MeshSpec *EvenOn,
    llvm::function_ref<void(const ContractionPlan &)> F);

/// True when at least one plan computes the contraction, whatever the
/// mesh: on a given mesh without padding, every plan may still go through
/// an uneven type, which the passes report at the op.
bool hasContractionPlan(const ContractionShape &C);

} // namespace shardc

#endif // SHARDC_IR_CONTRACTIONPLANS_H
