//===- SemaTrain.cpp - train { } and param (LANGUAGE.md §7) ---------------===//
//
// The `train` block is read in phase one with the config (every statement
// may depend on it); a `param` is a tensor that is trainable, lowered in
// phase two like one. Values of the train block are words from fixed sets
// (`adam`, `selective`, `fp32`, `1f1b`), checked here with "did you mean".
//
//===----------------------------------------------------------------------===//
#include "frontend/Sema.h"
#include "ir/ModelOps.h"
#include "ir/Ops.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"

using namespace shardc;

std::optional<unsigned> Sema::choose(llvm::StringRef Name, const PropValue &V,
                                     llvm::ArrayRef<std::string> Choices) {
  for (unsigned I = 0; I < Choices.size(); ++I)
    if (V.Word == Choices[I])
      return I;
  if (auto Best = closestName(V.Word, Choices))
    Diags.report(V.Range, diag::UnknownChoiceSuggest, V.Word, Name.str(),
                 *Best);
  else
    Diags.report(V.Range, diag::UnknownChoice, V.Word, Name.str(),
                 llvm::join(Choices, ", "));
  return std::nullopt;
}

/// A floating-point dtype other than fp4, or (with \p AllowNone) `none`.
std::optional<DType> Sema::chooseDType(const Property &P, const PropValue &V,
                                       bool AllowNone, bool &None) {
  // fp4 is a storage format for weights and activations; no optimizer
  // updates in it. Said here, once, rather than at every param whose update
  // the chip has no fp4 peak for.
  if (V.Word == dtypeName(DType::fp4)) {
    Diags.report(V.Range, diag::TrainDTypeFp4, P.Name.Name);
    return std::nullopt;
  }
  std::vector<std::string> Names;
  for (unsigned T = 0; T < NumDTypes; ++T)
    if (DType(T) != DType::int8 && DType(T) != DType::int32 &&
        DType(T) != DType::fp4)
      Names.push_back(dtypeName(DType(T)).str());
  if (AllowNone)
    Names.push_back("none");
  std::optional<unsigned> I = choose(P, V, Names);
  if (!I)
    return std::nullopt;
  None = AllowNone && *I + 1 == Names.size();
  return None ? DType::fp32 : *parseDType(Names[*I]);
}

void Sema::train(const TrainDecl &D) {
  // A training step is the main file's: a preset file it imports cannot
  // turn it into one.
  if (!InMainFile) {
    Diags.report(D.Range.Start, diag::TrainInImport);
    return;
  }
  if (TrainBlock) {
    Diags.report(D.Range.Start, diag::DuplicateTrain);
    Diags.report(TrainBlock->Range.Start, diag::FirstTrainHere);
    return;
  }
  TrainBlock = &D;
  PropertySet Props;
  checkProps(D.Props, PropOwner::Train, "train block", Props);
  searchForms(D.Props, /*InSearchBlock=*/false);
  TrainConfig T;
  T.At = Diags.location(D.Range.Start);
  for (const Property &P : D.Props) {
    const PropSchema *S = findSchema(PropOwner::Train, P.Name.Name);
    if (P.Form != PropForm::Assign)
      continue; // searched: its default here (searchForms)
    if (!S || !Props.has(S->Id)) {
      ChunksRejected |= S && S->Id == PropId::Train_chunks;
      continue; // reported by checkProps
    }
    const PropValue &V = Props.get(S->Id);
    bool None = false;
    switch (S->Id) {
    case PropId::Train_microbatches:
      T.Microbatches = V.Whole;
      T.MicrobatchesAt = Diags.location(V.Range.Start);
      MicrobatchesRange = V.Range;
      break;
    case PropId::Train_chunks:
      T.Chunks = V.Whole;
      break;
    case PropId::Train_zero:
      if (V.Whole > 3)
        Diags.report(V.Range, diag::ZeroStage, V.Whole);
      else
        T.Zero = unsigned(V.Whole);
      break;
    case PropId::Train_optimizer:
      // `adamw` is Adam with decoupled weight decay: the decay is folded
      // into the same pass over the param, so it reads and writes what Adam
      // does and is priced as Adam.
      if (auto I = choose(P, V, {"adam", "sgd", "none", "adamw"}))
        T.Optimizer = *I == 3 ? OptimizerKind::Adam : OptimizerKind(*I);
      break;
    case PropId::Train_recompute:
      if (auto I = choose(P, V, {"none", "selective", "full", "attention"}))
        T.Recompute = RecomputePolicy(*I);
      break;
    case PropId::Train_schedule:
      if (auto I = choose(P, V, {"gpipe", "1f1b", "interleaved"}))
        T.Schedule = PipelineSchedule(*I);
      break;
    case PropId::Train_scatter_gather:
      T.ScatterGather = V.Flag;
      break;
    case PropId::Train_sync:
      if (auto I = choose(P, V, {"overlapped", "after_backward"}))
        T.SyncAfterBackward = *I == 1;
      break;
    case PropId::Train_tp_overlap:
      if (auto I = choose(P, V, {"none", "backward", "all"})) {
        T.TpOverlap = TpOverlapMode(*I);
        T.TpOverlapAt = Diags.location(P.Name.Range.Start);
      }
      break;
    case PropId::Train_param_gather:
      if (auto I = choose(P, V, {"exposed", "overlapped"}))
        T.ParamGatherOverlapped = *I == 1;
      break;
    case PropId::Train_p2p_overlap:
      T.P2pOverlap = V.Flag;
      break;
    case PropId::Train_fixed_costs:
      if (auto I = choose(P, V, {"none", "priced"}))
        T.FixedCosts = *I == 1;
      break;
    case PropId::Train_grad_clip:
      T.GradClip = V.Number;
      break;
    case PropId::Train_fp8:
      if (auto I = choose(P, V, {"none", "hybrid", "e4m3"})) {
        T.Fp8 = Fp8Recipe(*I);
        Fp8At = V.Range;
      }
      break;
    case PropId::Train_fuse:
      // One setting for the program, written in either block: twice is an
      // error, as in two config blocks (Sema::config).
      if (auto [First, New] = ConfigSet.try_emplace("fuse", P.Name.Range);
          !New) {
        Diags.report(P.Name.Range, diag::DuplicateProperty, "fuse");
        Diags.report(First->second, diag::FirstSetHere, "fuse");
      } else
        fuse(P, V);
      break;
    case PropId::Train_grad:
      if (auto DT = chooseDType(P, V, false, None))
        T.Grad = *DT;
      break;
    case PropId::Train_state:
      if (auto DT = chooseDType(P, V, false, None))
        T.State = *DT;
      break;
    case PropId::Train_master:
      if (auto DT = chooseDType(P, V, true, None))
        T.Master = None ? std::nullopt : std::optional<DType>(*DT);
      break;
    default:
      llvm_unreachable("a train block has only train properties");
    }
  }
  warnUnusedTrainSettings(Props, T);
  Config.Train = T;
}

/// `fuse = none | elementwise`, in `config` or `train`
/// (docs/cost-model.md §1, "Fusion").
void Sema::fuse(const Property &P, const PropValue &V) {
  if (auto I = choose(P, V, {"none", "elementwise"}))
    Config.FuseElementwise = *I == 1;
}

/// Settings the chosen optimizer never reads: SGD keeps no moments, and
/// without an optimizer there are no moments, no master weights and no
/// state for ZeRO 1 and 2 to shard (ZeRO 3 still shards the params).
void Sema::warnUnusedTrainSettings(const PropertySet &Props,
                                   const TrainConfig &T) {
  llvm::StringRef Opt = optimizerName(T.Optimizer);
  bool None = T.Optimizer == OptimizerKind::None;
  if (T.Optimizer != OptimizerKind::Adam && Props.has(PropId::Train_state))
    Diags.report(Props.get(PropId::Train_state).Range, diag::TrainSettingUnused,
                 "state", Opt,
                 None ? "there is no optimizer" : "SGD keeps no moments");
  if (None && Props.has(PropId::Train_master))
    Diags.report(Props.get(PropId::Train_master).Range,
                 diag::TrainSettingUnused, "master", Opt,
                 "there is no optimizer update");
  if (T.GradClip && !T.FixedCosts)
    Diags.report(Props.get(PropId::Train_grad_clip).Range,
                 diag::GradClipUnpriced);
  if (None && T.FixedCosts)
    Diags.report(Props.get(PropId::Train_fixed_costs).Range,
                 diag::FixedCostsWithoutOptimizer);
  if (None && (T.Zero == 1 || T.Zero == 2))
    Diags.report(Props.get(PropId::Train_zero).Range,
                 diag::ZeroWithoutOptimizer, int64_t(T.Zero));
}

/// `fp8 = hybrid | e4m3` (Transformer Engine): every contraction of a
/// param with an activation over a contracted dim runs as an fp8 GEMM, its
/// dgrad and wgrad too (ContractionOp::backward). A contraction with no
/// contracted dim (a norm's scale, `n * g`) is elementwise and stays as it
/// is, and so do contractions of two activations (attention's QK^T and PV,
/// which Transformer Engine's fused attention runs in bf16). The forward
/// casts the activation every microbatch and the weight once per step
/// (Megatron-Core keeps the fp8 weight across microbatches), except under
/// ZeRO 3, which gathers the weight afresh each microbatch.
void Sema::markFp8Gemms() {
  const TrainConfig &T = *Config.Train;
  if (T.Fp8 == Fp8Recipe::None || !Mesh)
    return;
  const ChipSpec &Chip = Mesh->Cluster->Chip;
  if (Chip.matmulPeak(DType::fp8) <= 0) {
    Diags.report(Fp8At, diag::TrainFp8NoPeak, fp8RecipeName(T.Fp8), Chip.Name);
    return;
  }
  double WeightCast = T.Zero == 3 ? 1 : 1 / double(T.Microbatches);
  // An activation read by several GEMMs (q, k and v of one input) is cast
  // once, by the first: the others read its fp8 copy, as Transformer
  // Engine's fused QKV and gate-and-up GEMMs do.
  llvm::DenseSet<const Value *> Cast;
  walk<ContractionOp>(IR->body(), [&](ContractionOp &C) {
    bool Contracts = llvm::any_of(C.dims(), [](const ContractionDim &D) {
      return D.Role == DimRole::Contracted;
    });
    bool P0 = isa<ParamOp>(C.operand(0)->def()),
         P1 = isa<ParamOp>(C.operand(1)->def());
    if (!Contracts || P0 == P1)
      return;
    ContractionOp::Fp8Gemm F;
    for (unsigned I = 0; I < 2; ++I)
      F.Cast[I] = (I == 0) == P0                     ? WeightCast
                  : Cast.insert(C.operand(I)).second ? 1
                                                     : 0;
    C.setFp8(F);
  });
}

void Sema::param(const ParamDecl &D) {
  if (!chooseMesh(D.Range))
    return;
  std::optional<ShardType> T = resolveType(D.Type, /*NeedDType=*/true);
  if (T && !T->Unreduced.empty()) {
    Diags.report(D.Type.Range, diag::ParamUnreduced, D.Name.Name);
    T.reset();
  }
  std::optional<ShardType> State;
  if (T && D.StateWord) {
    if (D.StateWord->Name != "state") {
      Diags.report(D.StateWord->Range, diag::ExpectedStateWord,
                   D.StateWord->Name);
      T.reset();
    } else if ((State = resolveType(D.State, /*NeedDType=*/false))) {
      if (!State->sameDims(*T)) {
        Diags.report(D.State.Range, diag::StateShardingDims,
                     dimListStr(*State, Info->Names),
                     dimListStr(*T, Info->Names));
        T.reset();
      }
      State->Elt = T ? T->Elt : State->Elt;
    } else {
      T.reset();
    }
  }
  // A weight is resident: a phase dim would make it a per-step value.
  for (unsigned K = 0; T && K < NumPhaseDims; ++K)
    if (Serve.Dims[K] && T->dimIndex(*Serve.Dims[K])) {
      Diags.report(D.Type.Range, diag::ParamPhaseDim, D.Name.Name,
                   Info->Names.Dims[*Serve.Dims[K]]);
      T.reset();
    }
  Value *V = nullptr;
  AnyParam = true;
  if (T) {
    unsigned St = addStatement(D.Range, D.Name.Name, OpKind::Param);
    V = Builder
            ->create<ParamOp>(Diags.location(D.Range.Start), St, {},
                              D.Name.Name, *T, State)
            ->result();
  }
  Symbol S{SymKind::Tensor, D.Name.Range, V == nullptr};
  S.Tensor = V;
  if (V)
    Bound.push_back({D.Name, V});
  declare(D.Name, S);
}

/// A layer weight declared `tensor` instead of `param` is accepted (the
/// step still has other params) and priced as an activation, which moves
/// every number; so a `tensor` input that looks like a weight is warned
/// about. It looks like one when a contraction reads it, no statement writes
/// it, and each of its dims is a dim some param has: an activation has a
/// batch or sequence dim no weight has, which keeps real inputs quiet.
void Sema::warnTensorsLikeParams() {
  llvm::SmallDenseSet<DimId, 16> ParamDims;
  walk<ParamOp>(IR->body(), [&](const ParamOp &O) {
    for (const TensorDim &D : O.result()->type().Dims)
      ParamDims.insert(D.Id);
  });
  llvm::StringSet<> Written;
  for (const Statement &St : Info->Statements)
    if (St.Kind != OpKind::Input && St.Kind != OpKind::Param)
      Written.insert(St.Name);
  std::vector<std::pair<const Value *, std::string>> ReadBy;
  walk<ContractionOp>(IR->body(), [&](const ContractionOp &C) {
    for (const Value *V : C.operands())
      if (V->def() && isa<InputOp>(V->def()) &&
          llvm::none_of(ReadBy, [&](const auto &R) { return R.first == V; }))
        ReadBy.push_back({V, C.result()->name()});
  });
  llvm::SmallPtrSet<const Value *, 8> Warned;
  // Not a structured binding: clang 14 (the fuzz build) cannot capture one
  // in the lambdas below.
  for (const auto &Entry : ReadBy) {
    const Value *V = Entry.first;
    const std::string &Reader = Entry.second;
    const ShardType &T = V->type();
    auto Decl =
        llvm::find_if(Bound, [&](const auto &B) { return B.second == V; });
    if (Decl == Bound.end() || Written.contains(Decl->first.Name) ||
        T.Elt == DType::int32 || !llvm::all_of(T.Dims, [&](const TensorDim &D) {
          return ParamDims.contains(D.Id);
        }))
      continue;
    Warned.insert(V);
    Diags.report(Decl->first.Range, diag::TensorLooksLikeParam,
                 Decl->first.Name, Reader);
  }
  // An embedding table is a weight whatever its dims: [V, E] has a
  // vocabulary dim no other param may have.
  walk<EmbedOp>(IR->body(), [&](const EmbedOp &E) {
    const Value *V = E.operand(1);
    if (!V->def() || !isa<InputOp>(V->def()) || !Warned.insert(V).second)
      return;
    auto Decl =
        llvm::find_if(Bound, [&](const auto &B) { return B.second == V; });
    if (Decl == Bound.end() || Written.contains(Decl->first.Name))
      return;
    Diags.report(Decl->first.Range, diag::TableLooksLikeParam, Decl->first.Name,
                 E.result()->name());
  });
}
