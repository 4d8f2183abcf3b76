//===- CostModel.h - COST-MODEL.md §1, §3 and §4 as functions ---*- C++ -*-===//
//
// How an op's work becomes time on a chip, how a collective is priced on the
// hierarchy, and how the terms of one op combine. Shared by
// insert-collectives (to choose between plans) and estimate-costs (to
// report), so the choice and the report can never disagree. The results are
// the side-table entries the report reads.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_COSTMODEL_H
#define SHARDC_PASSES_COSTMODEL_H

#include "ir/OpInterfaces.h"
#include "passes/Placement.h"

namespace shardc {

/// The per-chip time of a local op's work (§1).
struct ComputeTime {
  double TMath = 0, THbm = 0;
  double TSerial = 0; ///< the part of THbm that runs after the math
  double time() const { return std::max(TMath, THbm - TSerial) + TSerial; }
};
/// T_math at the op's peak (matmul or vector, x matmul_efficiency for
/// matmuls) and T_hbm at hbm_bw x hbm_efficiency.
ComputeTime computeTime(const OpWork &W, const ChipSpec &C);

/// One level's share of a collective (§3).
struct LevelCost {
  unsigned Level = 0;
  int64_t FanIn = 1;
  double Bytes = 0; ///< through one child's uplink
  double Time = 0;
};

/// A collective's cost on the hierarchy: max over levels + latency (§3).
struct CollectiveCost {
  double GroupBytes = 0; ///< V_g
  double Time = 0;
  double LatencyTime = 0;
  /// The innermost level attaining the bandwidth time, when any level
  /// carries traffic: the one the report names first.
  std::optional<unsigned> BoundLevel;
  llvm::SmallVector<LevelCost, 4> Levels;
  /// With a level of two protocols: whether the small-message one is the
  /// faster (CollectivePlacement::SmallProtocol).
  std::optional<bool> SmallProtocol;
};
CollectiveCost collectiveCost(PlacementCache &Cache, CollectiveKind K,
                              AxisSet Axes, double V);

enum class Bound : uint8_t { Compute, Memory, Comms };
llvm::StringRef boundName(Bound B);

/// The costs of one op or statement, per chip, for one execution (repeat
/// counts apply in the totals).
struct OpCost {
  double Flops = 0;
  double UsefulFlops = 0; ///< matmul FLOPs, whole program
  double AtPeak = 0;      ///< UsefulFlops / the chip's peak for them
  /// The full count that published MFUs use (Korthikanti et al.'s eq. 7,
  /// PaLM): UsefulFlops plus what a causal mask skips, and that over the
  /// peak. The headline MFU counts UsefulFlops (docs/training.md).
  double FullCausalFlops = 0, FullCausalAtPeak = 0;
  /// Matmul FLOPs per chip as executed (replication and recompute counted)
  /// over the chip's peak for them: HFU's numerator.
  double HwAtPeak = 0;
  double HbmBytes = 0;
  double TMath = 0, THbm = 0, TComms = 0, Time = 0;
  /// The part of THbm moved by kernels that run after the math
  /// (OpWork::SerialBytes): the compute time is max(TMath, THbm - TSerial)
  /// + TSerial.
  double TSerial = 0;
  /// The part of HbmBytes moved by an fp8 GEMM's casts (OpWork::CastBytes).
  double CastBytes = 0;
  Bound Bounded = Bound::Compute;
  /// Bit T set: vector work in dtype T ran at the matmul peak because the
  /// chip gives no vector_flops for T (COST-MODEL §1's fallback).
  uint8_t VectorFallback = 0;
  /// In a training step's first microbatch, a weight-gradient contraction
  /// does not read its gradient buffer yet: its T_hbm and time then.
  double FirstTHbm = 0, FirstTime = 0;
  /// Σ comm_sm_share x time over its collectives (docs/cost-model.md §6.6):
  /// what they slow the compute they overlap by.
  double Contention = 0;
  /// A contraction's GEMM (a statement's: its largest contraction's), its
  /// dtype, the share of the peak the chip's GEMM model gives it and the
  /// chip's ceiling for the dtype (equal without tiles).
  GemmShape Gemm;
  DType GemmElt = DType::bf16;
  double GemmEfficiency = 0, GemmCeiling = 0;
};
static_assert(NumDTypes <= 8, "VectorFallback is a bit per dtype");
/// The fallback bit of \p W's dtype on \p C, or 0.
uint8_t vectorFallback(const OpWork &W, const ChipSpec &C);

/// §4: with overlap the larger of compute and comms, else their sum.
double combineTime(double TCompute, double TComms, bool Overlap);
/// §4: the largest of the three terms (ties: compute, then memory).
Bound boundOf(double TMath, double THbm, double TComms);
/// §1: \p C's compute time, max(T_math, T_hbm − T_serial) + T_serial (with
/// \p First, the first microbatch's T_hbm).
double computeOf(const OpCost &C, bool First);
/// Fills \p C's Time and Bounded from its three terms.
/// (FirstTime too.)
void finishCost(OpCost &C, bool Overlap);

} // namespace shardc

#endif // SHARDC_PASSES_COSTMODEL_H
