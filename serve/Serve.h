//===- Serve.h - A serving program's instances and numbers ------*- C++ -*-===//
//
// docs/inference.md: a program with a `serve { }` block is compiled once
// per instance — prefill (new = context = the prompt) and decode (one new
// token over the mean context) — by the one compile(checked, Layout), the
// layout binding the phase dims. From the instances' statement costs the
// engine derives TTFT, TPOT, throughput, memory per chip, the largest
// batch that fits, the batch–latency curve and the constants (B_crit per
// dtype pair, B_lat, KV bytes). Plain results; report/ prints them.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_SERVE_SERVE_H
#define SHARDC_SERVE_SERVE_H

#include "ir/Serve.h"
#include "passes/Pipeline.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace shardc {
class DiagnosticEngine;

/// What bounds an op, or an instance (the class of the largest summed op
/// time): a comms-bound op whose collectives spend longer in latency than
/// in bandwidth is `latency`.
enum class ServeBound : uint8_t { Compute, Memory, Comms, Latency };
constexpr unsigned NumServeBounds = 4;
llvm::StringRef serveBoundName(ServeBound B);

/// One statement of an instance: its costs for one execution, and how
/// many times the instance runs it.
struct ServeRow {
  unsigned Stmt = 0;
  int64_t Repeat = 1;
  OpCost Cost;
  /// Its collectives' summed latency and bandwidth (largest level) terms.
  double Latency = 0, Bandwidth = 0;
  ServeBound Bound = ServeBound::Compute;
  /// Costed with new = 1 (the head, in prefill).
  bool Head = false;
  /// Its non-resident bytes (operands and result, gathered values
  /// included), and the part of its T_hbm that reads weights.
  double Workspace = 0, WeightHbm = 0;
};

/// One instance: the program at one set of phase sizes.
struct ServeInstance {
  std::string Phase; ///< "prefill" or "decode"
  int64_t Batch = 1, New = 1;
  double Context = 0;
  std::vector<ServeRow> Rows;
  double Time = 0, TMath = 0, THbm = 0, TComms = 0;
  double ClassTime[NumServeBounds] = {};
  ServeBound Bound = ServeBound::Compute;
  /// Summed over its collectives (repeats applied).
  double Latency = 0, Bandwidth = 0;
  /// The largest statement's non-resident bytes (operands and result,
  /// gathered values included).
  double Workspace = 0;
  /// `context = exact`: the two compiles the steps' mean is read from, at
  /// contexts EndCtx (the mixed step of continuous batching averages its
  /// own from them the same way), and the steps' first and last context.
  std::vector<ServeInstance> Ends;
  double EndCtx[2] = {0, 0};
  int64_t FirstCtx = 0, LastCtx = 0;
};

/// Bytes per chip (docs/inference.md, "Memory per chip").
struct ServeMemory {
  double Weights = 0, Kv = 0, Workspace = 0, Total = 0, Usable = 0;
  bool fits() const { return Total <= Usable; }
};

/// B_crit of one (weight dtype, compute dtype) pair of the contractions.
struct BatchCrit {
  DType Weights = DType::bf16, Compute = DType::bf16;
  double Batch = 0;       ///< tokens per replica per step
  double WeightBytes = 0; ///< the pair's weight bytes per chip
};

struct CurveRow {
  int64_t Batch = 0;
  double Tpot = 0, TokensPerChip = 0;
  ServeBound Bound = ServeBound::Compute;
  ServeMemory Memory;
  /// Continuous batching: its prefill tokens per step are over `chunk`.
  bool OverChunk = false;
  bool MarkCrit = false, MarkMax = false, MarkLat = false;
};

struct ServeResult {
  ServeSpec Spec;
  /// The serving batch: the largest named batch that fits.
  int64_t Batch = 0;
  ServeInstance Prefill, Decode;
  /// Continuous batching's mixed step at the serving batch.
  std::optional<ServeInstance> Step;
  /// Speculating: the verify instance (new = g + 1), τ and a pass's time.
  std::optional<ServeInstance> Verify;
  double Tau = 1, PassTime = 0;
  /// Disaggregated: T_kv and the prefill pools per decode pool.
  std::optional<double> KvTransfer;
  double PoolRatio = 0;
  double Ttft = 0, Tpot = 0, E2e = 0;
  double RequestsPerSecond = 0; ///< per replica
  double TokensSystem = 0, TokensReplica = 0, TokensChip = 0;
  std::optional<double> CostPerMtok;
  ServeMemory Memory; ///< at the serving batch
  int64_t MaxBatch = 0;
  std::string MaxBatchBound; ///< "memory", "chunk" or "max_batch"
  std::string LargestTerm;   ///< of memory at B_mem: weights, KV, workspace
  std::vector<CurveRow> Curve;
  std::vector<BatchCrit> Crit; ///< the pair with the most weight bytes first
  std::optional<int64_t> BLat; ///< none: no decode collective
  double KvPerToken = 0, KvPerTokenChip = 0;
  double KvPerSequence = 0, KvPerSequenceChip = 0; ///< at the capacity
  int64_t Chips = 1;
  /// The compiles the instances were read from (decode at the serving
  /// batch, prefill), for a report's names and the JSON.
  std::unique_ptr<MeshCompile> DecodeCompile, PrefillCompile;
};

/// Runs \p Spec's instances of \p Checked on \p Mesh. Problems of the
/// program at a phase's sizes (a batch the mesh does not divide, a batch
/// that does not fit) are reported to \p Diags: the result is then none.
/// An llvm::Error when a layout is unusable (compile()'s).
llvm::Expected<std::optional<ServeResult>> runServe(const Module &Checked,
                                                    const ServeSpec &Spec,
                                                    const MeshSpec &Mesh,
                                                    DiagnosticEngine &Diags);

} // namespace shardc

#endif // SHARDC_SERVE_SERVE_H
