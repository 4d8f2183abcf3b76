//===- DeriveBackwardSaved.cpp - What the backward reads from the forward -===//
//
// derive-backward's saved values and recomputation (COST-MODEL.md §5): a
// forward value a backward op reads is saved (counted as an activation, once
// per version held) or recomputed, as `recompute` says; what ops keep beyond
// their result; `recompute = full`'s re-run of a body.
//
//===----------------------------------------------------------------------===//
#include "passes/DeriveBackward.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace shardc;

/// A reshard that only gathers (same dtype, its axes a subset of its
/// source's, fewer of them).
static bool isGather(const Value *V) {
  auto *R = dyn_cast<ReshardOp>(V->def());
  if (!R)
    return false;
  const ShardType &Src = R->operand(0)->type(), &T = V->type();
  AxisSet SrcAxes = Src.axesUsed(), Axes = T.axesUsed();
  return Src.Elt == T.Elt && T.Unreduced.empty() && Src.Unreduced.empty() &&
         Axes.without(SrcAxes).empty() && Axes != SrcAxes;
}

/// A reshard that only reduces partial sums (its source has unreduced axes
/// its result has not, and it gathers nothing): running it again would
/// repeat its AllReduce or ReduceScatter. One that also gathers is
/// recomputed, as a gather is, rather than stored at its gathered size.
static bool isReduction(const Value *V) {
  auto *R = dyn_cast<ReshardOp>(V->def());
  if (!R)
    return false;
  const ShardType &Src = R->operand(0)->type(), &T = V->type();
  // The axes sharding the source's dims that shard nothing in the result.
  AxisSet Gathered =
      Src.axesUsed().without(Src.Unreduced).without(T.axesUsed());
  return !Src.Unreduced.without(T.Unreduced).empty() && Gathered.empty();
}

/// True when \p O saves its inputs for its backward (Differentiable).
static bool savesInputs(const Op &O) {
  auto *D = dyn_cast<Differentiable>(&O);
  return D && D->savesInputs();
}

/// The block enclosing \p B, if any.
static const Block *enclosing(const Block *B) {
  return B->parentOp() ? B->parentOp()->parent() : nullptr;
}

/// The innermost block around both \p Def and \p Reader.
static const Block *commonBlock(const Block *Def, const Block *Reader) {
  llvm::SmallPtrSet<const Block *, 8> ReaderChain;
  for (const Block *B = Reader; B; B = enclosing(B))
    ReaderChain.insert(B);
  for (const Block *B = Def; B; B = enclosing(B))
    if (ReaderChain.count(B))
      return B;
  return nullptr;
}

/// The versions of a value held in \p B: one per iteration of each repeat
/// around it.
int64_t DeriveBackward::versionsIn(const Block *B) {
  int64_t N = 1;
  for (; B && B->parentOp(); B = enclosing(B))
    if (auto *R = dyn_cast<RepeatOp>(B->parentOp()))
      N *= R->tripCount();
  return N;
}

Value *DeriveBackward::saved(const Value *V) {
  for (auto S = Scopes.rbegin(); S != Scopes.rend(); ++S)
    if (Value *R = S->Recomputed.lookup(V))
      return R;
  bool Outside = Facts.DefBlock.lookup(V) != Scopes.back().Fwd;
  // A gather is gathered again from its sharded source rather than stored,
  // whatever the policy: Megatron-LM's sequence parallelism keeps the
  // sharded input and repeats the AllGather in the backward
  // (docs/training.md).
  if (!Outside && isGather(V))
    return recompute(V);
  // Selective recompute re-runs the cheap ops only: what a matmul-class op
  // (contraction, attention) produced is kept like its inputs, rather than
  // recomputed by a second matmul, and so is a reduction's result, rather
  // than reduced again by a second collective (docs/training.md).
  bool Kept = Train->Recompute != RecomputePolicy::Selective || Outside ||
              isa<InputOp, ParamOp>(V->def()) || Facts.SavesInput.count(V) ||
              savesInputs(*V->def()) || isReduction(V);
  if (!Kept)
    return recompute(V);
  if (!isParam(V)) {
    SavedSet.insert(V);
    // The read nearest the definition decides how many versions are held:
    // a read in the defining block holds one per iteration, a read after
    // the repeat only the last.
    const Block *Held =
        commonBlock(Facts.DefBlock.lookup(V), Scopes.back().Fwd);
    const Block *&Known = SavedHeldIn[V];
    if (!Known || versionsIn(Held) > versionsIn(Known))
      Known = Held;
  }
  return const_cast<Value *>(V);
}

void DeriveBackward::keep(const Op &F) {
  // A recomputed op writes what it keeps again, just before its backward
  // reads it: nothing is held across the step.
  for (const Scope &S : Scopes)
    if (S.Recomputed.count(F.result()))
      return;
  // Selective recompute re-runs what Megatron-LM's does (the unfused
  // attention core) for what it keeps, rather than holding it; its result
  // stays saved when other backward ops read it. `attention` does only
  // this, saving everything else as `none` does.
  if ((Train->Recompute == RecomputePolicy::Selective ||
       Train->Recompute == RecomputePolicy::Attention) &&
      cast<Differentiable>(F).selectivelyRecomputed() &&
      Facts.DefBlock.lookup(F.result()) == Scopes.back().Fwd) {
    // The backward ops read the saved result, not the re-run's.
    RecomputedKept = true;
    recompute(F.result());
    Scopes.back().Recomputed.erase(F.result());
    return;
  }
  KeptSet.insert(&F);
}

Value *DeriveBackward::recompute(const Value *V) {
  const Op &F = *V->def();
  OpBuilder::ValueMap Operands;
  for (const Value *O : F.operands())
    Operands[O] = saved(O);
  unsigned St =
      newStatement("recompute " + V->name(), F.loc(), F.kind(), Phase::Backward,
                   {Provenance::Recompute, F.stmt(), V->name()});
  Value *R = B->clone(F, Operands, [&](const Op &) { return St; })->result();
  Scopes.back().Recomputed[V] = R;
  return R;
}

/// Full recompute: the backward of an iteration first re-runs its forward.
void DeriveBackward::recomputeBody(const Block &Fwd) {
  OpBuilder::ValueMap Map;
  llvm::DenseMap<unsigned, unsigned> Stmts;
  auto StmtOf = [&](const Op &Src) {
    if (Src.stmt() == NoStmt)
      return NoStmt;
    auto [It, New] = Stmts.try_emplace(Src.stmt(), 0);
    if (New) {
      const Statement &S = Info->Statements[Src.stmt()];
      It->second = newStatement("recompute " + S.Name, S.Location, S.Kind,
                                Phase::Backward,
                                {Provenance::Recompute, Src.stmt(), S.Name});
    }
    return It->second;
  };
  for (const auto &O : Fwd.ops()) {
    if (isa<ParamOp>(O.get()))
      continue;
    // What the iteration reads from outside (its carried value, shared
    // inputs) is what full recompute keeps.
    for (Value *In : O->operands())
      if (!Map.count(In) && !isParam(In))
        Map[In] = saved(In);
    B->clone(*O, Map, StmtOf);
  }
  for (auto [From, To] : Map)
    Scopes.back().Recomputed[From] = To;
}
