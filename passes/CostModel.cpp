//===- CostModel.cpp - COST-MODEL.md §1, §3 and §4 as functions -----------===//
#include "passes/CostModel.h"
#include "passes/GemmModel.h"
#include <cassert>

using namespace shardc;

/// The share of the matmul peak \p W's matmuls reach: fused attention's
/// own measured rate, else the chip's GEMM efficiency.
static double matmulEfficiency(const OpWork &W, const ChipSpec &C) {
  switch (W.Class) {
  case OpWork::Kernel::FusedAttention:
    return C.attentionEfficiency(/*Backward=*/false);
  case OpWork::Kernel::FusedAttentionGrad:
    return C.attentionEfficiency(/*Backward=*/true);
  case OpWork::Kernel::General:
    break;
  }
  return C.matmulCeiling(W.Elt);
}

ComputeTime shardc::computeTime(const OpWork &W, const ChipSpec &C) {
  ComputeTime T;
  // A contraction on a chip with tiles is priced by its shape; any other
  // matmul work at its efficiency, FLOPs / (peak x efficiency).
  if (W.Matmul && W.Gemm.valid() && !C.Tiles.empty())
    T.TMath = gemmTime(W.Gemm, W.Elt, C).Time;
  else
    T.TMath = W.Matmul
                  ? W.Flops / (C.matmulPeak(W.Elt) * matmulEfficiency(W, C))
                  : W.Flops / C.vectorPeak(W.Elt);
  // A matmul's operands stream at the rate measured for GEMMs that stream
  // a weight (matmul_hbm_efficiency, else a read kernel's); a memory-bound
  // kernel's bytes, and the softmax and dropout between unfused attention's
  // matmuls, at the rate measured for such kernels. A kernel that runs at
  // all adds its fixed time: small kernels run on a line, not at a rate.
  double Elementwise = C.HbmBw * C.elementwiseEfficiency();
  double Streaming = C.HbmBw * C.matmulHbmEfficiency();
  T.THbm = W.Matmul ? W.HbmBytes / Streaming : W.HbmBytes / Elementwise;
  if (W.Flops > 0 || W.HbmBytes > 0)
    T.THbm += W.Matmul ? C.matmulLatency() : C.KernelLatency;
  T.TSerial = W.SerialBytes / Elementwise;
  if (W.Matmul && W.SerialBytes > 0)
    T.THbm += T.TSerial - W.SerialBytes / Streaming;
  return T;
}

uint8_t shardc::vectorFallback(const OpWork &W, const ChipSpec &C) {
  if (W.Matmul || W.Flops == 0 || C.hasVectorPeak(W.Elt))
    return 0;
  return uint8_t(1u << unsigned(W.Elt));
}

CollectiveCost shardc::collectiveCost(PlacementCache &Cache, CollectiveKind K,
                                      AxisSet Axes, double V) {
  CollectivePlacement P = Cache.place(K, Axes, V);
  CollectiveCost C;
  C.GroupBytes = V;
  C.Time = P.Time;
  C.LatencyTime = P.LatencyTime;
  C.SmallProtocol = P.SmallProtocol;
  if (!P.Levels.empty())
    C.BoundLevel = P.BoundLevel;
  for (const LevelTraffic &L : P.Levels)
    C.Levels.push_back({L.Level, L.FanIn, L.Bytes, L.Time});
  return C;
}

llvm::StringRef shardc::boundName(Bound B) {
  switch (B) {
  case Bound::Compute:
    return "compute";
  case Bound::Memory:
    return "memory";
  case Bound::Comms:
    return "comms";
  }
  llvm_unreachable("every bound is handled");
}

double shardc::combineTime(double TCompute, double TComms, bool Overlap) {
  return Overlap ? std::max(TCompute, TComms) : TCompute + TComms;
}

Bound shardc::boundOf(double TMath, double THbm, double TComms) {
  if (TComms > TMath && TComms > THbm)
    return Bound::Comms;
  return THbm > TMath ? Bound::Memory : Bound::Compute;
}

double shardc::computeOf(const OpCost &C, bool First) {
  double THbm = First ? C.FirstTHbm : C.THbm;
  return std::max(C.TMath, THbm - C.TSerial) + C.TSerial;
}

void shardc::finishCost(OpCost &C, bool Overlap) {
  C.Time = combineTime(computeOf(C, false), C.TComms, Overlap);
  C.FirstTime = combineTime(computeOf(C, true), C.TComms, Overlap);
  C.Bounded = boundOf(C.TMath, C.THbm, C.TComms);
}
