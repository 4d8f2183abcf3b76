//===- Analyses.h - What the passes find, as side tables --------*- C++ -*-===//
//
// The passes never write results into the IR: each fills a table here,
// keyed by statement or by the lowered module's op ids, and the report, the
// annotated IR printer and the re-cost API read the tables. Plans are kept
// as data (which step, on which value, over which axes, at what time); the
// sentences the report prints are rendered from them (report/Describe.h).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_ANALYSES_H
#define SHARDC_PASSES_ANALYSES_H

#include "ir/Module.h"
#include "ir/Resharding.h"
#include "passes/CostModel.h"
#include "passes/Schedule.h"
#include "passes/StagePartition.h"
#include <memory>
#include <optional>
#include <vector>

namespace shardc {

/// One step of a plan as the user reads it: `AllGather 'A' over X`,
/// `convert 'g' to fp32`.
struct PlanStep {
  StepKind Kind;     ///< Slice, Convert or a collective
  std::string Value; ///< the value it applies to (operand or result name)
  AxisList Axes;     ///< none for a conversion
  DType Elt;         ///< the dtype after the step (what a Convert makes)
};

/// A whole plan for one statement, the op time it gives and the bytes it
/// moves (over its collectives, the busiest uplink's bytes of each level).
struct PlanSummary {
  std::vector<PlanStep> Steps; ///< empty: the local product
  double Time = 0;
  double BytesMoved = 0;
};

/// insert-collectives' choice for a contraction or a reshard that converts:
/// the plan it took and the best one it rejected (absent when there was no
/// alternative).
struct PlanChoice {
  PlanSummary Chosen;
  std::optional<PlanSummary> Rejected;
  /// The lowered op the choice is remarked on: the local product, or the
  /// conversion.
  unsigned At = 0;
  /// The two plans' op times tie, so the choice fell to bytes moved (or
  /// then to the number of collectives, or the order): the renderings then
  /// show the bytes too.
  bool TimesTie = false;
};

/// Program totals (COST-MODEL.md §4), repeat counts applied.
struct ProgramCost {
  double Time = 0, TMath = 0, THbm = 0, TComms = 0;
  double Flops = 0; ///< useful FLOPs over all chips (contractions)
  double Mfu = 0;
  llvm::SmallVector<double, 4> LevelBytes; ///< per level, through one uplink
};

/// A param of a training step, as derive-backward resolved it.
struct ParamInfo {
  const Value *Param = nullptr; ///< in the training program
  unsigned Stmt = 0;            ///< its declaration
  /// The axes its weight-gradient contractions sum over (data, FSDP,
  /// context parallelism), and those that shard none of its dims.
  AxisSet Reduction, Replica;
  ShardType Optimizer;  ///< the optimizer state's sharding (grad dtype)
  ShardType GradBuffer; ///< the gradient buffer's sharding (grad dtype)
  /// ZeRO 2 and params stored sharded over a reduction axis: the buffer is
  /// sharded, so its ReduceScatter runs every microbatch.
  bool SyncEveryMicrobatch = false;
  double StateBytesPerElement = 0; ///< moments and master weights
};

/// schedule-step: one training step on the two streams (COST-MODEL.md §6).
struct StepSummary {
  int64_t Microbatches = 1;
  /// One microbatch's forward and backward on the compute stream (the
  /// backward as in the last microbatch, its first-microbatch time beside).
  double TFwd = 0, TBwd = 0, TBwdFirst = 0;
  double TPipe = 0;        ///< all microbatches' forward and backward
  double TSyncExposed = 0; ///< sync time past the end of the last backward
  /// The gradient syncs one chip issues per step, summed: with a pipeline
  /// its stage's share of the layers' and the busier end's own.
  double TSync = 0;
  /// Tied params across a pipeline (StagePartition::TiedOnLast): the one
  /// exchange of the two copies' gradients between the first and the last
  /// stage, after the backward (part of TSyncExposed), its bytes per chip
  /// each way, and the params' statements.
  double TTiedSync = 0, TiedSyncBytes = 0;
  std::vector<unsigned> TiedParams;
  double TOpt = 0; ///< the optimizer updates
  /// `fixed_costs = priced` (docs/cost-model.md §6.4), the chip's share
  /// as TOpt's: the gradient norm (its pass and AllReduce), the inf check,
  /// the master copy, zeroing the buffers, indexed by FixedCost
  /// (ir/Operation.h); TFixed is their sum.
  double TFixedPart[NumFixedCosts] = {};
  double TFixed = 0;
  double TParamGather = 0; ///< ZeRO 1-2's gathers of the updated params
  /// `param_gather = overlapped` (docs/cost-model.md §6.6): the gathers'
  /// own time and Σ comm_sm_share x time; TParamGather is then what they
  /// add beside the next step's forward.
  double TParamGatherIssued = 0, ParamGatherContention = 0;
  double TStep = 0;
  double Tokens = 0;      ///< per step
  double GlobalBatch = 0; ///< m x the first dim of the tokens' value
  double TokensPerSecond = 0;
  /// 3 x forward useful FLOPs x m, causal attention at the unmasked half
  /// it computes: MFU's numerator, so MFU stays at most 100%.
  double ModelFlops = 0;
  double Mfu = 0, Hfu = 0;
  /// The same with causal attention counted in full, as Korthikanti et
  /// al.'s eq. 7 and PaLM count it (and most published MFUs): for
  /// comparison, above MFU when the step has causal attention.
  double ModelFlopsCausalFull = 0, MfuCausalFull = 0;
  /// `fp8`: the bytes one microbatch's forward and backward casts move
  /// (OpWork::CastBytes; with a pipeline, every stage's).
  double CastBytes = 0;
  /// The statement whose collectives take the most time in a step, their
  /// time per step, and whether they are a gradient sync (asynchronous) or
  /// on the compute stream's critical path.
  std::optional<unsigned> CostliestComms;
  double CostliestCommsTime = 0;
  /// With a pipelined `repeat ... over` (COST-MODEL.md §6.3); otherwise
  /// Stages is 1 and the rest is empty.
  struct PipelineInfo {
    AxisId Axis = 0;
    PipelineSchedule Schedule = PipelineSchedule::OneFOneB;
    int64_t Chunks = 1;
    /// Per stage, one microbatch's forward and backward (sends included,
    /// over all its chunks).
    std::vector<double> StageFwd, StageBwd;
    double SendFwd = 0, SendBwd = 0; ///< one boundary's send, each way
    /// Σ comm_sm_share x time of each way's send (and its gathers): what a
    /// send beside the next slice adds to it under `p2p_overlap`.
    double SendFwdContention = 0, SendBwdContention = 0;
    /// `scatter_gather`: the axes the sends are split over and gathered
    /// back over (empty: whole sends).
    AxisSet SendGatherAxes;
    double Bubble = 0; ///< 1 - the slowest stage's busy time / T_pipe
    unsigned SlowestStage = 0;
    /// The slices' times the schedule was simulated on: the trace simulates
    /// it again (simulatePipeline) rather than every compile keeping its
    /// slices.
    PipelineTimes Times;
  };
  int64_t Stages = 1;
  std::optional<PipelineInfo> Pipeline;
};

/// check-memory: bytes per chip (COST-MODEL.md §7).
enum class MemoryTerm : uint8_t {
  Weights,
  Gradients,
  Optimizer,
  Activations,
  Transient
};
constexpr unsigned NumMemoryTerms = 5;
llvm::StringRef memoryTermName(MemoryTerm T);
struct MemorySummary {
  double Bytes[NumMemoryTerms] = {};
  double Total = 0;
  double Capacity = 0; ///< the chip's hbm
  /// The statement whose gathered bytes make the transient term.
  std::optional<unsigned> TransientStmt;
  /// The part of the transient term that is the statement's workspace
  /// (Costed::workspaceBytes), not gathered operands.
  double TransientWorkspace = 0;
  /// Microbatches whose activations are held (interleaving makes it
  /// fractional: COST-MODEL.md §7).
  double InFlight = 1;
  /// The stage these bytes are of, of how many: with a pipeline, the
  /// heavier of the first and the last.
  int64_t Stage = 0, Stages = 1;
  /// With a pipeline, the other end's total.
  double OtherEndTotal = 0;
};

/// A forward value one microbatch keeps for its backward (derive-backward).
struct SavedValue {
  const Value *V = nullptr;
  /// The versions kept: one per iteration of each repeat around both its
  /// definition and the backward that reads it (a value a repeat computes
  /// and only the code after it reads is kept once, not once per
  /// iteration).
  int64_t Copies = 1;
  /// The innermost block around both its definition and its readers: where
  /// it is held (for the pipeline stage that holds it).
  const Block *HeldIn = nullptr;
};

/// Every table one mesh's compile fills.
/// estimate-costs, `tp_overlap` (docs/cost-model.md §6.6): the collectives
/// of one statement that run under other statements' GEMMs (or its own).
struct OverlapCost {
  double TComms = 0;     ///< the overlapped collectives' time
  double Contention = 0; ///< Σ comm_sm_share x time over them
  /// The compute they run under (in the first microbatch beside: a wgrad
  /// reads no gradient buffer yet).
  double Under = 0, UnderFirst = 0;
  /// What they add to the critical path: max(TComms − Under, Contention).
  double Charge = 0, ChargeFirst = 0;
  /// The statements whose GEMMs hide them.
  llvm::SmallVector<unsigned, 3> Partners;
};

/// `fuse = elementwise` (docs/cost-model.md §1, "Fusion"): elementwise
/// statements that run as one kernel. Each intermediate has one use, in
/// the kernel, so the members form a tree whose root (the last in program
/// order) writes the only result that leaves it.
struct FusedKernel {
  /// The members in program order; the root last.
  llvm::SmallVector<unsigned, 4> Stmts;
  unsigned root() const { return Stmts.back(); }
  /// Bytes per chip the kernel moves: each input from outside read once,
  /// the root's result (and what a member keeps for its backward, a
  /// dropout mask) written once; and what the members moved run apart.
  double Bytes = 0, UnfusedBytes = 0;
};
struct FusionTable {
  std::vector<FusedKernel> Kernels;
  /// By statement: its kernel's index in Kernels, or -1.
  std::vector<int> KernelOf;
  const FusedKernel *kernelOf(unsigned Stmt) const {
    return Stmt < KernelOf.size() && KernelOf[Stmt] >= 0
               ? &Kernels[size_t(KernelOf[Stmt])]
               : nullptr;
  }
};

struct Analyses {
  /// derive-backward: the params of a training step, in program order, and
  /// the forward values it saves for the backward (the activations).
  std::vector<ParamInfo> Params;
  std::vector<SavedValue> Saved;
  /// derive-backward: the forward ops whose backward reads what they kept
  /// beyond their result (Differentiable::keptBytes), with the copies one
  /// microbatch keeps.
  std::vector<std::pair<const Op *, int64_t>> Kept;
  /// insert-collectives: by statement, for contractions and converting
  /// reshards (null for the other statements: a choice is 720 bytes).
  std::vector<std::unique_ptr<PlanChoice>> Choices;
  /// place-collectives: by lowered op id, for collectives (null for the
  /// other ops).
  std::vector<std::unique_ptr<CollectiveCost>> Collectives;
  /// estimate-costs: by lowered op id (local ops and collectives), by
  /// statement, and the totals.
  std::vector<std::optional<OpCost>> OpCosts;
  std::vector<std::optional<OpCost>> StatementCosts;
  std::optional<ProgramCost> Totals;
  /// estimate-costs, with `fuse = elementwise`: the fused kernels (their
  /// members' op costs are the kernel's, on the root's op, and zero).
  std::optional<FusionTable> Fusion;
  /// By statement: its collectives that `tp_overlap` runs under a GEMM.
  std::vector<std::optional<OverlapCost>> Overlaps;
  /// schedule-step and check-memory: a training step only. The stage
  /// partition is schedule-step's first result; check-memory and the
  /// timeline read it too.
  std::optional<StagePartition> Partition;
  std::optional<StepSummary> Step;
  std::optional<MemorySummary> Memory;

  /// The time and MFU a report heads with (a search row, a summary line):
  /// a training step's, or a forward program's totals'; 0 before costing.
  double headlineTime() const {
    return Step ? Step->TStep : Totals ? Totals->Time : 0;
  }
  double headlineMfu() const {
    return Step ? Step->Mfu : Totals ? Totals->Mfu : 0;
  }
};

} // namespace shardc

#endif // SHARDC_PASSES_ANALYSES_H
