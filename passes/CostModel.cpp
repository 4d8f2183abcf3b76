//===- CostModel.cpp - COST-MODEL.md §1 and §4 as functions ---------------===//
#include "passes/CostModel.h"
#include <cassert>

using namespace shardc;

/// The per-chip extent of a contraction dim: the local size in whichever
/// operand holds it (after insertion shared dims are sharded alike).
static double localExtent(const ContractionDim &D, const ShardType &L,
                          const ShardType &R, const MeshSpec &M) {
  if (auto I = L.dimIndex(D.Name))
    return double(L.localSize(*I, M));
  if (auto I = R.dimIndex(D.Name))
    return double(R.localSize(*I, M));
  return double(D.Size);
}

ComputeEstimate shardc::estimateContraction(const ShardType &L,
                                            const ShardType &R,
                                            const ShardType &Out,
                                            llvm::ArrayRef<ContractionDim> Dims,
                                            const MeshSpec &M) {
  // FLOPs = 2 x product of all distinct dims, divided by the axes that shard
  // them: computed from local extents so padding is counted, and axes that
  // shard nothing repeat the work.
  ComputeEstimate E;
  double Local = 2, Global = 2;
  for (const ContractionDim &D : Dims) {
    Local *= localExtent(D, L, R, M);
    Global *= double(D.Size);
  }
  const ChipSpec &C = M.Cluster->Chip;
  E.Flops = Local;
  E.UsefulFlops = Global;
  E.HbmBytes = L.localBytes(M) + R.localBytes(M) + Out.localBytes(M);
  E.TMath = Local / (C.matmulPeak(L.Elt) * C.MatmulEfficiency);
  E.THbm = E.HbmBytes / (C.HbmBw * C.HbmEfficiency);
  return E;
}

ComputeEstimate
shardc::estimateElementwise(ElementwiseFn Fn,
                            llvm::ArrayRef<const ShardType *> Ins,
                            const ShardType &Out, const MeshSpec &M) {
  ComputeEstimate E;
  const ChipSpec &C = M.Cluster->Chip;
  double Elements = Ins.front()->localElements(M);
  E.Flops = Elements * elementwiseFlops(Fn);
  for (const ShardType *T : Ins)
    E.HbmBytes += T->localBytes(M);
  E.HbmBytes += Out.localBytes(M);
  E.TMath = E.Flops / C.vectorPeak(Ins.front()->Elt);
  E.THbm = E.HbmBytes / (C.HbmBw * C.HbmEfficiency);
  return E;
}

ComputeEstimate shardc::estimateCompute(const Operation &Op,
                                        const MeshSpec &M) {
  if (Op.Kind == OpKind::Contraction)
    return estimateContraction(Op.Operands[0]->Type, Op.Operands[1]->Type,
                               Op.Result->Type, Op.ContractDims, M);
  if (Op.Kind == OpKind::Elementwise) {
    llvm::SmallVector<const ShardType *, 2> Ins;
    for (const Value *V : Op.Operands)
      Ins.push_back(&V->Type);
    return estimateElementwise(Op.Fn, Ins, Op.Result->Type, M);
  }
  return {};
}

double shardc::groupBytes(OpKind K, const ShardType &In, const ShardType &Out,
                          llvm::ArrayRef<unsigned> Axes, const MeshSpec &M) {
  switch (K) {
  case OpKind::AllGather:
    return Out.localBytes(M);
  case OpKind::ReduceScatter:
  case OpKind::AllReduce:
    return In.localBytes(M);
  case OpKind::AllToAll: {
    double N = 1;
    for (unsigned A : Axes)
      N *= double(M.Axes[A].Size);
    return In.localBytes(M) * N;
  }
  default:
    return 0;
  }
}

CollectiveCost shardc::collectiveCost(PlacementCache &Cache, OpKind K,
                                      llvm::ArrayRef<unsigned> Axes, double V) {
  assert(isCollective(K) && "only collectives move data");
  CollectivePlacement P = Cache.place(collectiveKindOf(K), Axes, V);
  CollectiveCost C;
  C.GroupBytes = V;
  C.Time = P.Time;
  C.LatencyTime = P.LatencyTime;
  for (const LevelTraffic &L : P.Levels)
    C.Levels.push_back({L.Level, L.FanIn, L.Bytes, L.Time});
  return C;
}

double shardc::combineTime(double TCompute, double TComms, bool Overlap) {
  return Overlap ? std::max(TCompute, TComms) : TCompute + TComms;
}

Bound shardc::boundOf(double TMath, double THbm, double TComms) {
  if (TComms > TMath && TComms > THbm)
    return Bound::Comms;
  return THbm > TMath ? Bound::Memory : Bound::Compute;
}
