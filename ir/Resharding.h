//===- Resharding.h - The steps a sharding change needs ---------*- C++ -*-===//
//
// COST-MODEL.md §2's table, per mesh axis, turned into an ordered list of
// steps: free local slices first (they only shrink the array), then
// ReduceScatter, AllReduce, AllToAll and AllGather (CollectiveKinds.def's
// order), fused over axes of the same kind on the same dim; a final AllToAll
// fixes the axis order inside a dim when it still differs (`I_XY` ->
// `I_YX`). A change of dtype adds a conversion, which may run before any
// collective or after the last step: planConversions lists the places, the
// passes price them. Pure type algebra: which steps exist does not depend on
// the mesh's sizes (only their order may, to keep intermediates even), so
// the frontend can check that a plan exists and the passes price it per
// mesh.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_IR_RESHARDING_H
#define SHARDC_IR_RESHARDING_H

#include "ir/Ops.h"
#include <optional>

namespace shardc {

/// What one step of a plan does. Its own closed set (not OpKind), so a new
/// op kind never touches the planners: a slice, each collective in
/// CollectiveKinds.def's order (the order a plan runs them in), the view of
/// a reshard that moves nothing, and the conversion of a typed reshard.
enum class StepKind : uint8_t {
  Slice,
#define COLLECTIVE(Name, Mnemonic, ...) Name,
#include "ir/CollectiveKinds.def"
  View,
  Convert,
};
std::optional<CollectiveKind> collectiveOf(StepKind K);
StepKind stepOf(CollectiveKind K);
/// A step kind's name in a plan's description: `slice`, `view`, `convert`
/// or the collective's name (`AllGather`).
llvm::StringRef stepKindName(StepKind K);
/// What the lowered IR appends to the name of a step's result (`B.slice`,
/// `B.ag`): a local step's name, or the collective's short suffix.
llvm::StringRef stepSuffix(StepKind K);

/// One step of a plan, before it is an op.
struct ReshardStep {
  StepKind Kind;
  AxisList Axes;
  int Dim = -1, DstDim = -1; ///< -1 where the kind names no dim
  ShardType Before, After;
};
using ReshardSteps = llvm::SmallVector<ReshardStep, 2>;

/// The type a step of kind \p K (not a view or a conversion) turns \p In
/// into: the op classes' own rules.
ShardType applyStep(StepKind K, const ShardType &In,
                    llvm::ArrayRef<AxisId> Axes, int Dim, int DstDim);

/// The steps turning \p From's sharding into \p To's (same dims), or nullopt
/// when no sequence can (the target is unreduced over an axis the source is
/// not). They move \p From's dtype; a change of dtype is planConversions'.
/// With \p EvenOn (the mesh, when padding is not allowed) the steps are
/// ordered so that every intermediate type divides evenly on it, an
/// AllToAll that no order keeps even becoming an AllGather and a slice.
std::optional<ReshardSteps> planReshard(const ShardType &From,
                                        const ShardType &To,
                                        const MeshSpec *EvenOn = nullptr);

/// The candidates for a reshard that also changes the dtype (\p From.Elt !=
/// \p To.Elt): planReshard's steps with one Convert step before a
/// collective or after the last step, first place first (convert, then move
/// the target dtype) to last (move the source dtype, convert the result).
/// Never right before a slice: a slice only shrinks what the conversion
/// would touch, so converting after it is always cheaper. Steps before the
/// Convert move From's dtype, the rest To's. Empty when no plan exists.
llvm::SmallVector<ReshardSteps, 2>
planConversions(const ShardType &From, const ShardType &To,
                const MeshSpec *EvenOn = nullptr);

/// V of the collective \p S on \p M (0 for a slice).
double stepGroupBytes(const ReshardStep &S, const MeshSpec &M);

} // namespace shardc

#endif // SHARDC_IR_RESHARDING_H
