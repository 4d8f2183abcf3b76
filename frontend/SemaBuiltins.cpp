//===- SemaBuiltins.cpp - attention, embed, cross_entropy -----------------===//
//
// LANGUAGE.md §8's builtins that are not per element: their operands,
// options and results checked, each misuse reported where it is written,
// then lowered to their ops (ir/ModelOps.cpp). softmax, the norms and
// dropout are elementwise functions, checked with the others.
//
//===----------------------------------------------------------------------===//
#include "frontend/Properties.h"
#include "frontend/Sema.h"
#include "ir/ContractionPlans.h"
#include "ir/Ops.h"
#include <cmath>

using namespace shardc;

namespace {
struct BuiltinInfo {
  const char *Name;
  ModelBuiltin Kind;
  unsigned Arity;
};
constexpr BuiltinInfo ModelBuiltins[] = {
    {"attention", ModelBuiltin::Attention, 3},
    {"embed", ModelBuiltin::Embed, 2},
    {"cross_entropy", ModelBuiltin::CrossEntropy, 2},
    {"moe", ModelBuiltin::Moe, 3}, // 4 with `gated = true`: checked by moe()
    {"append", ModelBuiltin::Append, 2},
};

const BuiltinInfo &info(ModelBuiltin B) {
  for (const BuiltinInfo &I : ModelBuiltins)
    if (I.Kind == B)
      return I;
  llvm_unreachable("every builtin is in the table");
}
} // namespace

std::optional<ModelBuiltin> Sema::parseModelBuiltin(llvm::StringRef Name) {
  for (const BuiltinInfo &I : ModelBuiltins)
    if (Name == I.Name)
      return I.Kind;
  return std::nullopt;
}

std::vector<std::string> Sema::builtinNames() {
  std::vector<std::string> Names = elementwiseNames();
  for (const BuiltinInfo &I : ModelBuiltins)
    Names.push_back(I.Name);
  return Names;
}

DType Sema::defaultDType(ModelBuiltin B, llvm::ArrayRef<Value *> Args) {
  switch (B) {
  case ModelBuiltin::Attention:
    return Args[0]->type().Elt;
  case ModelBuiltin::Embed:
    // The rows of the table.
    return Args.size() > 1 ? Args[1]->type().Elt : DType::bf16;
  case ModelBuiltin::CrossEntropy:
    // The loss is accumulated in fp32, as Megatron does.
    return DType::fp32;
  case ModelBuiltin::Moe:
    return Args[0]->type().Elt;
  case ModelBuiltin::Append:
    // The cache, in its dtype.
    return Args[0]->type().Elt;
  }
  llvm_unreachable("every builtin is handled");
}

Op *Sema::modelBuiltin(const AssignDecl &D, ModelBuiltin B,
                       llvm::ArrayRef<Value *> Args, const ShardType &Out) {
  const BuiltinInfo &I = info(B);
  if (B != ModelBuiltin::Moe && Args.size() != I.Arity) {
    Diags.report(D.Callee.Range, diag::WrongArity, D.Callee.Name, I.Arity,
                 unsigned(Args.size()));
    return nullptr;
  }
  if (B != ModelBuiltin::Attention && B != ModelBuiltin::Moe &&
      !D.Options.empty()) {
    Diags.report(D.Options.front().Name.Range, diag::BuiltinNoOptions,
                 D.Callee.Name);
    return nullptr;
  }
  switch (B) {
  case ModelBuiltin::Attention:
    return attention(D, Args, Out);
  case ModelBuiltin::Embed:
    return embed(D, Args, Out);
  case ModelBuiltin::CrossEntropy:
    return crossEntropy(D, Args, Out);
  case ModelBuiltin::Moe:
    return moe(D, Args, Out);
  case ModelBuiltin::Append:
    return append(D, Args, Out);
  }
  llvm_unreachable("every builtin is handled");
}

bool Sema::checkBuiltinOperand(const AssignDecl &D, unsigned I, Value *V,
                               bool Ids, llvm::StringRef Role) {
  const OperandAST &O = D.Args[I];
  bool Int = V->type().Elt == DType::int32;
  if (Ids && !Int) {
    Diags.report(O.Range, diag::NotTokenIds, D.Callee.Name, O.Name.Name,
                 dtypeName(V->type().Elt));
    return false;
  }
  if (!Ids && Int) {
    Diags.report(O.Range, diag::IntBuiltinOperand, O.Name.Name, Role.str());
    return false;
  }
  if (!V->type().Unreduced.empty()) {
    Diags.report(O.Range, diag::UnreducedNotAllowed, "'" + D.Callee.Name + "'",
                 O.Name.Name);
    return false;
  }
  return true;
}

bool Sema::checkBuiltinResult(const AssignDecl &D, const ShardType &Want,
                              const ShardType &Out, AxisSet Partial) {
  if (!Out.sameDims(Want)) {
    Diags.report(D.OutType.Range, diag::BuiltinDims,
                 "the result of '" + D.Callee.Name + "'",
                 dimListStr(Want, Info->Names), dimListStr(Out, Info->Names));
    return false;
  }
  // The op computes partial sums only over Partial; the written type cannot
  // ask for others.
  AxisSet Extra = Out.Unreduced.without(Partial);
  if (!Extra.empty()) {
    Diags.report(unreducedRange(D.OutType), diag::TargetUnreducedFromNothing,
                 Mesh->Axes[Extra.list().front()].Name);
    return false;
  }
  return true;
}

bool Sema::checkLastDimWhole(const AssignDecl &D, unsigned I,
                             const ShardType &T, llvm::StringRef Callee) {
  const TensorDim &Last = T.Dims.back();
  if (Last.Axes.empty())
    return true;
  Diags.report(D.Args[I].Range, diag::LastDimSharded, Callee.str(),
               Info->Names.Dims[Last.Id], D.Args[I].Name.Name,
               axisNames(Last.Axes, Info->Names));
  return false;
}

/// `[B, S, K, H]`-like text for a list of dims.
static std::string dimsText(llvm::ArrayRef<TensorDim> Dims,
                            const TypeNames &N) {
  std::string S = "[";
  for (size_t I = 0; I < Dims.size(); ++I)
    S += (I ? ", " : "") + N.Dims[Dims[I].Id];
  return S + "]";
}

Op *Sema::attention(const AssignDecl &D, llvm::ArrayRef<Value *> Args,
                    const ShardType &Out) {
  PropertySet Props;
  if (!checkProps(D.Options, PropOwner::Attention, "call to 'attention'",
                  Props))
    return nullptr;
  bool Causal = Props.flag(PropId::Attention_causal, false);
  bool Fused = Props.flag(PropId::Attention_fused, true);
  bool Dropout = Props.flag(PropId::Attention_dropout, false);
  static const char *Roles[] = {"a query", "a key", "a value"};
  for (unsigned I = 0; I < 3; ++I)
    if (!checkBuiltinOperand(D, I, Args[I], /*Ids=*/false, Roles[I]))
      return nullptr;
  const ShardType &Q = Args[0]->type();
  for (unsigned I = 0; I < 3; ++I) {
    const ShardType &T = Args[I]->type();
    if (T.Dims.size() < 3) {
      Diags.report(D.Args[I].Range, diag::BuiltinRank,
                   "attention's '" + D.Args[I].Name.Name + "'", 3,
                   "[..., sequence, heads, head dim]",
                   dimListStr(T, Info->Names));
      return nullptr;
    }
    // A serving program's attention may read an fp8 cache with bf16 queries.
    if (T.Elt != Q.Elt && !ServeBlock) {
      Diags.report(D.Args[I].Range, diag::DTypeMismatch, dtypeName(Q.Elt),
                   dtypeName(T.Elt));
      return nullptr;
    }
  }
  // k must be q's leading dims, then its own sequence and heads, then q's
  // head dim; v must be k's dims.
  const ShardType &K = Args[1]->type(), &V = Args[2]->type();
  unsigned Seq = AttentionOp::seqDim(Q);
  llvm::SmallVector<TensorDim, 4> WantK(Q.Dims.begin(), Q.Dims.begin() + Seq);
  if (K.Dims.size() >= 3) {
    WantK.push_back(K.Dims[K.Dims.size() - 3]);
    WantK.push_back(K.Dims[K.Dims.size() - 2]);
  }
  WantK.push_back(Q.Dims.back());
  bool KOk = K.Dims.size() == WantK.size();
  for (unsigned I = 0; KOk && I < WantK.size(); ++I)
    KOk = WantK[I].Id == K.Dims[I].Id && WantK[I].Size == K.Dims[I].Size;
  if (!KOk) {
    Diags.report(D.Args[1].Range, diag::BuiltinDims,
                 "attention's key '" + D.Args[1].Name.Name +
                     "' (q's leading dims, its sequence and heads, q's head "
                     "dim)",
                 dimsText(WantK, Info->Names), dimListStr(K, Info->Names));
    return nullptr;
  }
  if (!V.sameDims(K)) {
    Diags.report(D.Args[2].Range, diag::BuiltinDims,
                 "attention's value '" + D.Args[2].Name.Name + "' (k's dims)",
                 dimListStr(K, Info->Names), dimListStr(V, Info->Names));
    return nullptr;
  }
  // The scores contract over the head dim: it must be whole.
  for (unsigned I = 0; I < 3; ++I)
    if (!checkLastDimWhole(D, I, Args[I]->type(), "attention"))
      return nullptr;
  const TensorDim &NHeads = Q.Dims[Seq + 1], &KHeads = K.Dims[Seq + 1];
  if (NHeads.Size % KHeads.Size != 0) {
    Diags.report(D.Args[1].Range, diag::AttentionHeads,
                 Info->Names.Dims[NHeads.Id], NHeads.Size,
                 Info->Names.Dims[KHeads.Id], KHeads.Size);
    return nullptr;
  }
  // Whether the query heads' sharding divides the KV heads depends on the
  // mesh's sizes: bind-mesh checks it, at k.
  if (!checkBuiltinResult(D, Q, Out, AxisSet()))
    return nullptr;
  if (!checkPeak(D, Q.Elt, /*Matmul=*/true))
    return nullptr;
  unsigned St = addStatement(D.Range, D.Out.Name, OpKind::Attention);
  return Builder->create<AttentionOp>(Diags.location(D.Range.Start), St, Args,
                                      D.Out.Name, Out, Causal, Fused, Dropout,
                                      Diags.location(D.Args[1].Range.Start),
                                      /*Serving=*/ServeBlock != nullptr);
}

Op *Sema::embed(const AssignDecl &D, llvm::ArrayRef<Value *> Args,
                const ShardType &Out) {
  if (!checkBuiltinOperand(D, 0, Args[0], /*Ids=*/true, "") ||
      !checkBuiltinOperand(D, 1, Args[1], /*Ids=*/false, "an embedding table"))
    return nullptr;
  const ShardType &Ids = Args[0]->type(), &Table = Args[1]->type();
  if (Table.Dims.size() != 2) {
    Diags.report(D.Args[1].Range, diag::BuiltinDims,
                 "embed's table '" + D.Args[1].Name.Name + "'",
                 "[vocab, width]", dimListStr(Table, Info->Names));
    return nullptr;
  }
  ShardType Want = Ids;
  Want.Dims.push_back(Table.Dims.back());
  // A sharded vocabulary leaves partial sums over its axes.
  if (!checkBuiltinResult(D, Want, Out, AxisSet::of(Table.Dims[0].Axes)))
    return nullptr;
  unsigned St = addStatement(D.Range, D.Out.Name, OpKind::Embed);
  return Builder->create<EmbedOp>(Diags.location(D.Range.Start), St, Args,
                                  D.Out.Name, Out);
}

Op *Sema::crossEntropy(const AssignDecl &D, llvm::ArrayRef<Value *> Args,
                       const ShardType &Out) {
  if (!checkBuiltinOperand(D, 0, Args[0], /*Ids=*/false, "logits") ||
      !checkBuiltinOperand(D, 1, Args[1], /*Ids=*/true, ""))
    return nullptr;
  const ShardType &Logits = Args[0]->type(), &Ids = Args[1]->type();
  if (Logits.Dims.size() < 2) {
    Diags.report(D.Args[0].Range, diag::BuiltinRank,
                 "cross_entropy's logits '" + D.Args[0].Name.Name + "'", 2,
                 "[..., vocab]", dimListStr(Logits, Info->Names));
    return nullptr;
  }
  ShardType Tokens = Logits;
  Tokens.Dims.pop_back();
  if (!Ids.sameDims(Tokens)) {
    Diags.report(D.Args[1].Range, diag::BuiltinDims,
                 "cross_entropy's ids '" + D.Args[1].Name.Name +
                     "' (the logits' dims but the vocab)",
                 dimListStr(Tokens, Info->Names), dimListStr(Ids, Info->Names));
    return nullptr;
  }
  AxisSet Vocab = AxisSet::of(Logits.Dims.back().Axes);
  if (!checkBuiltinResult(D, Tokens, Out, Vocab))
    return nullptr;
  if (!checkPeak(D, Logits.Elt, /*Matmul=*/false))
    return nullptr;
  Loc L = Diags.location(D.Range.Start);
  unsigned St = addStatement(D.Range, D.Out.Name, OpKind::CrossEntropy);
  if (Vocab.empty())
    return Builder->create<CrossEntropyOp>(L, St, Args, D.Out.Name, Out,
                                           CrossEntropyOp::Pass::Fused);
  // A sharded vocabulary: the row max is reduced over its axes before the
  // loss pass reads it (COST-MODEL.md §8's two AllReduces).
  ShardType Max = withSharding(Out, Tokens);
  for (unsigned I = 0; I < Max.Dims.size(); ++I)
    Max.Dims[I].Axes = Logits.Dims[I].Axes;
  Max.Elt = DType::fp32;
  Value *RowMax =
      Builder
          ->create<CrossEntropyOp>(L, St, {Args[0]}, D.Out.Name + ".max", Max,
                                   CrossEntropyOp::Pass::Max)
          ->result();
  return Builder->create<CrossEntropyOp>(L, St, {Args[0], Args[1], RowMax},
                                         D.Out.Name, Out,
                                         CrossEntropyOp::Pass::Loss);
}

Value *Sema::partContraction(const AssignDecl &D, const std::string &Name,
                             Value *L, Value *R, const ShardType &Out,
                             double Used) {
  auto Roles = classifyContraction(L->type(), R->type(), Out);
  if (!Roles || !hasContractionPlan({L->type(), R->type(), Out, *Roles})) {
    Diags.report(D.Range, diag::NoContractionPlan, typeStr(Out),
                 typeStr(L->type()), typeStr(R->type()));
    return nullptr;
  }
  return part<ContractionOp>(D, Name, {L, R}, Out, *Roles, false, Used);
}

/// \p T with the axes \p A dropped from its dims: the tokens gathered over
/// a tensor-parallel group.
static ShardType without(ShardType T, AxisSet A) {
  for (TensorDim &D : T.Dims)
    llvm::erase_if(D.Axes, [&](AxisId X) { return A.contains(X); });
  return T;
}

/// `y = moe(x, W1, W2[, W3]; top, capacity, gated, dispatch)` (LANGUAGE.md §8,
/// COST-MODEL.md §8), lowered to ops that already have their costs and
/// backward rules:
///   y.router   x * Wr[E, X]     the gate (Wr an implicit replicated param)
///   y.dispatch                  tokens to C = top x capacity x tokens / X
///                               slots per expert; AllToAll over the expert
///                               axes
///   y.up       buf * W1         [X, C, F]; gated: y.gate = buf * W3
///   y.act      silu             gated: times y.gate
///   y.down     act * W2         [X, C, E]
///   y          combine          AllToAll back, weighted sum per token
Op *Sema::moe(const AssignDecl &D, llvm::ArrayRef<Value *> Args,
              const ShardType &Out) {
  PropertySet Props;
  if (!checkProps(D.Options, PropOwner::Moe, "call to 'moe'", Props))
    return nullptr;
  bool Gated = Props.flag(PropId::Moe_gated, false);
  // The dispatch order under expert tensor parallelism with sequence-
  // parallel tokens: gather the sequence in the group first (default), or
  // Megatron-Core's AllToAll of each chip's own shard, then the gather.
  bool A2aFirst = false;
  if (Props.has(PropId::Moe_dispatch)) {
    auto I = choose("dispatch", Props.get(PropId::Moe_dispatch),
                    {"gather_then_a2a", "a2a_then_gather"});
    if (!I)
      return nullptr;
    A2aFirst = *I == 1;
  }
  int64_t Top =
      Props.has(PropId::Moe_top) ? Props.get(PropId::Moe_top).Whole : 1;
  double Capacity = Props.has(PropId::Moe_capacity)
                        ? Props.get(PropId::Moe_capacity).Number
                        : 1.0;
  unsigned Want = Gated ? 4 : 3;
  if (Args.size() != Want) {
    Diags.report(D.Callee.Range, diag::MoeOperands, Want,
                 Gated ? "with 'gated = true' (x, W1, W2, W3)" : "(x, W1, W2)",
                 unsigned(Args.size()));
    return nullptr;
  }
  static const char *Roles[] = {"a token", "an expert weight",
                                "an expert weight", "an expert weight"};
  for (unsigned I = 0; I < Want; ++I)
    if (!checkBuiltinOperand(D, I, Args[I], /*Ids=*/false, Roles[I]))
      return nullptr;
  const ShardType &X = Args[0]->type(), &W1 = Args[1]->type(),
                  &W2 = Args[2]->type();
  if (X.Dims.size() < 2) {
    Diags.report(D.Args[0].Range, diag::BuiltinRank,
                 "moe's tokens '" + D.Args[0].Name.Name + "'", 2,
                 "[..., width]", dimListStr(X, Info->Names));
    return nullptr;
  }
  // W1 [X, E, F], W2 [X, F, E], W3 like W1.
  const TensorDim &E = X.Dims.back();
  auto Expect = [&](unsigned I, llvm::ArrayRef<TensorDim> Dims) {
    const ShardType &T = Args[I]->type();
    bool Ok = T.Dims.size() == Dims.size();
    for (size_t K = 0; Ok && K < Dims.size(); ++K)
      Ok = T.Dims[K].Id == Dims[K].Id && T.Dims[K].Size == Dims[K].Size;
    if (!Ok)
      Diags.report(D.Args[I].Range, diag::BuiltinDims,
                   "moe's '" + D.Args[I].Name.Name + "'",
                   dimsText(Dims, Info->Names), dimListStr(T, Info->Names));
    return Ok;
  };
  if (W1.Dims.size() != 3) {
    Diags.report(D.Args[1].Range, diag::BuiltinDims,
                 "moe's '" + D.Args[1].Name.Name + "'",
                 "[experts, " + Info->Names.Dims[E.Id] + ", hidden]",
                 dimListStr(W1, Info->Names));
    return nullptr;
  }
  const TensorDim &Experts = W1.Dims[0], &F = W1.Dims[2];
  if (!Expect(1, {Experts, E, F}) || !Expect(2, {Experts, F, E}) ||
      (Gated && !Expect(3, {Experts, E, F})))
    return nullptr;
  if (Top > Experts.Size) {
    Diags.report(Props.get(PropId::Moe_top).Range, diag::MoeTop, Top,
                 Info->Names.Dims[Experts.Id], Experts.Size);
    return nullptr;
  }
  if (!checkBuiltinResult(D, X, Out, AxisSet()))
    return nullptr;
  if (!checkPeak(D, X.Elt, /*Matmul=*/true) ||
      !checkPeak(D, X.Elt, /*Matmul=*/false))
    return nullptr;
  const std::string &Y = D.Out.Name;
  // The router: an implicit param Wr [E, X], replicated.
  ShardType WrT;
  WrT.Elt = X.Elt;
  WrT.Dims = {E, Experts};
  WrT.Dims[1].Axes.clear();
  Value *Wr = part<ParamOp>(D, Y + ".Wr", {}, WrT);
  AnyParam = true;
  ShardType LogitsT = X;
  LogitsT.Dims.back() = WrT.Dims[1];
  if (!partContraction(D, Y + ".router", Args[0], Wr, LogitsT))
    return nullptr;
  // The tokens the dispatch reads: with `gather_then_a2a`, the sequence
  // gathered over the axes sharding both the tokens and the experts' hidden
  // dim (the tensor-parallel group); as they are otherwise.
  AxisList TokAxes = tokenAxes(X);
  AxisSet Tp;
  for (AxisId A : TokAxes)
    if (llvm::is_contained(F.Axes, A))
      Tp.insert(A);
  Value *Tokens = Args[0];
  if (!Tp.empty() && !A2aFirst)
    Tokens = part<ReshardOp>(D, Y + ".gather", {Args[0]}, without(X, Tp));
  const ShardType &XT = Tokens->type();
  // The capacity slots per expert on the file's mesh; bind-mesh sizes them
  // again for each other mesh, with the same function.
  MoeDispatchOp::Capacity Rule{Top, Capacity,
                               Tokens == Args[0] ? AxisSet() : Tp};
  std::optional<int64_t> C =
      MoeDispatchOp::slots(Rule, XT, Experts.Size, *Mesh);
  if (!C) {
    Diags.report(Props.has(PropId::Moe_capacity)
                     ? Props.get(PropId::Moe_capacity).Range
                     : D.Callee.Range,
                 diag::MoeSlotsOverflow, Info->Names.Dims[Experts.Id]);
    return nullptr;
  }
  TensorDim Slots;
  Slots.Id = Info->Names.Dims.size();
  Slots.Size = *C;
  Info->Names.Dims.push_back(Y + ".C");
  // The experts' sharding: X over W1's expert axes; the slots over the
  // tokens' axes that are neither expert axes nor the hidden dim's (those
  // chips hold every slot of their experts, each its slice of F).
  ShardType Buf;
  Buf.Elt = X.Elt;
  Buf.Dims = {Experts, Slots, E};
  Buf.Dims[1].Axes.clear();
  for (AxisId A : TokAxes)
    if (!llvm::is_contained(Experts.Axes, A) && !Tp.contains(A))
      Buf.Dims[1].Axes.push_back(A);
  Buf.Dims[2].Axes = E.Axes;
  Value *In = part<MoeDispatchOp>(D, Y + ".dispatch", {Tokens}, Buf, Rule);
  double Used = MoeDispatchOp::usedShare(Rule, XT, Experts.Size, *C);
  ShardType HT = Buf;
  HT.Dims[2] = F;
  Value *H = partContraction(D, Y + ".up", In, Args[1], HT, Used);
  if (!H)
    return nullptr;
  Value *A = part<ElementwiseOp>(D, Y + ".act", {H}, HT, ElementwiseFn::silu);
  if (Gated) {
    Value *G = partContraction(D, Y + ".gate", In, Args[3], HT, Used);
    if (!G)
      return nullptr;
    A = part<ElementwiseOp>(D, Y + ".glu", {A, G}, HT, ElementwiseFn::mul);
  }
  // The down projection contracts F: partial sums over F's axes.
  ShardType OT = Buf;
  OT.Dims[2] = W2.Dims[2];
  OT.Dims[2].Axes = E.Axes;
  for (AxisId Ax : F.Axes)
    OT.Unreduced.insert(Ax);
  Value *O = partContraction(D, Y + ".down", A, Args[2], OT, Used);
  if (!O)
    return nullptr;
  // `gather_then_a2a` combines into the gathered sequence, then keeps each
  // chip's slice of it.
  if (!Tp.empty() && !A2aFirst) {
    Value *Whole = part<MoeCombineOp>(D, Y + ".combine", {O}, without(Out, Tp));
    unsigned St = addStatement(D.Range, Y, OpKind::Reshard);
    return Builder->create<ReshardOp>(Diags.location(D.Range.Start), St,
                                      {Whole}, Y, Out);
  }
  unsigned St = addStatement(D.Range, Y, OpKind::MoeCombine);
  return Builder->create<MoeCombineOp>(Diags.location(D.Range.Start), St, {O},
                                       Y, Out);
}
