//===- ModelOps.cpp - Embedding, the loss and MoE's routing ---------------===//
//
// LANGUAGE.md §8's builtins that are not per element, with their backward
// kinds (attention in AttentionOps.cpp): each op's type rules (what sharding it
// computes in), its work (COST-MODEL.md §8) and its backward rule. The
// per-element ones (softmax, the norms, dropout) are elementwise functions
// (Elementwise.def).
//
//===----------------------------------------------------------------------===//
#include "ir/Backward.h"
#include "ir/Ops.h"
#include <algorithm>
#include <cmath>

using namespace shardc;

/// \p T without partial sums, each dim sharded by the axes \p Like's dim of
/// the same id has (or as it is, when \p Like lacks the dim).
static ShardType shardedLike(ShardType T, const ShardType &Like) {
  T.Unreduced = {};
  for (TensorDim &D : T.Dims)
    if (auto I = Like.dimIndex(D.Id))
      D.Axes = Like.Dims[*I].Axes;
  return T;
}

/// Every axis that shards a dim of \p T.
static AxisSet dimAxes(const ShardType &T) {
  AxisSet S;
  for (const TensorDim &D : T.Dims)
    for (AxisId A : D.Axes)
      S.insert(A);
  return S;
}

/// \p T with the axes in \p Drop taken off its dims.
static ShardType withoutAxes(ShardType T, AxisSet Drop) {
  for (TensorDim &D : T.Dims)
    llvm::erase_if(D.Axes, [&](AxisId A) { return Drop.contains(A); });
  return T;
}

//===----------------------------------------------------------------------===//
// embed
//===----------------------------------------------------------------------===//

std::string EmbedOp::verify(const TypeNames &, bool Lowered) const {
  if (numOperands() != 2)
    return "takes the ids and the table";
  const ShardType &Ids = operand(0)->type(), &Table = operand(1)->type();
  const ShardType &Out = result()->type();
  if (Ids.Elt != DType::int32 || Table.Dims.size() != 2)
    return "takes int32 ids and a two-dim table";
  if (Out.Dims.size() != Ids.Dims.size() + 1 ||
      !(Out.Dims.back().Id == Table.Dims.back().Id))
    return "its result has the ids' dims and the table's last";
  for (unsigned I = 0; I < Ids.Dims.size(); ++I)
    if (!(Out.Dims[I].Id == Ids.Dims[I].Id))
      return "its result has the ids' dims and the table's last";
  if (Lowered && !(Ids == requiredOperandType(0)))
    return "its ids must be in the sharding it computes in";
  if (Lowered && !(Table == requiredOperandType(1)))
    return "its table may use none of its ids' axes";
  return "";
}

ShardType EmbedOp::requiredOperandType(unsigned I) const {
  // The ids keep their sharding; the table gives up every axis the ids use
  // (an AllGather of the table): FSDP and ZeRO 3 gather the whole param
  // before the lookup, where gathering the ids instead would look up the
  // whole batch of every chip in that axis as a partial sum the size of the
  // activations. Megatron's vocab-parallel table (V over axes the ids do
  // not use) is looked up as it is stored.
  ShardType Ids = operand(0)->type();
  Ids.Unreduced = {};
  if (I == 0)
    return Ids;
  return withoutAxes(operand(1)->type(), dimAxes(Ids));
}

ShardType EmbedOp::naturalType() const {
  const ShardType Table = requiredOperandType(1);
  ShardType T = shardedLike(result()->type(), requiredOperandType(0));
  T.Dims.back().Axes = Table.Dims.back().Axes;
  // A sharded vocabulary: each chip holds the rows of its part, the others
  // contribute zeros (a partial sum).
  for (AxisId A : Table.Dims.front().Axes)
    T.Unreduced.insert(A);
  return T;
}

std::optional<OpWork> EmbedOp::work(const MeshSpec &M) const {
  // Reads the ids and one row per local token; writes as much.
  OpWork W;
  double Rows = naturalType().localBytes(M);
  W.HbmBytes = requiredOperandType(0).localBytes(M) + 2 * Rows;
  W.Elt = operand(1)->type().Elt;
  return W;
}

AxisSet EmbedOp::gradientPartials(unsigned I) const {
  // The table's gradient sums over the tokens: the axes sharding them.
  return I == 1 ? dimAxes(requiredOperandType(0)) : AxisSet();
}

void EmbedOp::backward(GradientBuilder &G) const {
  Value *DOut = G.grad(result());
  const Value *Table = operand(1);
  if (!DOut || !G.needsGrad(Table))
    return;
  Value *Ids = G.saved(operand(0));
  // The table in the sharding it was looked up in, a partial sum over the
  // axes that shard the tokens (each chip adds its tokens' rows). A tied
  // table's gradient also sums over what its other uses reduce over (a
  // head's contraction over a sequence shard the ids do not have): each
  // chip then adds the rows of the tokens its output gradient holds
  // (EmbedGradOp slices the ids to them), so that the contributions add in
  // the gradient's own type.
  ShardType Want = G.gradType(Table);
  ShardType T = withSharding(Want, requiredOperandType(1));
  T = withoutAxes(T, Want.Unreduced);
  T.Unreduced = Want.Unreduced | dimAxes(requiredOperandType(0));
  Value *D = G.emit<EmbedGradOp>(*this, Table, {DOut, Ids}, T);
  G.contribute(Table, G.reshardTo(D, G.gradType(Table), *this, Table));
}

//===----------------------------------------------------------------------===//
// embed_grad
//===----------------------------------------------------------------------===//

std::string EmbedGradOp::verify(const TypeNames &, bool Lowered) const {
  if (numOperands() != 2 || operand(1)->type().Elt != DType::int32)
    return "takes the output gradient and the ids";
  const ShardType &D = operand(0)->type(), &Ids = operand(1)->type();
  if (D.Dims.size() != Ids.Dims.size() + 1 || result()->type().Dims.size() != 2)
    return "takes a gradient with the ids' dims and the table's last";
  return Lowered ? operandsComputeIn(*this, 0, 2) : "";
}

/// \p Ids with a token dim taking the output gradient \p Out's axes where
/// those are the ids' own plus axes the gradient \p Table sums over (a tied
/// table's other use reducing over a sequence shard, context parallelism):
/// each chip then adds its own tokens' rows, a slice of the ids and no
/// gather of the gradient.
static ShardType tokensLikeGradient(ShardType Ids, const ShardType &Out,
                                    const ShardType &Table) {
  AxisSet TableAxes = dimAxes(Table);
  for (unsigned I = 0; I < Ids.Dims.size(); ++I) {
    const AxisList &Want = Out.Dims[I].Axes;
    AxisSet Elsewhere = dimAxes(Ids).without(AxisSet::of(Ids.Dims[I].Axes));
    bool Extends = llvm::all_of(Ids.Dims[I].Axes, [&](AxisId A) {
      return llvm::is_contained(Want, A);
    });
    bool Allowed = llvm::all_of(Want, [&](AxisId A) {
      return !TableAxes.contains(A) && !Elsewhere.contains(A) &&
             (Table.Unreduced.contains(A) ||
              llvm::is_contained(Ids.Dims[I].Axes, A));
    });
    if (Extends && Allowed)
      Ids.Dims[I].Axes = Want;
  }
  return Ids;
}

ShardType EmbedGradOp::requiredOperandType(unsigned I) const {
  const ShardType &Table = result()->type();
  ShardType Ids = operand(1)->type();
  Ids.Unreduced = {};
  Ids = withoutAxes(Ids, dimAxes(Table));
  Ids = tokensLikeGradient(std::move(Ids), operand(0)->type(), Table);
  if (I == 1)
    return Ids;
  ShardType D = shardedLike(operand(0)->type(), Ids);
  D.Dims.back().Axes = Table.Dims.back().Axes;
  return D;
}

std::optional<OpWork> EmbedGradOp::work(const MeshSpec &M) const {
  // Reads the output gradient and the ids; reads and writes one gradient
  // row per local token, adding to it.
  ShardType D = requiredOperandType(0);
  double Elements = D.localElements(M);
  OpWork W;
  W.Flops = Elements;
  W.HbmBytes = D.localBytes(M) + requiredOperandType(1).localBytes(M) +
               2 * Elements * dtypeBytes(result()->type().Elt);
  W.Elt = result()->type().Elt;
  return W;
}

//===----------------------------------------------------------------------===//
// cross_entropy
//===----------------------------------------------------------------------===//

std::string CrossEntropyOp::attrs(const TypeNames &) const {
  switch (P) {
  case Pass::Fused:
    return "";
  case Pass::Max:
    return " max";
  case Pass::Loss:
    return " loss";
  }
  llvm_unreachable("every pass is handled");
}

/// The logits' leading dims are the result's: the checks a loss and its
/// gradient share.
static bool perToken(const ShardType &Logits, const ShardType &T) {
  if (T.Dims.size() + 1 != Logits.Dims.size())
    return false;
  for (unsigned I = 0; I < T.Dims.size(); ++I)
    if (!(T.Dims[I].Id == Logits.Dims[I].Id))
      return false;
  return true;
}

std::string CrossEntropyOp::verify(const TypeNames &, bool Lowered) const {
  unsigned Want = P == Pass::Max ? 1 : P == Pass::Fused ? 2 : 3;
  if (numOperands() != Want)
    return "takes the logits, the ids and (its loss pass) the row max";
  const ShardType &L = operand(0)->type();
  for (unsigned I = 1; I < numOperands(); ++I)
    if (!perToken(L, operand(I)->type()))
      return "its ids and row max have the logits' dims but the last";
  if (!perToken(L, result()->type()))
    return "its result has the logits' dims but the last";
  if (P != Pass::Max && operand(1)->type().Elt != DType::int32)
    return "its ids are int32";
  if (P == Pass::Fused && !L.Dims.back().Axes.empty())
    return "a sharded vocab needs the two passes";
  return Lowered ? operandsComputeIn(*this, 1, numOperands()) : "";
}

ShardType CrossEntropyOp::requiredOperandType(unsigned I) const {
  ShardType L = operand(0)->type();
  L.Unreduced = {};
  return I == 0 ? L : shardedLike(operand(I)->type(), L);
}

ShardType CrossEntropyOp::naturalType() const {
  const ShardType &L = operand(0)->type();
  ShardType T = shardedLike(result()->type(), L);
  // Each chip reduces its part of the vocabulary.
  for (AxisId A : L.Dims.back().Axes)
    T.Unreduced.insert(A);
  return T;
}

std::optional<OpWork> CrossEntropyOp::work(const MeshSpec &M) const {
  const ShardType &L = operand(0)->type();
  double PerLogit = P == Pass::Fused ? 6 : P == Pass::Max ? 1 : 5;
  OpWork W;
  W.Flops = PerLogit * L.localElements(M);
  for (unsigned I = 0; I < numOperands(); ++I)
    W.HbmBytes += requiredOperandType(I).localBytes(M);
  W.HbmBytes += naturalType().localBytes(M);
  W.Elt = L.Elt;
  return W;
}

double CrossEntropyOp::keptBytes(const MeshSpec &M) const {
  // The row max and the sum of exponentials, fp32 per token, for dlogits.
  if (P == Pass::Max)
    return 0;
  return 2 * naturalType().localElements(M) * dtypeBytes(DType::fp32);
}

void CrossEntropyOp::backward(GradientBuilder &G) const {
  // The max only steadies the exponentials: no gradient flows through it.
  if (P == Pass::Max)
    return;
  Value *DL = G.grad(result());
  const Value *Logits = operand(0);
  if (!DL || !G.needsGrad(Logits))
    return;
  Value *L = G.saved(Logits), *Ids = G.saved(operand(1));
  G.keep(*this);
  ShardType T = withSharding(G.gradType(Logits), requiredOperandType(0));
  Value *D = G.emit<CrossEntropyGradOp>(*this, Logits, {DL, L, Ids}, T);
  G.contribute(Logits, G.reshardTo(D, G.gradType(Logits), *this, Logits));
}

//===----------------------------------------------------------------------===//
// cross_entropy_grad
//===----------------------------------------------------------------------===//

std::string CrossEntropyGradOp::verify(const TypeNames &, bool Lowered) const {
  if (numOperands() != 3)
    return "takes the loss gradient, the logits and the ids";
  const ShardType &L = operand(1)->type();
  if (!perToken(L, operand(0)->type()) || !perToken(L, operand(2)->type()) ||
      !result()->type().sameDims(L))
    return "takes per-token gradient and ids and gives the logits' dims";
  return Lowered ? operandsComputeIn(*this, 0, 3) : "";
}

ShardType CrossEntropyGradOp::requiredOperandType(unsigned I) const {
  ShardType L = operand(1)->type();
  L.Unreduced = {};
  return I == 1 ? L : shardedLike(operand(I)->type(), L);
}

ShardType CrossEntropyGradOp::naturalType() const {
  return withSharding(result()->type(), requiredOperandType(1));
}

std::optional<OpWork> CrossEntropyGradOp::work(const MeshSpec &M) const {
  OpWork W;
  W.Flops = 4 * requiredOperandType(1).localElements(M);
  for (unsigned I = 0; I < 3; ++I)
    W.HbmBytes += requiredOperandType(I).localBytes(M);
  W.HbmBytes += naturalType().localBytes(M);
  W.Elt = operand(1)->type().Elt;
  return W;
}

//===----------------------------------------------------------------------===//
// moe_dispatch, moe_combine
//===----------------------------------------------------------------------===//

AxisList shardc::tokenAxes(const ShardType &T) {
  AxisList Axes;
  for (size_t I = 0; I + 1 < T.Dims.size(); ++I)
    Axes.append(T.Dims[I].Axes.begin(), T.Dims[I].Axes.end());
  return Axes;
}

/// The routed tokens: every dim of \p Tokens but the last.
static double tokenCount(const ShardType &Tokens) {
  double N = 1;
  for (size_t I = 0; I + 1 < Tokens.Dims.size(); ++I)
    N *= double(Tokens.Dims[I].Size);
  return N;
}

std::optional<int64_t> MoeDispatchOp::slots(Capacity C, const ShardType &Tokens,
                                            int64_t Experts,
                                            const MeshSpec &M) {
  double Shards = double(axesProduct(tokenAxes(Tokens), M)) *
                  double(axesProduct(C.Group, M));
  double PerShard = std::ceil(double(C.Top) * C.Factor * tokenCount(Tokens) /
                              double(Experts) / Shards);
  // Compared as doubles: a capacity of 1e300 must not wrap an integer. The
  // buffer [experts, slots, width] is a tensor: at most 2^62 elements.
  double Width = double(Tokens.Dims.back().Size);
  if (!(PerShard * Shards * double(Experts) * Width <=
        double(int64_t(1) << 62)))
    return std::nullopt;
  return int64_t(PerShard) * int64_t(Shards);
}

double MoeDispatchOp::usedShare(Capacity C, const ShardType &Tokens,
                                int64_t Experts, int64_t Slots) {
  return std::min(1.0, double(C.Top) * tokenCount(Tokens) / double(Experts) /
                           double(Slots));
}

/// The buffer `[X, C, E]` as the chips holding tokens \p Tokens fill it: X
/// whole, C over the tokens' axes, E as the tokens' last dim. C's axes run
/// in the tokens' order, except where the experts' sharding \p Buffer leaves
/// a token axis off its dims (a tensor-parallel group holding every slot of
/// its experts): then the slot axes \p Buffer keeps come first, that group's
/// next, the expert axes last, the order in which the AllToAll over the
/// expert axes and the group's gather take them off (and its ReduceScatter
/// and the AllToAll back put them on), so no AllToAll reorders the slots.
static ShardType slotsOf(ShardType Buffer, const ShardType &Tokens) {
  AxisSet InSlots, InExperts;
  for (AxisId A : Buffer.Dims[1].Axes)
    InSlots.insert(A);
  for (AxisId A : Buffer.Dims[0].Axes)
    InExperts.insert(A);
  AxisList Axes = tokenAxes(Tokens);
  bool Absent = llvm::any_of(Axes, [&](AxisId A) {
    return !InSlots.contains(A) && !InExperts.contains(A);
  });
  // A buffer already in this sharding (a lowered op's operand) keeps its
  // order.
  bool Filled =
      InExperts.empty() &&
      llvm::all_of(Axes, [&](AxisId A) { return InSlots.contains(A); }) &&
      Buffer.Dims[1].Axes.size() == Axes.size();
  if (Filled)
    Axes = Buffer.Dims[1].Axes;
  else if (Absent) {
    // 0: kept in the slots, 1: the group's, 2: the experts'.
    auto Rank = [&](AxisId A) {
      return InSlots.contains(A) ? 0 : InExperts.contains(A) ? 2 : 1;
    };
    std::stable_sort(Axes.begin(), Axes.end(),
                     [&](AxisId L, AxisId R) { return Rank(L) < Rank(R); });
  }
  Buffer.Unreduced = {};
  Buffer.Dims[0].Axes.clear();
  Buffer.Dims[1].Axes = Axes;
  Buffer.Dims[2].Axes = Tokens.Dims.back().Axes;
  return Buffer;
}

/// The checks dispatch and combine share: a buffer `[X, C, E]` whose E is
/// the tokens' last dim.
static std::string moeShapes(const ShardType &Tokens, const ShardType &Buf) {
  if (Buf.Dims.size() != 3 || Tokens.Dims.size() < 2 ||
      !(Buf.Dims[2].Id == Tokens.Dims.back().Id))
    return "moves tokens [..., E] to and from a buffer [X, C, E]";
  return "";
}

std::string MoeDispatchOp::verify(const TypeNames &, bool) const {
  if (numOperands() != 1)
    return "takes the tokens";
  return moeShapes(operand(0)->type(), result()->type());
}

ShardType MoeDispatchOp::naturalType() const {
  ShardType T = slotsOf(result()->type(), operand(0)->type());
  return T;
}

std::optional<OpWork> MoeDispatchOp::work(const MeshSpec &M) const {
  OpWork W;
  W.HbmBytes = operand(0)->type().localBytes(M) + naturalType().localBytes(M);
  W.Elt = operand(0)->type().Elt;
  return W;
}

void MoeDispatchOp::backward(GradientBuilder &G) const {
  Value *DBuf = G.grad(result());
  const Value *X = operand(0);
  if (!DBuf || !G.needsGrad(X))
    return;
  // Each token's gradient sums its copies': a combine.
  ShardType T = G.gradType(X);
  G.contribute(X, G.emit<MoeCombineOp>(*this, X, {DBuf}, T));
}

std::string MoeCombineOp::verify(const TypeNames &, bool Lowered) const {
  if (numOperands() != 1)
    return "takes the experts' outputs";
  std::string E = moeShapes(result()->type(), operand(0)->type());
  if (!E.empty())
    return E;
  if (Lowered && !(operand(0)->type() == requiredOperandType(0)))
    return "its operand must be in the sharding it computes in";
  return "";
}

ShardType MoeCombineOp::requiredOperandType(unsigned) const {
  return slotsOf(operand(0)->type(), naturalType());
}

ShardType MoeCombineOp::naturalType() const {
  ShardType T = result()->type();
  T.Unreduced = {};
  return T;
}

std::optional<OpWork> MoeCombineOp::work(const MeshSpec &M) const {
  // A multiply by the router weight and an add per slot element.
  ShardType In = requiredOperandType(0);
  OpWork W;
  W.Flops = 2 * In.localElements(M);
  W.HbmBytes = In.localBytes(M) + naturalType().localBytes(M);
  W.Elt = In.Elt;
  return W;
}

void MoeCombineOp::backward(GradientBuilder &G) const {
  Value *DOut = G.grad(result());
  const Value *Buf = operand(0);
  if (!DOut || !G.needsGrad(Buf))
    return;
  // Each slot's gradient is its token's, weighted: a dispatch.
  G.contribute(Buf, G.emit<MoeDispatchOp>(*this, Buf, {DOut}, G.gradType(Buf)));
}

//===----------------------------------------------------------------------===//
// append
//===----------------------------------------------------------------------===//

std::string AppendOp::verify(const TypeNames &, bool Lowered) const {
  if (numOperands() != 2)
    return "takes the cache and the rows";
  const ShardType &Cache = operand(0)->type(), &Rows = operand(1)->type();
  if (Rows.Dims.size() != Cache.Dims.size() || ContextPos >= Cache.Dims.size())
    return "its rows must have the cache's rank";
  for (unsigned I = 0; I < Cache.Dims.size(); ++I)
    if (I != ContextPos && !(Rows.Dims[I].Id == Cache.Dims[I].Id))
      return "its rows must have the cache's dims but its context";
  if (!(result()->type() == Cache))
    return "its result must be the cache, in its type";
  return Lowered ? operandsComputeIn(*this, 0, 2) : "";
}

ShardType AppendOp::requiredOperandType(unsigned I) const {
  ShardType Cache = operand(0)->type();
  if (I == 0)
    return Cache;
  // The rows in the cache's sharding, their own length (which no axis
  // shards: a `new` dim sharded is an error) and dtype.
  const ShardType &Rows = operand(1)->type();
  ShardType T = Cache;
  T.Unreduced = {};
  T.Dims[ContextPos] = Rows.Dims[ContextPos];
  T.Dims[ContextPos].Axes = Cache.Dims[ContextPos].Axes;
  T.Elt = Rows.Elt;
  return T;
}

ShardType AppendOp::naturalType() const { return operand(0)->type(); }

std::optional<OpWork> AppendOp::work(const MeshSpec &M) const {
  ShardType Rows = requiredOperandType(1);
  ShardType Written = Rows;
  Written.Elt = operand(0)->type().Elt;
  OpWork W;
  W.HbmBytes = Rows.localBytes(M) + Written.localBytes(M);
  if (Rows.Elt != Written.Elt)
    W.Flops = Rows.localElements(M); // not model FLOPs: none useful
  W.Elt = Rows.Elt;
  return W;
}
