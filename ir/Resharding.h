//===- Resharding.h - The steps a sharding change needs ---------*- C++ -*-===//
//
// COST-MODEL.md §2's table, per mesh axis, turned into an ordered list of
// steps: free local slices first (they only shrink the array), then
// ReduceScatter, AllReduce, AllToAll and AllGather (CollectiveKinds.def's
// order), fused over axes of the same kind on the same dim; a final AllToAll
// fixes the axis order inside a dim when it still differs (`I_XY` ->
// `I_YX`). Pure type algebra: which steps exist does not depend on the
// mesh's sizes (only their order may, to keep intermediates even), so the
// frontend can check that a plan exists and the passes price it per mesh.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_IR_RESHARDING_H
#define SHARDC_IR_RESHARDING_H

#include "ir/Ops.h"
#include <optional>

namespace shardc {

/// What one step of a plan does. Its own closed set (not OpKind), so a new
/// op kind never touches the planners: a slice, each collective in
/// CollectiveKinds.def's order (the order a plan runs them in), and the view
/// that converts a typed reshard's dtype before its collectives.
enum class StepKind : uint8_t {
  Slice,
#define COLLECTIVE(Name, Mnemonic) Name,
#include "ir/CollectiveKinds.def"
  View,
};
std::optional<CollectiveKind> collectiveOf(StepKind K);
StepKind stepOf(CollectiveKind K);

/// One step of a plan, before it is an op.
struct ReshardStep {
  StepKind Kind;
  AxisList Axes;
  int Dim = -1, DstDim = -1; ///< -1 where the kind names no dim
  ShardType Before, After;
};
using ReshardSteps = llvm::SmallVector<ReshardStep, 2>;

/// The type a step of kind \p K (not a view) turns \p In into: the op
/// classes' own rules.
ShardType applyStep(StepKind K, const ShardType &In,
                    llvm::ArrayRef<AxisId> Axes, int Dim, int DstDim);

/// The steps turning \p From into \p To (same dims), or nullopt when no
/// sequence can (the target is unreduced over an axis the source is not).
/// With \p EvenOn (the mesh, when padding is not allowed) the steps are
/// ordered so that every intermediate type divides evenly on it.
std::optional<ReshardSteps> planReshard(const ShardType &From,
                                        const ShardType &To,
                                        const MeshSpec *EvenOn = nullptr);

/// V of the collective \p S on \p M (0 for a slice).
double stepGroupBytes(const ReshardStep &S, const MeshSpec &M);

} // namespace shardc

#endif // SHARDC_IR_RESHARDING_H
