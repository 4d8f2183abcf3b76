//===- DeriveBackward.h - derive-backward's class ---------------*- C++ -*-===//
//
// Private to passes/: the pass's class, shared by DeriveBackward.cpp (the
// gradients, the reverse walk, the syncs, the optimizer) and
// DeriveBackwardSaved.cpp (what the backward reads from the forward: saved
// or recomputed). See DeriveBackward.cpp for what the pass builds.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_DERIVEBACKWARD_H
#define SHARDC_PASSES_DERIVEBACKWARD_H

#include "diag/Diagnostic.h"
#include "ir/Backward.h"
#include "passes/ParamResolver.h"
#include "passes/Pipeline.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace shardc {

class DeriveBackward : public Pass, private GradientBuilder {
public:
  llvm::StringRef name() const override { return "derive-backward"; }
  bool run(MeshCompile &C, DiagnosticEngine &Diags) override;

private:
  // GradientBuilder.
  bool needsGrad(const Value *V) const override {
    return V->type().Elt != DType::int32;
  }
  Value *grad(const Value *V) override;
  /// The axes over which every forward use of \p V in its own block makes
  /// its gradient a partial sum (none: the gradient is reduced per use).
  AxisSet sharedPartials(const Value *V) const;
  /// The axes over which every forward use of \p V sends it a partial-sum
  /// gradient (Differentiable::gradientPartials); none when it has no forward
  /// use, or (with \p Home) a use outside block \p Home.
  std::optional<AxisSet> forwardPartials(const Value *V,
                                         const Block *Home) const;
  /// The axes over which a MoE dispatch's buffer \p V keeps its gradient a
  /// partial sum, because the combine that carries it back to tokens sharded
  /// over them reduce-scatters it (expert tensor parallelism with sequence-
  /// parallel tokens); none elsewhere.
  AxisSet scatteredPartials(const Value *V) const;
  /// Reduces the summed gradient \p L of a shared value once.
  Value *reduceShared(const Value *V, llvm::SmallVector<Value *, 2> &L);
  ShardType gradType(const Value *V) const override;
  bool accumulatesInPlace(const Value *V) const override {
    return isParam(V) && !Params->info(V).SyncEveryMicrobatch;
  }
  void contribute(const Value *V, Value *G) override;
  Value *saved(const Value *V) override;
  void keep(const Op &F) override;
  Value *reshardTo(Value *G, const ShardType &T, const Op &F,
                   const Value *Wrt) override;
  OpBuilder &builder() override { return *B; }
  unsigned statement(const Op &F, const Value *Wrt, OpKind K) override;
  std::string gradName(const Value *Wrt) const override {
    return "d" + Wrt->name();
  }

  // The reverse walk.
  void block(const Block &Fwd);
  void repeat(const RepeatOp &R);
  void leaf(const Op &O);
  void seed(const Value *V);
  void exportToOuter(const RepeatOp &R, RepeatOp &BR,
                     llvm::ArrayRef<Value *> Entering, Block &Outer);
  Value *recompute(const Value *V);
  /// The versions of a value held in \p B: one per iteration of each
  /// repeat around it.
  static int64_t versionsIn(const Block *B);
  void recomputeBody(const Block &Fwd);
  void flushSyncs(const Block &Fwd);
  void emitSync(const Value *P);
  void optimizer(const Block &Fwd);
  /// `fixed_costs = priced`: param \p P's passes before its update (inf
  /// check, norm) and after it (master copy of \p Updated, zeroing).
  void fixedBefore(const ParamOp &P);
  void fixedAfter(const ParamOp &P, Value *Updated);
  /// The norm's (or the inf flag's) one AllReduce over every chip.
  void normReduce();
  /// A param's gradient was given an inf check (fp16 loss scaling): the
  /// step's AllReduce carries the found-inf flag.
  bool LossScaled = false;
  unsigned fixedStatement(const ParamOp &P, OpKind K, llvm::StringRef What);

  unsigned newStatement(std::string Name, Loc L, OpKind K, Phase Ph,
                        Provenance From);
  void addContribution(const Value *V, Value *G) {
    Scopes.back().Contribs[V].push_back(G);
  }
  bool isParam(const Value *V) const { return isa<ParamOp>(V->def()); }

  /// One body being differentiated: the contributions to every value
  /// received in it, and the forward values recomputed in it.
  struct Scope {
    explicit Scope(const Block *Fwd) : Fwd(Fwd) {}
    const Block *Fwd;
    /// In the order values first received one (program output stays
    /// deterministic).
    llvm::MapVector<const Value *, llvm::SmallVector<Value *, 2>> Contribs;
    llvm::DenseMap<const Value *, Value *> Recomputed;
  };

  MeshCompile *C = nullptr;
  DiagnosticEngine *Diags = nullptr;
  const TrainConfig *Train = nullptr;
  /// Whether an op's kept values were re-run instead (selective and
  /// attention recompute): `recompute = attention` without one does what
  /// `none` does.
  bool RecomputedKept = false;
  std::shared_ptr<ProgramInfo> Info;
  std::unique_ptr<Module> TM;
  std::unique_ptr<OpBuilder> B;
  std::unique_ptr<ParamResolver> Params;
  int64_t Repeat = 1; ///< product of the enclosing trip counts
  std::vector<Scope> Scopes;
  /// Forward facts taken before any backward op adds users.
  ForwardFacts Facts;
  llvm::DenseMap<const Value *, unsigned> UsesLeft; ///< params
  llvm::DenseMap<const Value *, ShardType> CarriedGradType;
  llvm::DenseMap<const Value *, int64_t> InitMultiplicity;
  llvm::SetVector<const Value *> SavedSet;
  /// Per saved value, the innermost block its definition shares with a
  /// backward read of it (the one nearest the definition, of all reads).
  llvm::DenseMap<const Value *, const Block *> SavedHeldIn;
  llvm::SetVector<const Op *> KeptSet;
  llvm::SmallVector<const Value *, 4> PendingSyncs;
  llvm::DenseMap<const Value *, Value *> Synced;
};

} // namespace shardc

#endif
