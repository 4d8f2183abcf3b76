//===- ReshardPlan.h - The collectives a sharding change needs --*- C++ -*-===//
//
// COST-MODEL.md §2's table, per mesh axis, turned into an ordered list of
// steps: free local slices first (they only shrink the array), then
// ReduceScatter, AllReduce, AllToAll and AllGather, fused over axes of the
// same kind on the same dim; a final AllToAll fixes the axis order inside a
// dim when it still differs (`I_XY` -> `I_YX`).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_RESHARDPLAN_H
#define SHARDC_PASSES_RESHARDPLAN_H

#include "ir/IR.h"
#include "passes/Placement.h"
#include <optional>

namespace shardc {

struct ReshardStep {
  OpKind Kind; ///< Slice or a collective
  llvm::SmallVector<unsigned, 2> Axes;
  int Dim = -1, DstDim = -1;
  ShardType Before, After;
};
using ReshardSteps = llvm::SmallVector<ReshardStep, 2>;

/// The steps turning \p From into \p To (same dims), or nullopt when no
/// sequence can (the target is unreduced over an axis the source is not).
/// With \p EvenOn (the mesh, when padding is not allowed) the steps are
/// ordered so that every intermediate type divides evenly on it.
std::optional<ReshardSteps> planReshard(const ShardType &From,
                                        const ShardType &To,
                                        const MeshSpec *EvenOn = nullptr);

/// The summed time of the collectives among \p Steps.
double stepsTime(llvm::ArrayRef<ReshardStep> Steps, const MeshSpec &M,
                 PlacementCache &Cache);
unsigned countCollectives(llvm::ArrayRef<ReshardStep> Steps);

} // namespace shardc

#endif
