//===- OpInterfaces.h - What a pass may ask of some op kinds ----*- C++ -*-===//
//
// The questions only some op kinds answer, grouped as interfaces a kind opts
// into (as MLIR's op interfaces): Differentiable (derive-backward's rule and
// what the backward keeps), Costed (the work estimate-costs and check-mesh
// price, the workspace check-memory counts), Lowerable (how
// insert-collectives lowers a high-level op) and Fusable (a per-element
// kernel `fuse = elementwise` may join to its neighbours). Op keeps only what
// every op has (Operation.h).
//
// Which kind implements which interface is Ops.def's last column, so
// `isa<Costed>(O)` is a lookup in a table indexed by the op's kind, and
// `dyn_cast<Costed>(O)` adjusts the pointer with a switch generated from the
// same file (OpInterfaces.cpp), never a dynamic_cast. OpInterfaces.cpp also
// holds, by static_assert, that each kind's column and its class's bases
// agree.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_IR_OPINTERFACES_H
#define SHARDC_IR_OPINTERFACES_H

#include "ir/Operation.h"
#include <array>

namespace shardc {

/// A contraction's GEMM on one chip: Batch x M x N x K, the local extents
/// after sharding (M: the lhs free dims, N: the rhs free dims, K: the
/// contracted dims, Batch: the batch dims, each a product). M = 0: the
/// work is no single GEMM.
struct GemmShape {
  double M = 0, N = 0, K = 0, Batch = 1;
  double OutBytes = 0; ///< the result's bytes on one chip
  bool valid() const { return M > 0; }
  double flops() const { return 2 * M * N * K * Batch; }
};

/// The work a local op does on one chip (COST-MODEL.md §1); the cost model
/// turns it into time on a chip.
struct OpWork {
  double Flops = 0;       ///< per chip, replication counted
  double UsefulFlops = 0; ///< whole program, replication not counted
  /// FLOPs a causal mask skips (whole program): not executed and not in
  /// UsefulFlops; the full count published MFUs use adds them (the report
  /// prints it beside the MFU, which counts UsefulFlops).
  double MaskedFlops = 0;
  double HbmBytes = 0; ///< per chip, inputs read + outputs written
  /// Part of HbmBytes read only from a training step's second microbatch
  /// on: a gradient buffer the op accumulates into (COST-MODEL.md §6.2).
  double AccumulateBytes = 0;
  /// Part of HbmBytes moved by memory-bound kernels that run between the
  /// op's matmuls (unfused attention's softmax and dropout): their time
  /// adds to the rest's max(T_math, T_hbm) (docs/cost-model.md §1).
  double SerialBytes = 0;
  /// Part of SerialBytes moved by an fp8 GEMM's casts of its operands
  /// (Transformer Engine's amax-and-cast kernels, docs/training.md).
  double CastBytes = 0;
  bool Matmul = false; ///< at the matmul peak (else the vector peak)
  DType Elt = DType::bf16;
  /// Which measured kernel rate prices the work: a GEMM or memory-bound
  /// kernel by the chip's general figures, fused attention by its own
  /// (docs/cost-model.md §1, "Measured kernel rates").
  enum class Kernel : uint8_t { General, FusedAttention, FusedAttentionGrad };
  Kernel Class = Kernel::General;
  /// A contraction's GEMM, which the chip's GEMM model prices by shape
  /// (passes/GemmModel.h); other matmul work runs at the ceiling.
  GemmShape Gemm;
};

/// How insert-collectives lowers a high-level op.
enum class Lowering : uint8_t {
  Keep,        ///< already local (every kind that is not Lowerable)
  Contraction, ///< the contraction planner (COST-MODEL.md §2 cases)
  Reshard,     ///< the reshard planner (the §2 table)
  Local,       ///< computes in naturalType(), then reshards to its result
};

/// Ops.def's interface column: one bit per interface.
enum OpInterfaceBits : uint8_t {
  NoInterfaces = 0,
  IsDifferentiable = 1 << 0,
  IsCosted = 1 << 1,
  IsLowerable = 1 << 2,
  IsFusable = 1 << 3,
};

/// The interfaces of each kind, indexed by OpKind (Ops.def's last column).
inline constexpr std::array OpInterfaceTable = {
#define OP(Kind, Class, Mnemonic, Noun, Fixed, Interfaces) uint8_t(Interfaces),
#include "ir/Ops.def"
};

/// True when kind \p K implements every interface of \p Bits.
constexpr bool opImplements(OpKind K, uint8_t Bits) {
  return (OpInterfaceTable[size_t(K)] & Bits) == Bits;
}

/// A forward op with a backward rule (COST-MODEL.md §5) and what it saves
/// for it. Inputs and params are leaves (derive-backward handles them);
/// kinds that only a pass creates (collectives, gradient ops, updates)
/// never appear in a forward program and are not differentiable.
class Differentiable {
public:
  static constexpr uint8_t Bit = IsDifferentiable;
  static bool classof(const Op *O) { return opImplements(O->kind(), Bit); }

  /// Emits this op's backward through \p G: reads the gradient of its
  /// result and contributes to its operands'.
  virtual void backward(GradientBuilder &G) const = 0;
  /// The axes over which the gradient this op's backward sends operand
  /// \p I is a partial sum (a weight gradient summed over the batch's
  /// shards): they become a param's reduction axes (LANGUAGE.md §7).
  virtual AxisSet gradientPartials(unsigned I) const { return {}; }
  /// True when the op's inputs are saved under selective recompute
  /// (contractions and, in v0.2, attention and moe).
  virtual bool savesInputs() const { return false; }
  /// True when its own result is saved as well (attention's output, which
  /// its backward reads).
  virtual bool savesResult() const { return false; }
  /// Bytes per chip the forward writes for its backward besides its result
  /// (a dropout mask, attention's log-sum-exp): saved activations that are
  /// no value of the program (COST-MODEL.md §7).
  virtual double keptBytes(const MeshSpec &M) const { return 0; }
  /// True when selective recompute re-runs the op in the backward instead
  /// of keeping what it keeps (Megatron-LM's selective recompute of the
  /// unfused attention core, whose scores are large and cheap to redo).
  virtual bool selectivelyRecomputed() const { return false; }

protected:
  ~Differentiable() = default;
};

/// An op that computes on a chip: its work prices it (estimate-costs) and
/// holds the chip to a peak (check-mesh). Ops that only move data (views,
/// slices, collectives) are priced by the network instead.
class Costed {
public:
  static constexpr uint8_t Bit = IsCosted;
  static bool classof(const Op *O) { return opImplements(O->kind(), Bit); }

  /// The op's work on one chip of \p M; none when it does none on this
  /// mesh (a reshard that keeps its dtype).
  virtual std::optional<OpWork> work(const MeshSpec &M) const = 0;
  /// Bytes per chip the op holds only while it runs, beyond its operands
  /// and result: unfused attention's score-sized tensors, the transient
  /// term's "workspace of an unfused op" (COST-MODEL.md §7). Whatever of
  /// it the op keeps for its backward is keptBytes, counted once.
  virtual double workspaceBytes(const MeshSpec &M) const { return 0; }

protected:
  ~Costed() = default;
};

/// A high-level op that insert-collectives rewrites into local ops; the
/// kinds that are not Lowerable are kept as they are (Lowering::Keep).
class Lowerable {
public:
  static constexpr uint8_t Bit = IsLowerable;
  static bool classof(const Op *O) { return opImplements(O->kind(), Bit); }

  virtual Lowering lowering() const = 0;
  /// For Lowering::Local: the type operand \p I must have for the op to
  /// compute locally; insert-collectives reshards the operand to it first.
  virtual ShardType requiredOperandType(unsigned I) const;
  /// For Lowering::Local: the type the op computes locally from its
  /// operands in their required types.
  virtual ShardType naturalType() const;

protected:
  ~Lowerable() = default;
  /// For verify() of a lowered Local op \p O (this one): "" when operands
  /// [Begin, End) are in the types the op computes in, else the verifier's
  /// message.
  std::string operandsComputeIn(const Op &O, unsigned Begin,
                                unsigned End) const;
};

/// A memory-bound kernel per element that `fuse = elementwise` may run in
/// one kernel with its neighbours (docs/cost-model.md §1, "Fusion"): its
/// work (Costed) reads each operand and writes its result once, so a fused
/// intermediate's write and its read drop out of the kernel's bytes. A
/// contraction is not one (a product that sums over no dim, a norm's gain,
/// lowers to an elementwise multiply, which is).
class Fusable {
public:
  static constexpr uint8_t Bit = IsFusable;
  static bool classof(const Op *O) { return opImplements(O->kind(), Bit); }

protected:
  ~Fusable() = default;
};

namespace detail {
/// \p O as interface \p I; O's kind implements I. OpInterfaces.cpp.
template <typename I> I *interfaceCast(Op *O);
} // namespace detail

} // namespace shardc

// LLVM 14's cast<> converts a pointer with a C-style cast, which between Op
// and an interface (unrelated classes) would not adjust it: these
// specialisations make cast<>/dyn_cast<> from an op to an interface go
// through the generated switch instead.
namespace llvm {
#define SHARDC_OP_INTERFACE_CAST(I)                                            \
  template <> struct cast_convert_val<I, shardc::Op *, shardc::Op *> {         \
    static I *doit(shardc::Op *O) {                                            \
      return shardc::detail::interfaceCast<I>(O);                              \
    }                                                                          \
  };                                                                           \
  template <>                                                                  \
  struct cast_convert_val<I, const shardc::Op *, const shardc::Op *> {         \
    static const I *doit(const shardc::Op *O) {                                \
      return shardc::detail::interfaceCast<I>(const_cast<shardc::Op *>(O));    \
    }                                                                          \
  };                                                                           \
  template <> struct cast_convert_val<I, shardc::Op, shardc::Op> {             \
    static I &doit(shardc::Op &O) {                                            \
      return *shardc::detail::interfaceCast<I>(&O);                            \
    }                                                                          \
  };                                                                           \
  template <> struct cast_convert_val<I, const shardc::Op, const shardc::Op> { \
    static const I &doit(const shardc::Op &O) {                                \
      return *shardc::detail::interfaceCast<I>(const_cast<shardc::Op *>(&O));  \
    }                                                                          \
  };
SHARDC_OP_INTERFACE_CAST(shardc::Differentiable)
SHARDC_OP_INTERFACE_CAST(shardc::Costed)
SHARDC_OP_INTERFACE_CAST(shardc::Lowerable)
SHARDC_OP_INTERFACE_CAST(shardc::Fusable)
#undef SHARDC_OP_INTERFACE_CAST
} // namespace llvm

#endif // SHARDC_IR_OPINTERFACES_H
