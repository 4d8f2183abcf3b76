//===- AttentionOps.cpp - attention and attention_grad -------------------===//
//
// LANGUAGE.md §8's attention, fused (FlashAttention) or unfused
// (Megatron-LM's core attention, `fused = false`), and its backward kernel:
// the type rules (q's sharding; k and v whole on the sequence), the work
// (COST-MODEL.md §8) and the backward rule.
//
//===----------------------------------------------------------------------===//
#include "ir/Backward.h"
#include "ir/Ops.h"

using namespace shardc;
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
                                             const MeshSpec &M, bool AtEnd) {
  // 4 x B x Sq x Sk x N x H: q's elements are B x Sq x N x H, each against
  // all Sk keys (a QK^T and a PV product, 2 FLOPs each); per chip, against
  // the keys it holds (all of them unless the context is sharded).
  double Sk = double(K.Dims[seqDim(K)].Size);
  double LocalSk = double(K.localSize(seqDim(K), M));
  double Sq = double(Q.Dims[seqDim(Q)].Size);
  // Causal: half, as v0.2 counts it. Serving (AtEnd), the queries are the
  // last Sq of the Sk positions: query i (0 .. Sq - 1 from the first) sees
  // Sk - Sq + 1 + i keys; Sq = Sk keeps the book's half (the diagonal not
  // counted apart), and more queries than keys has no such reading.
  double Kept = !Causal ? 1
                : !AtEnd || Sq >= Sk || Sq < 1
                    ? 0.5
                    : (Sq * Sk - Sq * (Sq - 1) / 2) / (Sq * Sk);
  return {4 * Q.localElements(M) * LocalSk * Kept,
          4 * Q.globalElements() * Sk * Kept};
}

double AttentionOp::lseBytes(const ShardType &Q, const MeshSpec &M) {
  // fp32 [..., N, Sq]: one per query row and head.
  double H = double(Q.localSize(Q.Dims.size() - 1, M));
  return Q.localElements(M) / H * dtypeBytes(DType::fp32);
}

double AttentionOp::scoreElements(const ShardType &Q, const ShardType &K,
                                  const MeshSpec &M) {
  double H = double(Q.localSize(Q.Dims.size() - 1, M));
  return Q.localElements(M) / H * double(K.localSize(seqDim(K), M));
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
  return Lowered ? operandsComputeIn(*this, 0, 3) : "";
}

AxisSet AttentionOp::contextAxes() const {
  if (!Serving || numOperands() != 3)
    return {};
  const ShardType &Q = operand(0)->type(), &K = operand(1)->type(),
                  &V = operand(2)->type();
  AxisSet A = AxisSet::of(K.Dims[seqDim(K)].Axes);
  if (A.empty() || !(A == AxisSet::of(V.Dims[seqDim(V)].Axes)))
    return {};
  // Global bytes each plan moves, before the (|A| - 1) / |A| both share:
  // gathering k and v moves them once; attending in place gathers q (when
  // A shards it) and reduces the output: an AllReduce moves it twice on a
  // ring, a ReduceScatter (the statement shards a dim over A) once.
  auto Bytes = [](const ShardType &T) {
    return T.globalElements() * double(dtypeBytes(T.Elt));
  };
  const ShardType &Out = result()->type();
  bool QSharded = !(Q.axesUsed() & A).empty();
  bool Scatter = !(Out.axesUsed() & A).empty();
  double InPlace = (QSharded ? Bytes(Q) : 0) + (Scatter ? 1 : 2) * Bytes(Out);
  return InPlace < Bytes(K) + Bytes(V) ? A : AxisSet();
}

ShardType AttentionOp::requiredOperandType(unsigned I) const {
  ShardType Q = operand(0)->type();
  Q.Unreduced = {};
  AxisSet A = contextAxes();
  for (TensorDim &D : Q.Dims)
    llvm::erase_if(D.Axes, [&](AxisId X) { return A.contains(X); });
  if (I == 0)
    return Q;
  ShardType KV = kvRequired(Q, operand(I)->type());
  // In place, each chip keeps its own part of the context.
  if (!A.empty())
    KV.Dims[seqDim(KV)].Axes = operand(I)->type().Dims[seqDim(KV)].Axes;
  return KV;
}

ShardType AttentionOp::naturalType() const {
  ShardType T = requiredOperandType(0);
  T.Elt = result()->type().Elt;
  // In place, each chip's output is a partial sum over the context's axes
  // (combined with the log-sum-exps, whose bytes are not counted).
  T.Unreduced = contextAxes();
  return T;
}

std::optional<OpWork> AttentionOp::work(const MeshSpec &M) const {
  ShardType Q = requiredOperandType(0), K = requiredOperandType(1),
            V = requiredOperandType(2);
  OpWork W;
  std::tie(W.Flops, W.UsefulFlops) = flops(Q, K, Causal && Fused, M, Serving);
  // Causal attention's useful FLOPs are the unmasked pairs'; the masked
  // rest is MaskedFlops, which the full count published MFUs use adds
  // back. Unfused, the masked part is computed (and counted by HFU) all
  // the same.
  if (Causal) {
    double Full = flops(Q, K, /*Causal=*/false, M).second;
    W.UsefulFlops = flops(Q, K, /*Causal=*/true, M, Serving).second;
    W.MaskedFlops = Full - W.UsefulFlops;
  }
  // Reads q, k, v; writes the output; fused, the log-sum-exp too.
  W.HbmBytes = Q.localBytes(M) + K.localBytes(M) + V.localBytes(M) +
               naturalType().localBytes(M);
  W.Matmul = true;
  W.Elt = Q.Elt;
  if (Fused) {
    if (!Serving)
      W.HbmBytes += lseBytes(Q, M);
    W.Class = OpWork::Kernel::FusedAttention;
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

double AttentionOp::workspaceBytes(const MeshSpec &M) const {
  if (Fused)
    return 0;
  // The raw scores, until the softmax has read them, beside what it keeps
  // (the probabilities, and with dropout its mask and output).
  ShardType Q = requiredOperandType(0);
  double Sc = scoreElements(Q, requiredOperandType(1), M);
  return Sc * double(dtypeBytes(Q.Elt)) + keptBytes(M);
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
  return Lowered ? operandsComputeIn(*this, 0, 5) : "";
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
  W.Class = OpWork::Kernel::FusedAttentionGrad;
  return W;
}

double AttentionGradOp::workspaceBytes(const MeshSpec &M) const {
  if (Fused || Part > 0)
    return 0;
  // dP and dS, score-sized, at once.
  ShardType Q = requiredOperandType(0);
  return 2 * AttentionOp::scoreElements(Q, requiredOperandType(1), M) *
         double(dtypeBytes(Q.Elt));
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
