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
#include "ir/Ops.h"

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
  }
  llvm_unreachable("every builtin is handled");
}

Op *Sema::modelBuiltin(const AssignDecl &D, ModelBuiltin B,
                       llvm::ArrayRef<Value *> Args, const ShardType &Out) {
  const BuiltinInfo &I = info(B);
  if (Args.size() != I.Arity) {
    Diags.report(D.Callee.Range, diag::WrongArity, D.Callee.Name, I.Arity,
                 unsigned(Args.size()));
    return nullptr;
  }
  if (B != ModelBuiltin::Attention && !D.Options.empty()) {
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
    if (T.Elt != Q.Elt) {
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
  // Each chip's query heads read their own KV heads: k and v are sharded
  // over the heads as q is, which must divide them.
  int64_t Ways = axesProduct(NHeads.Axes, *Mesh);
  if (KHeads.Size % Ways != 0) {
    Diags.report(D.Args[1].Range, diag::AttentionKvShards,
                 Info->Names.Dims[KHeads.Id], KHeads.Size,
                 axisNames(NHeads.Axes, Info->Names), Ways);
    return nullptr;
  }
  if (!checkBuiltinResult(D, Q, Out, AxisSet()))
    return nullptr;
  if (!checkPeak(D, Q.Elt, /*Matmul=*/true))
    return nullptr;
  unsigned St = addStatement(D.Range, D.Out.Name, OpKind::Attention);
  return Builder->create<AttentionOp>(Diags.location(D.Range.Start), St, Args,
                                      D.Out.Name, Out, Causal);
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
