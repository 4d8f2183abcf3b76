//===- ModelOps.cpp - Attention, embedding and the loss -------------------===//
//
// LANGUAGE.md §8's builtins that are not per element, with their backward
// kinds: each op's type rules (what sharding it computes in), its work
// (COST-MODEL.md §8) and its backward rule. The per-element ones (softmax,
// the norms, dropout) are elementwise functions (Elementwise.def).
//
//===----------------------------------------------------------------------===//
#include "ir/Backward.h"
#include "ir/Ops.h"

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
// attention
//===----------------------------------------------------------------------===//

/// The type k or v (\p KV) computes in next to queries \p Q: q's axes on the
/// leading dims, the sequence dim whole (context parallelism gathers it),
/// the KV heads sharded as q's heads (or whole, when written whole), no
/// partial sums.
static ShardType kvRequired(const ShardType &Q, ShardType KV) {
  KV.Unreduced = {};
  unsigned Seq = AttentionOp::seqDim(KV);
  for (unsigned I = 0; I < KV.Dims.size(); ++I) {
    // KV heads written whole stay whole on every chip (replicated, as
    // Megatron-LM does when tensor parallelism exceeds the KV heads).
    if (I == Seq + 1 && KV.Dims[I].Axes.empty())
      continue;
    KV.Dims[I].Axes = I == Seq ? AxisList() : Q.Dims[I].Axes;
  }
  return KV;
}

std::pair<double, double> AttentionOp::flops(const ShardType &Q,
                                             const ShardType &K, bool Causal,
                                             const MeshSpec &M) {
  // 4 x B x Sq x Sk x N x H: q's elements are B x Sq x N x H, each against
  // all Sk keys (a QK^T and a PV product, 2 FLOPs each).
  double Sk = double(K.Dims[seqDim(K)].Size);
  double Half = Causal ? 0.5 : 1;
  return {4 * Q.localElements(M) * Sk * Half,
          4 * Q.globalElements() * Sk * Half};
}

double AttentionOp::lseBytes(const ShardType &Q, const MeshSpec &M) {
  // fp32 [..., N, Sq]: one per query row and head.
  double H = double(Q.localSize(Q.Dims.size() - 1, M));
  return Q.localElements(M) / H * dtypeBytes(DType::fp32);
}

double AttentionOp::scoreElements(const ShardType &Q, const ShardType &K,
                                  const MeshSpec &M) {
  double H = double(Q.localSize(Q.Dims.size() - 1, M));
  return Q.localElements(M) / H * double(K.Dims[seqDim(K)].Size);
}

/// The attrs attention and its gradient print.
static std::string attentionAttrs(bool Causal, bool Fused, bool Dropout) {
  return std::string(Causal ? " causal" : "") + (Fused ? "" : " unfused") +
         (Dropout ? " dropout" : "");
}

std::string AttentionOp::attrs(const TypeNames &) const {
  return attentionAttrs(Causal, Fused, Dropout);
}

/// The checks attention's forward and backward share: q, k, v of rank >= 3
/// with the same leading dims and head dim, k and v alike, N a multiple of
/// K.
static std::string attentionOperands(const ShardType &Q, const ShardType &K,
                                     const ShardType &V) {
  if (Q.Dims.size() < 3 || K.Dims.size() != Q.Dims.size() || !K.sameDims(V))
    return "q, k and v must have the same rank (at least 3), k and v the "
           "same dims";
  unsigned Seq = AttentionOp::seqDim(Q);
  for (unsigned I = 0; I < Seq; ++I)
    if (!(Q.Dims[I].Id == K.Dims[I].Id))
      return "q and k must have the same leading dims";
  if (Q.Dims.back().Id != K.Dims.back().Id)
    return "q and k must have the same head dim";
  if (Q.Dims[Seq + 1].Size % K.Dims[Seq + 1].Size != 0)
    return "the query heads must be a multiple of the KV heads";
  return "";
}

std::string AttentionOp::verify(const TypeNames &, bool Lowered) const {
  if (numOperands() != 3)
    return "takes q, k and v";
  const ShardType &Q = operand(0)->type();
  std::string E = attentionOperands(Q, operand(1)->type(), operand(2)->type());
  if (!E.empty())
    return E;
  if (!result()->type().sameDims(Q))
    return "its result must have q's dims";
  if (Lowered)
    for (unsigned I = 0; I < 3; ++I)
      if (!(operand(I)->type() == requiredOperandType(I)))
        return "its operands must be in the sharding it computes in";
  return "";
}

ShardType AttentionOp::requiredOperandType(unsigned I) const {
  ShardType Q = operand(0)->type();
  Q.Unreduced = {};
  return I == 0 ? Q : kvRequired(Q, operand(I)->type());
}

ShardType AttentionOp::naturalType() const {
  ShardType T = requiredOperandType(0);
  T.Elt = result()->type().Elt;
  return T;
}

std::optional<OpWork> AttentionOp::work(const MeshSpec &M) const {
  ShardType Q = requiredOperandType(0), K = requiredOperandType(1),
            V = requiredOperandType(2);
  OpWork W;
  std::tie(W.Flops, W.UsefulFlops) = flops(Q, K, Causal && Fused, M);
  // The MFU convention counts causal attention in full (COST-MODEL.md §6.5);
  // unfused, the masked half is computed (and counted by HFU) all the same.
  if (!Fused && Causal)
    W.UsefulFlops /= 2;
  W.MaskedFlops = Causal ? W.UsefulFlops : 0;
  // Reads q, k, v; writes the output; fused, the log-sum-exp too.
  W.HbmBytes = Q.localBytes(M) + K.localBytes(M) + V.localBytes(M) +
               naturalType().localBytes(M);
  W.Matmul = true;
  W.Elt = Q.Elt;
  if (Fused) {
    W.HbmBytes += lseBytes(Q, M);
    return W;
  }
  // Unfused: QK^T writes the scores and PV reads the probabilities; between
  // them the softmax reads and writes them, and dropout reads them and
  // writes its output and a 1-byte mask: kernels of their own, in series.
  double Sc = scoreElements(Q, K, M), E = double(dtypeBytes(Q.Elt));
  W.SerialBytes = Sc * 2 * E + (Dropout ? Sc * (2 * E + 1) : 0);
  W.HbmBytes += Sc * 2 * E + W.SerialBytes;
  return W;
}

double AttentionOp::keptBytes(const MeshSpec &M) const {
  ShardType Q = requiredOperandType(0);
  if (Fused)
    return lseBytes(Q, M);
  // The softmax's output; with dropout, its mask and output too
  // (Korthikanti et al.'s 5 a s^2 b bytes per layer).
  double Sc = scoreElements(Q, requiredOperandType(1), M),
         E = double(dtypeBytes(Q.Elt));
  return Sc * E + (Dropout ? Sc * (E + 1) : 0);
}

void AttentionOp::backward(GradientBuilder &G) const {
  Value *DOut = G.grad(result());
  if (!DOut)
    return;
  const Value *Qv = operand(0);
  Value *Q = G.saved(operand(0)), *K = G.saved(operand(1)),
        *V = G.saved(operand(2)), *Out = G.saved(result());
  G.keep(*this);
  DType Elt = DOut->type().Elt;
  ShardType DqT = naturalType();
  DqT.Elt = Elt;
  Value *DQ = G.emit<AttentionGradOp>(*this, Qv, {Q, K, V, Out, DOut}, DqT,
                                      Causal, 0, Fused, Dropout);
  // Every query block adds to every key's gradient: dk and dv are partial
  // sums over the axes that shard q's sequence dim.
  const ShardType &QT = Qv->type();
  for (unsigned I : {1u, 2u}) {
    const Value *X = operand(I);
    if (!G.needsGrad(X))
      continue;
    ShardType T = requiredOperandType(I);
    T.Elt = Elt;
    for (AxisId A : QT.Dims[seqDim(QT)].Axes)
      T.Unreduced.insert(A);
    Value *DX =
        G.emit<AttentionGradOp>(*this, X, {DQ}, T, Causal, I, Fused, Dropout);
    G.contribute(X, G.reshardTo(DX, G.gradType(X), *this, X));
  }
  if (G.needsGrad(Qv))
    G.contribute(Qv, G.reshardTo(DQ, G.gradType(Qv), *this, Qv));
}

//===----------------------------------------------------------------------===//
// attention_grad
//===----------------------------------------------------------------------===//

std::string AttentionGradOp::attrs(const TypeNames &) const {
  static const char *Names[] = {"dq", "dk", "dv"};
  return attentionAttrs(Causal, Fused, Dropout) + " writes " + Names[Part];
}

std::string AttentionGradOp::verify(const TypeNames &, bool Lowered) const {
  if (Part > 2)
    return "has parts dq, dk and dv only";
  if (Part > 0) {
    auto *K = numOperands() == 1 ? dyn_cast<AttentionGradOp>(operand(0)->def())
                                 : nullptr;
    if (!K || K->part() != 0)
      return "dk and dv name the results of a fused kernel (part 0)";
    if (!result()->type().sameDims(K->operand(Part)->type()))
      return "dk and dv have k's and v's dims";
    return "";
  }
  if (numOperands() != 5)
    return "takes q, k, v, the output and its gradient";
  const ShardType &Q = operand(0)->type();
  std::string E = attentionOperands(Q, operand(1)->type(), operand(2)->type());
  if (!E.empty())
    return E;
  for (unsigned I : {3u, 4u})
    if (!operand(I)->type().sameDims(Q))
      return "the output and its gradient have q's dims";
  if (!result()->type().sameDims(Q))
    return "its result, dq, has q's dims";
  if (Lowered)
    for (unsigned I = 0; I < 5; ++I)
      if (!(operand(I)->type() == requiredOperandType(I)))
        return "its operands must be in the sharding it computes in";
  return "";
}

ShardType AttentionGradOp::requiredOperandType(unsigned I) const {
  if (Part > 0)
    return operand(I)->type();
  ShardType Q = operand(0)->type();
  Q.Unreduced = {};
  if (I == 1 || I == 2)
    return kvRequired(Q, operand(I)->type());
  return I == 0 ? Q : withSharding(operand(I)->type(), Q);
}

ShardType AttentionGradOp::naturalType() const {
  if (Part > 0)
    return result()->type();
  return withSharding(result()->type(), requiredOperandType(0));
}

std::optional<OpWork> AttentionGradOp::work(const MeshSpec &M) const {
  // Parts 1 and 2 are written by part 0's kernel.
  if (Part > 0)
    return std::nullopt;
  ShardType Q = requiredOperandType(0), K = requiredOperandType(1),
            V = requiredOperandType(2);
  OpWork W;
  if (!Fused)
    return unfusedWork(Q, K, V, M);
  auto [Local, Useful] = AttentionOp::flops(Q, K, Causal, M);
  W.Flops = 2.5 * Local;
  W.UsefulFlops = 2.5 * Useful;
  W.MaskedFlops = Causal ? W.UsefulFlops : 0;
  // Reads q, k, v, out, dout and the log-sum-exp; writes dq, dk, dv (in
  // the output gradient's dtype).
  double GradBytes = double(dtypeBytes(result()->type().Elt));
  for (unsigned I = 0; I < 5; ++I)
    W.HbmBytes += requiredOperandType(I).localBytes(M);
  W.HbmBytes += AttentionOp::lseBytes(Q, M);
  W.HbmBytes += naturalType().localBytes(M) +
                (K.localElements(M) + V.localElements(M)) * GradBytes;
  W.Matmul = true;
  W.Elt = Q.Elt;
  return W;
}

OpWork AttentionGradOp::unfusedWork(const ShardType &Q, const ShardType &K,
                                    const ShardType &V,
                                    const MeshSpec &M) const {
  // Four batched matmuls over the whole score matrix (dV = P^T dO,
  // dP = dO V^T, dQ = dS K, dK = dS^T Q): twice the forward's two.
  OpWork W;
  auto [Local, Useful] = AttentionOp::flops(Q, K, /*Causal=*/false, M);
  W.Flops = 2 * Local;
  W.UsefulFlops = 2 * Useful * (Causal ? 0.5 : 1);
  W.MaskedFlops = Causal ? W.UsefulFlops : 0;
  W.Matmul = true;
  W.Elt = Q.Elt;
  // The matmuls read q, k, v and dout and write dq, dk, dv; over the scores
  // they read the kept probabilities (dV), write dP and read dS twice.
  double GradBytes = double(dtypeBytes(result()->type().Elt));
  for (unsigned I : {0u, 1u, 2u, 4u})
    W.HbmBytes += requiredOperandType(I).localBytes(M);
  W.HbmBytes += naturalType().localBytes(M) +
                (K.localElements(M) + V.localElements(M)) * GradBytes;
  double Sc = AttentionOp::scoreElements(Q, K, M),
         E = double(dtypeBytes(Q.Elt));
  // In series between them: dropout's backward reads dP and the mask and
  // writes; the softmax's reads its output and dy and writes dS.
  W.SerialBytes = (Dropout ? Sc * (2 * E + 1) : 0) + Sc * 3 * E;
  W.HbmBytes += Sc * 4 * E + W.SerialBytes;
  return W;
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
  return "";
}

ShardType EmbedOp::requiredOperandType(unsigned I) const {
  // The ids may not use an axis the table's dims use: each chip looks its
  // tokens up in its own part of the table.
  if (I == 1)
    return operand(1)->type();
  ShardType Ids = operand(0)->type();
  Ids.Unreduced = {};
  return withoutAxes(Ids, dimAxes(operand(1)->type()));
}

ShardType EmbedOp::naturalType() const {
  const ShardType &Table = operand(1)->type();
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
  // The table's sharding; a partial sum over the axes that shard the
  // tokens (each chip adds its tokens' rows).
  ShardType T = withSharding(G.gradType(Table), Table->type());
  T.Unreduced = dimAxes(requiredOperandType(0));
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
  if (Lowered)
    for (unsigned I = 0; I < 2; ++I)
      if (!(operand(I)->type() == requiredOperandType(I)))
        return "its operands must be in the sharding it computes in";
  return "";
}

ShardType EmbedGradOp::requiredOperandType(unsigned I) const {
  const ShardType &Table = result()->type();
  ShardType Ids = operand(1)->type();
  Ids.Unreduced = {};
  Ids = withoutAxes(Ids, dimAxes(Table));
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
  if (Lowered)
    for (unsigned I = 1; I < numOperands(); ++I)
      if (!(operand(I)->type() == requiredOperandType(I)))
        return "its operands must be in the sharding it computes in";
  return "";
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
  if (Lowered)
    for (unsigned I = 0; I < 3; ++I)
      if (!(operand(I)->type() == requiredOperandType(I)))
        return "its operands must be in the sharding it computes in";
  return "";
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

/// The buffer `[X, C, E]` as the chips holding tokens \p Tokens fill it: X
/// whole, C over the tokens' axes, E as the tokens' last dim.
static ShardType slotsOf(ShardType Buffer, const ShardType &Tokens) {
  Buffer.Unreduced = {};
  Buffer.Dims[0].Axes.clear();
  Buffer.Dims[1].Axes = tokenAxes(Tokens);
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
