//===- Training.h - What a train { } block asks for -------------*- C++ -*-===//
//
// The settings of LANGUAGE.md §7's `train { }` block, checked, and the small
// vocabulary the training passes share: the phase a statement belongs to
// and, for a statement the compiler derived, the forward statement and
// operand it is the gradient of.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_IR_TRAINING_H
#define SHARDC_IR_TRAINING_H

#include "diag/Location.h"
#include "ir/Hardware.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>
#include <string>

namespace shardc {

enum class OptimizerKind : uint8_t { Adam, Sgd, None };
/// `attention` (an extension) recomputes only the unfused core attention,
/// as Megatron-LM's selective recompute does (docs/training.md).
enum class RecomputePolicy : uint8_t { None, Selective, Full, Attention };
enum class PipelineSchedule : uint8_t { GPipe, OneFOneB, Interleaved };

llvm::StringRef optimizerName(OptimizerKind K);
llvm::StringRef recomputeName(RecomputePolicy R);
llvm::StringRef scheduleName(PipelineSchedule S);

/// `train { ... }` with LANGUAGE.md §7's defaults.
/// `tp_overlap`: none (every tensor-parallel collective on the compute
/// stream), backward (Megatron-LM's asynchronous backward), all (the
/// forward's too, as Transformer Engine's userbuffers do).
enum class TpOverlapMode : uint8_t { None, Backward, All };

/// `fp8`: Transformer Engine's fp8 formats (its `Format` enum, Megatron's
/// `--fp8-format`). `hybrid`: E4M3 for the forward's activations and
/// weights, E5M2 for the gradients; `e4m3`: E4M3 for all three. Both run
/// at the chip's one fp8 peak, so they cost the same; the report names the
/// recipe.
enum class Fp8Recipe : uint8_t { None, Hybrid, E4M3 };
llvm::StringRef fp8RecipeName(Fp8Recipe R);

struct TrainConfig {
  int64_t Microbatches = 1;
  OptimizerKind Optimizer = OptimizerKind::Adam;
  unsigned Zero = 0; ///< ZeRO stage 0..3
  RecomputePolicy Recompute = RecomputePolicy::None;
  DType Grad = DType::fp32;                  ///< gradient buffers
  std::optional<DType> Master = DType::fp32; ///< none: no master weights
  DType State = DType::fp32;                 ///< each optimizer moment
  PipelineSchedule Schedule = PipelineSchedule::OneFOneB;
  int64_t Chunks = 1;
  /// `sync = after_backward`: the gradient syncs wait for the end of the
  /// backward instead of overlapping the compute that follows them
  /// (Megatron-LM's data-parallel AllReduce before it could overlap).
  bool SyncAfterBackward = false;
  /// `scatter_gather = true` (an extension): each chip sends 1/r of a
  /// pipeline send replicated over r chips, and the receiving stage
  /// AllGathers it (Megatron-LM's scatter/gather optimisation).
  bool ScatterGather = false;
  /// `tp_overlap`: which tensor-parallel collectives run under a GEMM
  /// rather than on the compute stream's critical path (docs/cost-model.md
  /// §6.6).
  TpOverlapMode TpOverlap = TpOverlapMode::None;
  /// `param_gather = overlapped`: ZeRO 1-2's param AllGather runs under the
  /// next step's forward (Megatron-Core's distributed optimizer).
  bool ParamGatherOverlapped = false;
  /// `p2p_overlap = true`: a pipeline send leaves its stage's compute
  /// stream free; only the receiver waits for it.
  bool P2pOverlap = false;
  /// `fixed_costs = priced`: the step's fixed costs are ops of their own
  /// (docs/cost-model.md §6.4): zeroing the gradient buffers, the
  /// master-to-model copy, fp16 gradients' inf check, and with `grad_clip`
  /// the gradient norm and its AllReduce. `none` (the default) leaves them
  /// out, as shardc v0.2 did.
  bool FixedCosts = false;
  /// `grad_clip = c` (Megatron-LM's --clip-grad, PyTorch's
  /// clip_grad_norm_): clipping needs the global gradient norm.
  std::optional<double> GradClip;
  /// `fp8 = hybrid | e4m3`: every GEMM of a param with an activation
  /// (forward, dgrad, wgrad) runs in fp8 with Transformer Engine's casts;
  /// the rest stays in the tensors' dtypes (docs/training.md).
  Fp8Recipe Fp8 = Fp8Recipe::None;
  Loc At; ///< the `train` block, where a step-wide error is reported
  /// The `microbatches` value when written, else invalid: a mesh whose
  /// stages do not group the microbatches is reported there.
  Loc MicrobatchesAt;
  /// The `tp_overlap` setting when written (a warning is reported there).
  Loc TpOverlapAt;
};

/// Which part of a training step a statement belongs to (the JSON's
/// `phase`).
enum class Phase : uint8_t { Forward, Backward, Sync, Optimizer };
llvm::StringRef phaseName(Phase P);

/// What a derived statement computes: the gradient of forward statement
/// `Stmt`'s result with respect to its operand `Wrt` (a source name); the
/// seed gradient of an output; the recomputation of a forward statement;
/// the sum of a value's gradient contributions; or a param's gradient sync,
/// optimizer update, or gather of the updated param.
struct Provenance {
  enum Kind : uint8_t {
    Seed,
    Zero,
    Gradient,
    Recompute,
    Sum,
    Sync,
    Update,
    Gather,
    /// One of the step's fixed costs for param `Wrt` (Stmt: the param).
    Fixed
  };
  Kind What = Gradient;
  unsigned Stmt = 0; ///< the forward statement
  std::string Wrt;   ///< Gradient: the operand; Sum/Sync/Update: the value
  /// Sync: it runs every microbatch (ZeRO 2, FSDP), not once per step.
  bool EveryMicrobatch = false;
};

struct Statement;
class Module;
class Value;
/// What a derived statement computes, in words: `grad of 'h' at line 8
/// w.r.t. W_in`, `sync of W_in's gradient, once per step`. \p Fwd is the
/// forward statement it refers to.
std::string describeProvenance(const Provenance &P, const Statement &Fwd);

/// The value a training step's tokens and global batch are counted on
/// (docs/training.md): the first repeat's first carried value, or the
/// first forward input when nothing is carried; its first dim is the
/// batch (a `per step` dim must be that one). Null when the program has
/// neither.
const Value *batchCountedOn(const Module &M);

} // namespace shardc

#endif // SHARDC_IR_TRAINING_H
