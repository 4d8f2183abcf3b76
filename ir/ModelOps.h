//===- ModelOps.h - The model building blocks' ops --------------*- C++ -*-===//
//
// LANGUAGE.md §8's model building blocks that are not per element, one
// class each, as Ops.h's are (ModelOps.cpp, AttentionOps.cpp; costs in
// COST-MODEL.md §8). Included by Ops.h: include that.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_IR_MODELOPS_H
#define SHARDC_IR_MODELOPS_H

#include "ir/Ops.h"

namespace shardc {

/// Attention: `q[..., Sq, N, H]`, `k`/`v[..., Sk, K, H]`, N a multiple of K
/// (grouped-query). Fused (FlashAttention, the default), the Sq x Sk scores
/// are never stored. Unfused (`fused = false`, Megatron-LM before
/// FlashAttention), two batched matmuls over the whole score matrix with a
/// softmax (and, with `dropout = true`, a dropout) between them that write
/// and read the scores in HBM and keep them for the backward. k and v compute
/// with q's sharding on the leading dims, their heads sharded as q's, and Sk
/// whole: a sharded Sk (context parallelism) is gathered first. 4 x B x Sq x Sk
/// x N x H FLOPs at matmul peak; fused, half with `causal`, and it writes the
/// fp32 log-sum-exp `[..., N, Sq]` and keeps it for the backward; unfused,
/// all of them (the mask is applied, not skipped), keeping the
/// probabilities (with dropout also its mask and output) instead.
class AttentionOp : public OpOf<AttentionOp, OpKind::Attention, Op,
                                Differentiable, Costed, Lowerable> {
public:
  explicit AttentionOp(bool Causal, bool Fused = true, bool Dropout = false,
                       Loc KvAt = {}, bool Serving = false)
      : Causal(Causal), Fused(Fused), Dropout(Dropout), Serving(Serving),
        KvAt(KvAt) {}
  /// In a serving program (`serve { }`) fused attention writes no
  /// log-sum-exp: there is no backward to keep it for.
  bool serving() const { return Serving; }
  /// Where the call names k: a mesh whose query-head sharding does not
  /// divide the KV heads is reported there (bind-mesh).
  Loc kvLoc() const { return KvAt; }
  bool causal() const { return Causal; }
  bool fused() const { return Fused; }
  bool dropout() const { return Dropout; }
  /// The position of the sequence dim in q and k (third from last).
  static unsigned seqDim(const ShardType &T) { return T.Dims.size() - 3; }
  /// The attention plan over a sharded context (docs/inference.md): the
  /// axes A sharding k's sequence dim when this serving attention attends
  /// in place (q gathered over A, each chip against its own keys, the
  /// partial outputs reduced over A), which it does when that moves fewer
  /// bytes than gathering k and v; empty otherwise (v0.2's plan: k and v
  /// whole on the sequence, as training always has them).
  AxisSet contextAxes() const;
  /// The FLOPs of attention over \p Q and \p K: per chip, and for the
  /// whole program (replication not counted). With \p Causal, the pairs a
  /// mask keeps: half (v0.2's rule, whatever the lengths); with \p AtEnd
  /// (a serving program's Sq queries at the last of Sk <= Sq positions:
  /// decode, a prefill), Sq·Sk − Sq(Sq − 1)/2 of the Sq·Sk, which is half
  /// only as the lengths grow (Sq = Sk keeps the half).
  static std::pair<double, double> flops(const ShardType &Q, const ShardType &K,
                                         bool Causal, const MeshSpec &M,
                                         bool AtEnd = false);
  /// Bytes per chip of the fp32 log-sum-exp for queries \p Q.
  static double lseBytes(const ShardType &Q, const MeshSpec &M);
  /// Score elements per chip, B x Sq x N x Sk (Sk: the keys on the chip;
  /// unfused attention).
  static double scoreElements(const ShardType &Q, const ShardType &K,
                              const MeshSpec &M);

  std::string attrs(const TypeNames &N) const override;
  std::string verify(const TypeNames &N, bool Lowered) const override;
  std::optional<OpWork> work(const MeshSpec &M) const override;
  Lowering lowering() const override { return Lowering::Local; }
  ShardType requiredOperandType(unsigned I) const override;
  ShardType naturalType() const override;
  void backward(GradientBuilder &G) const override;
  bool savesInputs() const override { return true; }
  bool savesResult() const override { return true; }
  double keptBytes(const MeshSpec &M) const override;
  bool selectivelyRecomputed() const override { return !Fused; }
  double workspaceBytes(const MeshSpec &M) const override;

private:
  bool Causal, Fused, Dropout, Serving;
  Loc KvAt;
};

/// `append(cache, rows)`: writes \p rows (the cache's dims with a `new` dim
/// in the cache's `context` position) after the cache's used part, in the
/// cache's sharding and dtype (docs/inference.md). Operand 0 is the cache,
/// operand 1 the rows; the result is the cache. It reads the rows and
/// writes them in the cache's dtype, 1 FLOP per element at the rows'
/// vector peak when that converts.
class AppendOp : public OpOf<AppendOp, OpKind::Append, Op, Costed, Lowerable> {
public:
  explicit AppendOp(unsigned ContextPos) : ContextPos(ContextPos) {}
  /// The position of the cache's `context` dim (the rows' `new` dim).
  unsigned contextPos() const { return ContextPos; }
  std::string verify(const TypeNames &N, bool Lowered) const override;
  std::optional<OpWork> work(const MeshSpec &M) const override;
  Lowering lowering() const override { return Lowering::Local; }
  ShardType requiredOperandType(unsigned I) const override;
  ShardType naturalType() const override;

private:
  unsigned ContextPos;
};

/// Attention's backward (COST-MODEL.md §8): fused, one kernel of 2.5 x the
/// forward's FLOPs (FlashAttention-2 recomputes the scores), reading q, k,
/// v, out, dout and the log-sum-exp and writing dq, dk, dv; unfused, four
/// matmuls (2 x the forward's) with dropout's and the softmax's backward in
/// series between them (docs/cost-model.md §8). An op has one
/// result, so the kernel is Part 0 (operands q, k, v, out, dout; result dq;
/// all the work) and Parts 1 and 2 name its dk and dv (operand: Part 0's
/// result; no work of their own). dk and dv are partial sums over the axes
/// that shard q's sequence dim (each query block adds to every key's).
class AttentionGradOp : public OpOf<AttentionGradOp, OpKind::AttentionGrad, Op,
                                    Costed, Lowerable> {
public:
  AttentionGradOp(bool Causal, unsigned Part, bool Fused = true,
                  bool Dropout = false)
      : Causal(Causal), Fused(Fused), Dropout(Dropout), Part(Part) {}
  unsigned part() const { return Part; }

  std::string attrs(const TypeNames &N) const override;
  std::string verify(const TypeNames &N, bool Lowered) const override;
  std::optional<OpWork> work(const MeshSpec &M) const override;
  Lowering lowering() const override { return Lowering::Local; }
  ShardType requiredOperandType(unsigned I) const override;
  ShardType naturalType() const override;
  double workspaceBytes(const MeshSpec &M) const override;

private:
  /// The work of the unfused backward (Megatron-LM's core attention).
  OpWork unfusedWork(const ShardType &Q, const ShardType &K, const ShardType &V,
                     const MeshSpec &M) const;
  bool Causal, Fused, Dropout;
  unsigned Part;
};

/// `embed(ids, table)`: row lookup. ids are int32 `[...]`, the table `[V,
/// E]`, the result `[..., E]` in the table's dtype. A sharded V makes the
/// result a partial sum over V's axes (Megatron's vocab-parallel
/// embedding); the written type reduces it. A table sharded over an axis
/// the ids use (FSDP, ZeRO 3) is gathered over it first. No FLOPs; reads
/// the ids and one table row per local token, writes the result.
class EmbedOp : public OpOf<EmbedOp, OpKind::Embed, Op, Differentiable, Costed,
                            Lowerable> {
public:
  std::string verify(const TypeNames &N, bool Lowered) const override;
  std::optional<OpWork> work(const MeshSpec &M) const override;
  Lowering lowering() const override { return Lowering::Local; }
  ShardType requiredOperandType(unsigned I) const override;
  ShardType naturalType() const override;
  void backward(GradientBuilder &G) const override;
  AxisSet gradientPartials(unsigned I) const override;
};

/// The table's gradient: scatter-adds the output gradient (operand 0) into
/// the rows the ids (operand 1) name: reads the output gradient and the
/// ids, reads and writes those rows (1 add per element). The result is a
/// partial sum over the axes that shard the tokens.
class EmbedGradOp
    : public OpOf<EmbedGradOp, OpKind::EmbedGrad, Op, Costed, Lowerable> {
public:
  std::string verify(const TypeNames &N, bool Lowered) const override;
  std::optional<OpWork> work(const MeshSpec &M) const override;
  Lowering lowering() const override { return Lowering::Local; }
  ShardType requiredOperandType(unsigned I) const override;
  ShardType naturalType() const override { return result()->type(); }
};

/// `cross_entropy(logits, ids)`: the loss per token, reducing over the last
/// (vocab) dim; fp32 unless written otherwise. Whole vocab: one fused op,
/// 6 FLOPs per logit. Sharded vocab: two passes with an AllReduce after
/// each (COST-MODEL.md §8): Max (operand: logits; 1 FLOP per logit; its
/// result, the row max, is reduced over the vocab axes) then Loss
/// (operands: logits, ids, the max; 5 FLOPs per logit; its result is a
/// partial sum over the vocab axes that the written type reduces).
class CrossEntropyOp : public OpOf<CrossEntropyOp, OpKind::CrossEntropy, Op,
                                   Differentiable, Costed, Lowerable> {
public:
  enum class Pass : uint8_t { Fused, Max, Loss };
  explicit CrossEntropyOp(Pass P) : P(P) {}
  Pass pass() const { return P; }

  std::string attrs(const TypeNames &N) const override;
  std::string verify(const TypeNames &N, bool Lowered) const override;
  std::optional<OpWork> work(const MeshSpec &M) const override;
  Lowering lowering() const override { return Lowering::Local; }
  ShardType requiredOperandType(unsigned I) const override;
  ShardType naturalType() const override;
  void backward(GradientBuilder &G) const override;
  double keptBytes(const MeshSpec &M) const override;

private:
  Pass P;
};

/// The loss's gradient w.r.t. the logits: reads the loss gradient, the
/// saved logits and ids, writes dlogits in the logits' sharding; 4 FLOPs
/// per logit (the shifted exp, the division by the sum, the scaling by the
/// loss gradient; the one-hot subtraction touches one logit per token).
class CrossEntropyGradOp
    : public OpOf<CrossEntropyGradOp, OpKind::CrossEntropyGrad, Op, Costed,
                  Lowerable> {
public:
  std::string verify(const TypeNames &N, bool Lowered) const override;
  std::optional<OpWork> work(const MeshSpec &M) const override;
  Lowering lowering() const override { return Lowering::Local; }
  ShardType requiredOperandType(unsigned I) const override;
  ShardType naturalType() const override;
};

/// The axes sharding \p T's token dims (all but the last), major to minor.
AxisList tokenAxes(const ShardType &T);

/// A mixture-of-experts layer's dispatch (LANGUAGE.md §8): copies each
/// local token to the `top` experts it is routed to, into a buffer `[X, C,
/// E]` of C capacity slots per expert. It computes with C sharded over the
/// tokens' axes and X whole, each chip filling its own slots of every
/// expert; the buffer's written sharding (X over the expert axes) is then
/// an AllToAll away. Reads the tokens, writes the buffer; no FLOPs. Its
/// backward is a combine.
class MoeDispatchOp : public OpOf<MoeDispatchOp, OpKind::MoeDispatch, Op,
                                  Differentiable, Costed, Lowerable> {
public:
  /// How a `moe` call sizes its buffer: each token to \p Top experts, each
  /// expert with room for \p Capacity x its fair share of the routed
  /// tokens. Only the forward dispatch has one (a combine's backward is a
  /// dispatch into the buffer it already has).
  struct Capacity {
    int64_t Top = 1;
    double Factor = 1;
    /// The tensor-parallel group's axes when the dispatch reads tokens
    /// gathered over them (`dispatch = gather_then_a2a`): the slots are
    /// still a multiple of the chips the tokens were sharded over, so the
    /// backward's combine can scatter them over the group again.
    AxisSet Group;
  };
  MoeDispatchOp() = default;
  explicit MoeDispatchOp(Capacity C) : Rule(C) {}
  const std::optional<Capacity> &capacity() const { return Rule; }
  /// The capacity slots per expert for tokens \p Tokens (all dims but the
  /// last are tokens) routed over \p Experts experts on mesh \p M: top x
  /// capacity x tokens / experts, rounded up to a multiple of the chips
  /// the tokens are sharded over, so each holds the same number
  /// (docs/cost-model.md §8). Nullopt when the buffer [experts, slots,
  /// width] would pass 2^62 elements.
  static std::optional<int64_t> slots(Capacity C, const ShardType &Tokens,
                                      int64_t Experts, const MeshSpec &M);
  /// The share of \p Slots slots per expert that hold tokens (MFU counts
  /// those; 1 when capacity < 1 drops tokens).
  static double usedShare(Capacity C, const ShardType &Tokens, int64_t Experts,
                          int64_t Slots);
  std::string verify(const TypeNames &N, bool Lowered) const override;
  std::optional<OpWork> work(const MeshSpec &M) const override;
  Lowering lowering() const override { return Lowering::Local; }
  /// Each operand as it is.
  ShardType requiredOperandType(unsigned I) const override {
    return operand(I)->type();
  }
  ShardType naturalType() const override;
  void backward(GradientBuilder &G) const override;

private:
  std::optional<Capacity> Rule;
};

/// A mixture-of-experts layer's combine: the experts' outputs `[X, C, E]`
/// summed back into each token, weighted by its router scores (2 FLOPs per
/// buffer element). It reads the buffer with C sharded over its result's
/// token axes and X whole (an AllToAll from the experts' sharding), writes
/// the tokens. Its backward is a dispatch.
class MoeCombineOp : public OpOf<MoeCombineOp, OpKind::MoeCombine, Op,
                                 Differentiable, Costed, Lowerable> {
public:
  std::string verify(const TypeNames &N, bool Lowered) const override;
  std::optional<OpWork> work(const MeshSpec &M) const override;
  Lowering lowering() const override { return Lowering::Local; }
  ShardType requiredOperandType(unsigned I) const override;
  ShardType naturalType() const override;
  void backward(GradientBuilder &G) const override;
};

} // namespace shardc

#endif // SHARDC_IR_MODELOPS_H
