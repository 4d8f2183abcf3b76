//===- ParamResolver.h - A training step's params on a mesh -----*- C++ -*-===//
//
// LANGUAGE.md §7 on one mesh: each param's reduction axes (those its
// weight-gradient contractions sum over) and replica axes (those sharding
// none of its dims), the sharding ZeRO gives its optimizer state and
// gradient buffer, and the type its gradient accumulates in (its stored
// sharding with partial sums over the reduction axes, at the `grad` dtype).
// Also clones the forward program for derive-backward, storing params
// sharded over their replica axes under ZeRO 3, and takes the forward facts
// the backward walk needs before backward ops add uses.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_PARAMRESOLVER_H
#define SHARDC_PASSES_PARAMRESOLVER_H

#include "passes/Pipeline.h"
#include "llvm/ADT/DenseSet.h"

namespace shardc {

/// What the reverse walk needs to know of the forward program.
struct ForwardFacts {
  /// Forward uses of each value; a carried value's Next counts the next
  /// iteration's read.
  llvm::DenseMap<const Value *, unsigned> Uses;
  llvm::DenseMap<const Value *, const Block *> DefBlock;
  llvm::DenseMap<const Value *, const RepeatOp *> CarriedNext;
  /// Inputs of contractions and attention, and attention's output: what
  /// selective recompute saves.
  llvm::DenseSet<const Value *> SavesInput;
};

class ParamResolver {
public:
  ParamResolver(const MeshCompile &C, const TrainConfig &Train)
      : C(C), Train(Train) {}

  /// Clones \p Checked's forward into \p B's module and resolves every
  /// param. False after reporting a param no ZeRO sharding fits.
  bool cloneForward(const Module &Checked, OpBuilder &B,
                    DiagnosticEngine &Diags);
  /// The facts of the cloned forward in \p Body.
  ForwardFacts facts(const Block &Body) const;

  const ParamInfo &info(const Value *P) const { return Infos[Index.lookup(P)]; }
  /// The type \p P's gradient contributions accumulate in.
  ShardType gradientType(const Value *P) const;
  /// True when \p B (or a block nested in it) declares a param.
  bool anyIn(const Block &B) const;
  std::vector<ParamInfo> takeInfos() { return std::move(Infos); }

private:
  AxisSet reductionAxes(const Value *P) const;
  /// \p T with \p Axes appended to the first dim they divide evenly, in
  /// mesh order but those of \p Minor last; none when no dim does.
  std::optional<ShardType> shardOver(ShardType T, AxisSet Axes,
                                     AxisSet Minor = {}) const;
  bool resolve(const ParamOp &P, DiagnosticEngine &Diags);

  const MeshCompile &C;
  const TrainConfig &Train;
  std::vector<ParamInfo> Infos;
  llvm::DenseMap<const Value *, unsigned> Index;
};

} // namespace shardc

#endif // SHARDC_PASSES_PARAMRESOLVER_H
