//===- ParamResolver.cpp - A training step's params on a mesh -------------===//
#include "passes/ParamResolver.h"
#include "diag/Diagnostic.h"

using namespace shardc;

namespace {

/// Every mesh axis \p T uses on no dim and not in its unreduced set.
AxisSet unusedAxes(const ShardType &T, const MeshSpec &M) {
  AxisSet All;
  for (unsigned A = 0; A < M.Axes.size(); ++A)
    All.insert(AxisId(A));
  return All.without(T.axesUsed());
}

/// Clones \p From into \p B, giving each param the type \p ParamType says.
void cloneBlock(const Block &From, OpBuilder &B, OpBuilder::ValueMap &Map,
                llvm::function_ref<ShardType(const ParamOp &)> ParamType) {
  for (const auto &O : From.ops()) {
    if (auto *P = dyn_cast<ParamOp>(O.get())) {
      Op *Copy = B.cloneAs(*P, {}, P->result()->name(), ParamType(*P));
      Map[P->result()] = Copy->result();
      continue;
    }
    auto *R = dyn_cast<RepeatOp>(O.get());
    if (!R) {
      B.clone(*O, Map);
      continue;
    }
    auto *Copy = B.createNoResult<RepeatOp>(R->loc(), NoStmt, R->tripCount(),
                                            R->pipelineAxis());
    Copy->copyShape(*R);
    OpBuilder Inner(B.module(), Copy->body());
    cloneBlock(R->body(), Inner, Map, ParamType);
    for (const RepeatOp::Carried &Cv : R->carried())
      Copy->addCarried(Map.lookup(Cv.Init) ? Map[Cv.Init] : Cv.Init,
                       Map[Cv.Next]);
  }
}

} // namespace

std::optional<ShardType> ParamResolver::shardOver(ShardType T, AxisSet Axes,
                                                  AxisSet Minor) const {
  if (Axes.empty())
    return T;
  const MeshSpec &M = C.mesh();
  int64_t N = axesProduct(Axes, M);
  for (TensorDim &D : T.Dims) {
    if (!C.config().AllowPadding && D.Size % (axesProduct(D.Axes, M) * N) != 0)
      continue;
    for (AxisId A : Axes.without(Minor).list())
      D.Axes.push_back(A);
    for (AxisId A : (Axes & Minor).list())
      D.Axes.push_back(A);
    return T;
  }
  return std::nullopt;
}

bool ParamResolver::cloneForward(const Module &Checked, OpBuilder &B,
                                 DiagnosticEngine &Diags) {
  bool Ok = true;
  OpBuilder::ValueMap Map;
  // A pipeline's axis places stages, each with its own params: no param is
  // a replica over it (LANGUAGE.md §9).
  AxisSet Stages;
  walk<RepeatOp>(Checked.body(), [&](const RepeatOp &R) {
    if (R.pipelineAxis())
      Stages.insert(*R.pipelineAxis());
  });
  auto ParamType = [&](const ParamOp &P) {
    const ShardType &Written = P.result()->type();
    ParamInfo PI;
    PI.Stmt = P.stmt();
    PI.Replica = unusedAxes(Written, C.mesh()).without(Stages);
    Infos.push_back(PI);
    if (Train.Zero != 3)
      return Written;
    // ZeRO 3 stores the param itself sharded over its replica axes, the
    // reduction axes minor as ZeRO 1's state (resolve): its per-microbatch
    // sync is then one ReduceScatter.
    if (auto T = shardOver(Written, PI.Replica, reductionAxes(P.result())))
      return *T;
    Diags.report(P.loc(), diag::ZeroNoDim, 3u, P.result()->name(),
                 axisNames(PI.Replica.list(), Checked.names()),
                 axesProduct(PI.Replica, C.mesh()),
                 Checked.typeStr(Written, false));
    Ok = false;
    return Written;
  };
  cloneBlock(Checked.body(), B, Map, ParamType);
  // The params in clone order are Infos' order.
  unsigned I = 0;
  walk<ParamOp>(B.module().body(), [&](const ParamOp &P) {
    Infos[I].Param = P.result();
    Index[P.result()] = I++;
  });
  for (const ParamInfo &PI : std::vector<ParamInfo>(Infos))
    Ok &= resolve(cast<ParamOp>(*PI.Param->def()), Diags);
  return Ok;
}

AxisSet ParamResolver::reductionAxes(const Value *P) const {
  AxisSet R;
  // The ops reading the param, directly or through reshards (a renamed or
  // cast copy, `w[E, F] = W;`): the gradients they send back reach the
  // param with the same partial sums.
  llvm::SmallVector<const Value *, 4> Work{P};
  while (!Work.empty()) {
    const Value *V = Work.pop_back_val();
    for (const Op *U : V->users()) {
      if (auto *Rs = dyn_cast<ReshardOp>(U)) {
        Work.push_back(Rs->result());
        continue;
      }
      auto *D = dyn_cast<Differentiable>(U);
      for (unsigned I = 0; D && I < U->numOperands(); ++I)
        if (U->operand(I) == V)
          R = R | D->gradientPartials(I);
    }
  }
  return R;
}

bool ParamResolver::resolve(const ParamOp &P, DiagnosticEngine &Diags) {
  ParamInfo &PI = Infos[Index.lookup(P.result())];
  const ShardType &Stored = P.result()->type();
  PI.Reduction = reductionAxes(P.result());
  std::optional<ShardType> Opt = Stored;
  if (P.stateType())
    Opt = withSharding(Stored, *P.stateType());
  else if (Train.Zero == 1 || Train.Zero == 2)
    // The reduction axes minor: the sync is then a local slice over the
    // other replica axes and one ReduceScatter (COST-MODEL.md §6.2), where
    // the reduction axes major would add an AllToAll to reorder the shards.
    Opt = shardOver(Stored, PI.Replica, PI.Reduction);
  if (!Opt) {
    Diags.report(P.loc(), diag::ZeroNoDim, Train.Zero, P.result()->name(),
                 axisNames(PI.Replica.list(), C.program().names()),
                 axesProduct(PI.Replica, C.mesh()),
                 C.program().typeStr(Stored, false));
    return false;
  }
  PI.Optimizer = *Opt;
  PI.Optimizer.Elt = Train.Grad;
  PI.GradBuffer = Train.Zero == 2 ? PI.Optimizer : Stored;
  PI.GradBuffer.Elt = Train.Grad;
  PI.SyncEveryMicrobatch =
      Train.Zero == 2 || !(Stored.axesUsed() & PI.Reduction).empty();
  PI.StateBytesPerElement =
      OptimizerOp::stateBytesPerElement(Train, Stored.Elt);
  return true;
}

ShardType ParamResolver::gradientType(const Value *P) const {
  ShardType T = P->type();
  AxisSet R = info(P).Reduction;
  for (TensorDim &D : T.Dims)
    llvm::erase_if(D.Axes, [&](AxisId A) { return R.contains(A); });
  T.Unreduced = T.Unreduced | R;
  T.Elt = Train.Grad;
  return T;
}

ForwardFacts ParamResolver::facts(const Block &Body) const {
  ForwardFacts F;
  walk(Body, [&](const Op &O) {
    if (const Value *V = O.result()) {
      F.Uses[V] += V->users().size();
      F.DefBlock[V] = O.parent();
    }
    auto *D = dyn_cast<Differentiable>(&O);
    if (D && D->savesInputs())
      for (const Value *V : O.operands())
        F.SavesInput.insert(V);
    if (D && D->savesResult() && O.result())
      F.SavesInput.insert(O.result());
    if (auto *R = dyn_cast<RepeatOp>(&O))
      for (const RepeatOp::Carried &Cv : R->carried()) {
        F.CarriedNext[Cv.Next] = R;
        ++F.Uses[Cv.Next];
      }
  });
  return F;
}

bool ParamResolver::anyIn(const Block &B) const {
  bool Any = false;
  walk<ParamOp>(B, [&](const ParamOp &) { Any = true; });
  return Any;
}
