//===- DeriveBackward.cpp - A training step's program ---------------------===//
//
// With a `train { }` block, builds the program of one training step from the
// checked forward program (COST-MODEL.md §5, §6.2, §6.4), as high-level ops
// that insert-collectives then plans and lowers like the user's:
//  1. clone the forward program; under ZeRO 3 params are stored sharded
//     over their replica axes (ParamResolver);
//  2. walk the forward in reverse, asking each op's backward rule
//     (Differentiable::backward) for its gradient ops: the rules ask this pass
//     for gradients (summing a value's contributions with adds), for the
//     forward values they read (saved, or recomputed as `recompute` says) and
//     for the type each gradient is delivered in;
//  3. a repeat's backward is a repeat of its body's backward: a carried
//     value's gradient is carried from the last iteration to the first;
//  4. a param's gradient sync (a reshard of its accumulated gradient into
//     its optimizer sharding) follows its last gradient contribution, so the
//     schedule can issue it as soon as it is final;
//  5. after the backward, each param's optimizer update and, for ZeRO 1 and
//     2, the gather of the updated param; with `fixed_costs = priced`, the
//     step's fixed costs around each update and the norm's AllReduce.
// The forward is derived as written: a backward op reads its operands as
// the statement wrote them, so what the forward's plan gathered is gathered
// again by the backward's (COST-MODEL.md §5, saved values).
//
//===----------------------------------------------------------------------===//
#include "passes/DeriveBackward.h"
#include "ir/ModelOps.h"
#include "llvm/ADT/DenseSet.h"

using namespace shardc;

unsigned DeriveBackward::newStatement(std::string Name, Loc L, OpKind K,
                                      Phase Ph, Provenance From) {
  Statement S;
  S.Name = std::move(Name);
  S.Location = L;
  S.Kind = K;
  S.Repeat = Repeat;
  S.Ph = Ph;
  S.From = std::move(From);
  Info->Statements.push_back(std::move(S));
  return Info->Statements.size() - 1;
}

unsigned DeriveBackward::statement(const Op &F, const Value *Wrt, OpKind K) {
  return newStatement(gradName(Wrt), F.loc(), K, Phase::Backward,
                      {Provenance::Gradient, F.stmt(), Wrt->name()});
}

//===----------------------------------------------------------------------===//
// Gradients
//===----------------------------------------------------------------------===//

ShardType DeriveBackward::gradType(const Value *V) const {
  if (isParam(V))
    return Params->gradientType(V);
  if (auto It = CarriedGradType.find(V); It != CarriedGradType.end())
    return It->second;
  // A reshard's result used once takes its gradient straight in the
  // reshard's source sharding: the op producing it plans the reduction in
  // one go (a gather written as its own statement gets a ReduceScatter in
  // backward, as a gather in a contraction's plan does).
  // A carried value's gradient has the type its pair's does (it crosses
  // iterations), so it is never fused.
  auto *R = dyn_cast<ReshardOp>(V->def());
  if (AxisSet A = scatteredPartials(V); !A.empty()) {
    ShardType T = withSharding(V->type(), V->type());
    T.Unreduced = A;
    return T;
  }
  if (!R && !Facts.CarriedNext.count(V))
    if (AxisSet A = sharedPartials(V); !A.empty()) {
      ShardType T = withSharding(V->type(), V->type());
      T.Unreduced = A;
      return T;
    }
  if (!R || Facts.CarriedNext.count(V) || !needsGrad(R->operand(0)))
    return withSharding(V->type(), V->type());
  unsigned Uses = Facts.Uses.lookup(V);
  if (Uses == 1)
    return gradType(R->operand(0));
  // A gather read by several contractions (sequence parallelism's gather
  // before the q, k and v projections): each contraction's gradient is
  // naturally a partial sum over the gathered axes, so the contributions
  // are summed as partial sums and the reshard's backward reduces them once
  // (one ReduceScatter, as Megatron-LM does), not once each.
  AxisSet Gathered =
      R->operand(0)->type().axesUsed().without(V->type().axesUsed());
  if (Uses < 2 || Gathered.empty() || !V->type().Unreduced.empty())
    return withSharding(V->type(), V->type());
  std::optional<AxisSet> Common = forwardPartials(V, /*Home=*/nullptr);
  if (!Common || (*Common & Gathered) != Gathered)
    return withSharding(V->type(), V->type());
  ShardType T = withSharding(V->type(), V->type());
  T.Unreduced = Gathered;
  return T;
}

std::optional<AxisSet>
DeriveBackward::forwardPartials(const Value *V, const Block *Home) const {
  std::optional<AxisSet> Common;
  for (const Op *U : V->users()) {
    // The forward's users (backward ops built so far read V too).
    if (U->stmt() == NoStmt || Info->Statements[U->stmt()].Ph != Phase::Forward)
      continue;
    if (Home && U->parent() != Home)
      return std::nullopt;
    // An op with no backward sends no gradient, so no partial sum.
    auto *D = dyn_cast<Differentiable>(U);
    for (unsigned I = 0; I < U->numOperands(); ++I)
      if (U->operand(I) == V) {
        AxisSet P = D ? D->gradientPartials(I) : AxisSet();
        Common = Common ? (*Common & P) : P;
      }
  }
  return Common;
}

AxisSet DeriveBackward::sharedPartials(const Value *V) const {
  // A value read by several ops (contractions, broadcasts) in its own block
  // whose gradients are all partial sums over the same axes (the q, k and v
  // projections of a replicated activation under tensor parallelism): the
  // contributions are summed as partial sums and reduced once (one AllReduce,
  // Megatron's conjugate of the column-parallel split), not once each.
  if (Facts.Uses.lookup(V) < 2 || !V->type().Unreduced.empty() ||
      isa<InputOp>(V->def()))
    return {};
  std::optional<AxisSet> Common = forwardPartials(V, Facts.DefBlock.lookup(V));
  if (!Common)
    return {};
  return Common->without(V->type().axesUsed());
}

AxisSet DeriveBackward::scatteredPartials(const Value *V) const {
  // The expert contractions' input gradient is a partial sum over the axes
  // sharding the experts' hidden dim. Where the tokens are sharded over them
  // too, AllReducing it and slicing each chip's tokens would move twice the
  // bytes a ReduceScatter does; the combine's reshard scatters it instead.
  auto *D = dyn_cast<MoeDispatchOp>(V->def());
  if (!D || Facts.CarriedNext.count(V) || !needsGrad(D->operand(0)))
    return {};
  std::optional<AxisSet> Common = forwardPartials(V, Facts.DefBlock.lookup(V));
  if (!Common)
    return {};
  AxisSet Tokens;
  for (AxisId A : tokenAxes(gradType(D->operand(0))))
    Tokens.insert(A);
  AxisSet Scattered = (*Common & Tokens).without(V->type().axesUsed());
  // Read by several expert contractions (a gated layer's up and gate): the
  // contributions are summed as partial sums over every shared axis and
  // reduced once, as sharedPartials does, the tokens' axes by the scatter.
  if (!Scattered.empty() && Facts.Uses.lookup(V) >= 2)
    return Common->without(V->type().axesUsed());
  return Scattered;
}

Value *DeriveBackward::grad(const Value *V) {
  auto &Contribs = Scopes.back().Contribs;
  auto It = Contribs.find(V);
  if (It == Contribs.end() || It->second.empty())
    return nullptr;
  llvm::SmallVector<Value *, 2> &L = It->second;
  // A param synced once per step accumulates every contribution into its
  // gradient buffer, fused into the weight-gradient contractions: the last
  // one holds the sum. Other params' contributions are summed like any
  // value's.
  if (L.size() == 1 || accumulatesInPlace(V))
    return reduceShared(V, L);
  // k contributions are summed by k - 1 adds (memory-bound, real traffic).
  Value *Sum = L.front();
  for (size_t I = 1; I < L.size(); ++I) {
    unsigned St = newStatement(gradName(V), V->def()->loc(),
                               OpKind::Elementwise, Phase::Backward,
                               {Provenance::Sum, V->def()->stmt(), V->name()});
    Sum = B->create<ElementwiseOp>(V->def()->loc(), St, {Sum, L[I]},
                                   gradName(V), gradType(V), ElementwiseFn::add)
              ->result();
  }
  L.assign(1, Sum);
  return reduceShared(V, L);
}

Value *DeriveBackward::reduceShared(const Value *V,
                                    llvm::SmallVector<Value *, 2> &L) {
  Value *G = L.back();
  if (isa<ReshardOp>(V->def()) || G->type().Unreduced.empty() ||
      !V->type().Unreduced.empty() || isParam(V) ||
      !scatteredPartials(V).empty())
    return G;
  // The summed partials of a shared value, reduced once (sharedPartials).
  unsigned St = newStatement(gradName(V), V->def()->loc(), OpKind::Reshard,
                             Phase::Backward,
                             {Provenance::Sum, V->def()->stmt(), V->name()});
  G = B->create<ReshardOp>(V->def()->loc(), St, {G}, gradName(V),
                           withSharding(V->type(), V->type()))
          ->result();
  L.assign(1, G);
  return G;
}

void DeriveBackward::contribute(const Value *V, Value *G) {
  assert(G->type() == gradType(V) && "a contribution has the gradient's type");
  addContribution(V, G);
  if (!isParam(V) || --UsesLeft[V] != 0)
    return;
  // Its last contribution: the gradient is final.
  if (Facts.DefBlock.lookup(V) == Scopes.back().Fwd)
    emitSync(V);
  else
    PendingSyncs.push_back(V);
}

Value *DeriveBackward::reshardTo(Value *G, const ShardType &T, const Op &F,
                                 const Value *Wrt) {
  if (G->type() == T)
    return G;
  unsigned St = statement(F, Wrt, OpKind::Reshard);
  return B->create<ReshardOp>(F.loc(), St, {G}, gradName(Wrt), T)->result();
}

void DeriveBackward::seed(const Value *V) {
  unsigned St =
      newStatement(gradName(V), V->def()->loc(), OpKind::Input, Phase::Backward,
                   {Provenance::Seed, V->def()->stmt(), ""});
  addContribution(
      V, B->create<InputOp>(V->def()->loc(), St, {}, gradName(V), gradType(V))
             ->result());
}

//===----------------------------------------------------------------------===//
// The reverse walk
//===----------------------------------------------------------------------===//

void DeriveBackward::leaf(const Op &O) {
  const Value *V = O.result();
  // An input's gradient (an activation's, for the layers before) is
  // complete here: its contributions are summed. A param's was synced after
  // its last contribution.
  if (isa<InputOp>(O))
    grad(V);
}

/// The ops of \p Fwd as they are now: the backward is built into the same
/// module, a top-level forward's block included, so it grows as it is walked.
static std::vector<const Op *> snapshot(const Block &Fwd) {
  std::vector<const Op *> Ops;
  Ops.reserve(Fwd.ops().size());
  for (const auto &O : Fwd.ops())
    Ops.push_back(O.get());
  return Ops;
}

void DeriveBackward::block(const Block &Fwd) {
  std::vector<const Op *> Ops = snapshot(Fwd);
  for (auto It = Ops.rbegin(); It != Ops.rend(); ++It) {
    const Op &O = **It;
    if (auto *R = dyn_cast<RepeatOp>(&O)) {
      repeat(*R);
      flushSyncs(Fwd);
      continue;
    }
    if (isa<InputOp, ParamOp>(O)) {
      leaf(O);
      continue;
    }
    const Value *V = O.result();
    // An output: computed and never used afterwards.
    if (Facts.Uses.lookup(V) == 0 && needsGrad(V))
      seed(V);
    cast<Differentiable>(O).backward(*this);
  }
}

void DeriveBackward::repeat(const RepeatOp &R) {
  // The gradient entering the last iteration: what the ops after the loop
  // sent back to each carried value, or a seed when nothing used it.
  llvm::SmallVector<Value *, 2> Entering;
  for (const RepeatOp::Carried &Cv : R.carried()) {
    if (!grad(Cv.Next))
      seed(Cv.Next);
    Entering.push_back(grad(Cv.Next));
  }
  auto *BR = B->createNoResult<RepeatOp>(R.loc(), NoStmt, R.tripCount(),
                                         R.pipelineAxis());
  BR->copyShape(R);
  Block &Outer = B->block();
  B->setInsertionPointToEnd(BR->body());
  int64_t Saved = Repeat;
  Repeat *= R.tripCount();
  Scopes.emplace_back(&R.body());
  for (size_t I = 0; I < R.carried().size(); ++I) {
    addContribution(R.carried()[I].Next, Entering[I]);
    InitMultiplicity[R.carried()[I].Init] = Repeat;
  }
  if (Train->Recompute == RecomputePolicy::Full)
    recomputeBody(R.body());
  block(R.body());
  exportToOuter(R, *BR, Entering, Outer);
  Scopes.pop_back();
  Repeat = Saved;
  B->setInsertionPointToEnd(Outer);
}

/// What the body's backward owes the code before the loop: the carried
/// gradients (carried back to the first iteration), and the per-iteration
/// gradients of values from outside the body, accumulated over iterations.
void DeriveBackward::exportToOuter(const RepeatOp &R, RepeatOp &BR,
                                   llvm::ArrayRef<Value *> Entering,
                                   Block &Outer) {
  Scope &Body = Scopes.back();
  llvm::SmallVector<std::pair<const Value *, Value *>, 4> Out;
  for (size_t I = 0; I < R.carried().size(); ++I)
    if (Value *D = grad(R.carried()[I].Init)) {
      BR.addCarried(Entering[I], D);
      Out.push_back({R.carried()[I].Init, D});
    }
  llvm::SmallVector<const Value *, 4> Shared;
  for (auto &[V, L] : Body.Contribs)
    if (Facts.DefBlock.lookup(V) != Body.Fwd && !L.empty() &&
        !R.carriedFrom(V) && !R.carriedTo(V))
      Shared.push_back(V);
  for (const Value *V : Shared) {
    Value *D = grad(V);
    // A param's gradient buffer accumulates across iterations by itself;
    // any other value's gradient is carried through an add per iteration,
    // from a zero gradient before the loop (the first add is one more than
    // the N - 1 the sum needs).
    if (!isParam(V)) {
      OpBuilder Before(*TM, Outer);
      size_t At = std::find_if(Outer.ops().begin(), Outer.ops().end(),
                               [&](const auto &O) { return O.get() == &BR; }) -
                  Outer.ops().begin();
      Before.setInsertionPoint(Outer, At);
      unsigned Z =
          newStatement(gradName(V), R.loc(), OpKind::Input, Phase::Backward,
                       {Provenance::Zero, V->def()->stmt(), V->name()});
      Value *Zero =
          Before.create<InputOp>(R.loc(), Z, {}, gradName(V), gradType(V))
              ->result();
      unsigned St = newStatement(
          gradName(V), R.loc(), OpKind::Elementwise, Phase::Backward,
          {Provenance::Sum, V->def()->stmt(), V->name()});
      D = B->create<ElementwiseOp>(R.loc(), St, {Zero, D}, gradName(V),
                                   gradType(V), ElementwiseFn::add)
              ->result();
      BR.addCarried(Zero, D);
    }
    Out.push_back({V, D});
  }
  for (auto [V, D] : Out)
    Scopes[Scopes.size() - 2].Contribs[V].push_back(D);
}

void DeriveBackward::flushSyncs(const Block &Fwd) {
  llvm::SmallVector<const Value *, 4> Later;
  for (const Value *P : PendingSyncs)
    if (Facts.DefBlock.lookup(P) == &Fwd)
      emitSync(P);
    else
      Later.push_back(P);
  PendingSyncs = Later;
}

void DeriveBackward::emitSync(const Value *P) {
  const ParamInfo &PI = Params->info(P);
  Value *G = grad(P);
  ShardType T = PI.Optimizer;
  unsigned St = newStatement(
      gradName(P), P->def()->loc(), OpKind::Reshard, Phase::Sync,
      {Provenance::Sync, P->def()->stmt(), P->name(), PI.SyncEveryMicrobatch});
  Synced[P] = G->type() == T ? G
                             : B->create<ReshardOp>(P->def()->loc(), St, {G},
                                                    gradName(P), T)
                                   ->result();
}

//===----------------------------------------------------------------------===//
// The optimizer (COST-MODEL.md §6.4)
//===----------------------------------------------------------------------===//

void DeriveBackward::optimizer(const Block &Fwd) {
  for (const Op *O : snapshot(Fwd)) {
    if (auto *R = dyn_cast<RepeatOp>(O)) {
      if (!Params->anyIn(R->body()))
        continue;
      auto *OR = B->createNoResult<RepeatOp>(R->loc(), NoStmt, R->tripCount(),
                                             R->pipelineAxis());
      OR->copyShape(*R);
      Block &Outer = B->block();
      B->setInsertionPointToEnd(OR->body());
      int64_t Saved = Repeat;
      Repeat *= R->tripCount();
      optimizer(R->body());
      Repeat = Saved;
      B->setInsertionPointToEnd(Outer);
      continue;
    }
    auto *P = dyn_cast<ParamOp>(O);
    if (!P || !Synced.count(P->result()))
      continue;
    const Value *V = P->result();
    ShardType Shard = withSharding(V->type(), Params->info(V).Optimizer);
    if (Train->FixedCosts)
      fixedBefore(*P);
    unsigned St =
        newStatement(V->name(), P->loc(), OpKind::Optimizer, Phase::Optimizer,
                     {Provenance::Update, P->stmt(), V->name()});
    Value *U = B->create<OptimizerOp>(P->loc(), St, {Synced[V]}, V->name(),
                                      Shard, *Train, V->type().Elt)
                   ->result();
    if (Train->FixedCosts)
      fixedAfter(*P, U);
    if (U->type() == V->type())
      continue;
    // ZeRO 1 and 2: every replica gathers the updated param.
    St = newStatement(V->name(), P->loc(), OpKind::Reshard, Phase::Optimizer,
                      {Provenance::Gather, P->stmt(), V->name()});
    B->create<ReshardOp>(P->loc(), St, {U}, V->name(), V->type());
  }
}

//===----------------------------------------------------------------------===//
// The fixed costs (docs/cost-model.md §6.4): Megatron-LM's order, per
// param: unscale and inf check, the norm, the update, the master copy; the
// buffers are zeroed for the next step.
//===----------------------------------------------------------------------===//

unsigned DeriveBackward::fixedStatement(const ParamOp &P, OpKind K,
                                        llvm::StringRef What) {
  const Value *V = P.result();
  return newStatement(What.str() + " " + V->name(), P.loc(), K,
                      Phase::Optimizer,
                      {Provenance::Fixed, P.stmt(), V->name()});
}

void DeriveBackward::fixedBefore(const ParamOp &P) {
  const Value *V = P.result();
  Value *G = Synced[V];
  // fp16 training scales the loss: every gradient is checked and unscaled,
  // whether the backward accumulates it in fp16 or in fp32 main gradients
  // (Megatron-LM's fp16 optimizer checks the fp32 copy).
  if (Train->Grad == DType::fp16 || V->type().Elt == DType::fp16) {
    LossScaled = true;
    unsigned St = fixedStatement(P, OpKind::InfCheck, "inf_check");
    B->create<InfCheckOp>(P.loc(), St, {G}, gradName(V), G->type());
  }
  if (Train->GradClip) {
    ShardType Scalar;
    Scalar.Elt = DType::fp32;
    unsigned St = fixedStatement(P, OpKind::GradNorm, "grad_norm");
    B->create<GradNormOp>(P.loc(), St, {G}, "norm_" + V->name(), Scalar);
  }
}

void DeriveBackward::fixedAfter(const ParamOp &P, Value *Updated) {
  const Value *V = P.result();
  if (OptimizerOp::hasMaster(*Train, V->type().Elt)) {
    unsigned St = fixedStatement(P, OpKind::MasterCopy, "master_copy");
    B->create<MasterCopyOp>(P.loc(), St, {Updated}, V->name(), Updated->type(),
                            *Train->Master);
  }
  // The buffer the backward accumulates into: the synced shard where the
  // sync runs every microbatch (ZeRO 2, FSDP), else the whole local
  // gradient.
  const ParamInfo &PI = Params->info(V);
  ShardType Buffer =
      PI.SyncEveryMicrobatch ? Synced[V]->type() : Params->gradientType(V);
  Buffer.Unreduced = {};
  Buffer.Elt = Train->Grad;
  unsigned St = fixedStatement(P, OpKind::ZeroGrad, "zero_grad");
  B->create<ZeroGradOp>(P.loc(), St, {Synced[V]}, gradName(V), Buffer);
}

void DeriveBackward::normReduce() {
  bool Norm = Train->GradClip.has_value(), Inf = LossScaled;
  if (!Train->FixedCosts || (!Norm && !Inf))
    return;
  // Each chip's squares cover its shard of the gradients the optimizer
  // reads: the sum runs over the axes those shards split (tensor, FSDP,
  // ZeRO's data axes) and the pipeline's (its stages hold different
  // layers), not over the axes the gradients are replicated on (plain
  // data parallelism), as Megatron-LM sums it over the model-parallel
  // group (and the data-parallel one only with its distributed
  // optimizer). The inf check's flag rides in the same AllReduce.
  ShardType Partial;
  Partial.Elt = DType::fp32;
  for (const auto &[V, G] : Synced)
    Partial.Unreduced =
        Partial.Unreduced | Params->info(V).Optimizer.axesUsed();
  for (const auto &O : TM->body().ops())
    if (auto *R = dyn_cast<RepeatOp>(O.get()); R && R->pipelineAxis())
      Partial.Unreduced.insert(*R->pipelineAxis());
  for (AxisId A : Partial.Unreduced.list())
    if (TM->mesh().Axes[A].Size == 1)
      Partial.Unreduced.erase(A);
  if (Partial.Unreduced.empty())
    return; // one chip holds every gradient: nothing to sum
  llvm::StringRef Name = Norm ? "grad_norm" : "found_inf";
  Loc L = Train->At;
  // The report counts the flag alone with the inf check.
  unsigned St =
      newStatement(Name.str(), L, Norm ? OpKind::GradNorm : OpKind::InfCheck,
                   Phase::Optimizer, {});
  // No param's: with a pipeline it runs with the last stage's updates.
  Info->Statements[St].From.reset();
  Value *Sum = B->create<GradNormOp>(L, St, {}, Name.str(), Partial)->result();
  ShardType Whole;
  Whole.Elt = DType::fp32;
  B->create<ReshardOp>(L, St, {Sum}, Name.str(), Whole);
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

bool DeriveBackward::run(MeshCompile &Compile, DiagnosticEngine &D) {
  LossScaled = false;
  const Module &Checked = Compile.forward();
  if (!Compile.config().Train)
    return true;
  C = &Compile;
  Diags = &D;
  Train = &*Compile.config().Train;
  RecomputedKept = false;
  Info = std::make_shared<ProgramInfo>(Checked.info());
  TM = std::make_unique<Module>(Info, Compile.mesh(), Compile.config(),
                                Module::Stage::Checked);
  B = std::make_unique<OpBuilder>(*TM, TM->body());
  Params = std::make_unique<ParamResolver>(Compile, *Train);
  // 1. The forward, with ZeRO 3's params stored sharded.
  if (!Params->cloneForward(Checked, *B, D))
    return false;
  Facts = Params->facts(TM->body());
  walk<ParamOp>(TM->body(), [&](const ParamOp &P) {
    UsesLeft[P.result()] = Facts.Uses.lookup(P.result());
  });
  for (auto [Next, R] : Facts.CarriedNext) {
    const RepeatOp::Carried *Cv = R->carriedTo(Next);
    CarriedGradType.try_emplace(Cv->Init, gradType(Next));
  }
  // 2-4. The backward, syncs included.
  Scopes.emplace_back(&TM->body());
  block(TM->body());
  flushSyncs(TM->body());
  // 5. The optimizer.
  if (Train->Optimizer != OptimizerKind::None) {
    optimizer(TM->body());
    normReduce();
  }
  Scopes.clear();
  for (const Value *V : SavedSet) {
    const Block *Held = SavedHeldIn.lookup(V);
    // A carried value's first version stands for every iteration's.
    int64_t Init = InitMultiplicity.lookup(V);
    Compile.Tables.Saved.push_back({V, Init ? Init : versionsIn(Held), Held});
  }
  for (const Op *O : KeptSet)
    Compile.Tables.Kept.push_back({O, Info->Statements[O->stmt()].Repeat});
  if (Train->Recompute == RecomputePolicy::Attention && !RecomputedKept)
    D.report(Train->At, diag::RecomputeAttentionUnused);
  if (Train->TpOverlap != TpOverlapMode::None && Compile.config().Overlap)
    D.report(Train->TpOverlapAt.isValid() ? Train->TpOverlapAt : Train->At,
             diag::TpOverlapUnderFreeOverlap,
             Train->TpOverlap == TpOverlapMode::All ? "all" : "backward");
  Compile.Tables.Params = Params->takeInfos();
  Compile.setTraining(std::move(TM));
  return !D.hasErrors();
}

std::unique_ptr<Pass> shardc::createDeriveBackwardPass() {
  return std::make_unique<DeriveBackward>();
}
