//===- CostModel.h - COST-MODEL.md §1 and §4 as functions -------*- C++ -*-===//
//
// The per-chip compute and memory cost of one local op, the group volume V of
// a collective, and how an op's terms combine into its time. Shared by
// insert-collectives (to choose between plans) and estimate-costs (to report),
// so the choice and the report can never disagree.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_COSTMODEL_H
#define SHARDC_PASSES_COSTMODEL_H

#include "ir/IR.h"
#include "passes/Placement.h"

namespace shardc {

struct ComputeEstimate {
  double Flops = 0;       ///< per chip
  double UsefulFlops = 0; ///< whole program, replication not counted
  double HbmBytes = 0;    ///< per chip
  double TMath = 0, THbm = 0;
  double time() const { return std::max(TMath, THbm); }
};

/// A local contraction of \p L and \p R into \p Out (§1).
ComputeEstimate estimateContraction(const ShardType &L, const ShardType &R,
                                    const ShardType &Out,
                                    llvm::ArrayRef<ContractionDim> Dims,
                                    const MeshSpec &M);
/// A local elementwise op (§1).
ComputeEstimate estimateElementwise(ElementwiseFn Fn,
                                    llvm::ArrayRef<const ShardType *> Ins,
                                    const ShardType &Out, const MeshSpec &M);
/// The compute cost of \p Op, a local contraction or elementwise op.
ComputeEstimate estimateCompute(const Operation &Op, const MeshSpec &M);

/// V of a collective turning \p In into \p Out over \p Axes (§2 notation):
/// the gathered result for AllGather, the unreduced array for ReduceScatter
/// and AllReduce, the group's total for AllToAll.
double groupBytes(OpKind K, const ShardType &In, const ShardType &Out,
                  llvm::ArrayRef<unsigned> Axes, const MeshSpec &M);

/// The cost of a collective on the hierarchy (§3).
CollectiveCost collectiveCost(PlacementCache &Cache, OpKind K,
                              llvm::ArrayRef<unsigned> Axes, double V);

/// §4: with overlap the larger of compute and comms, else their sum.
double combineTime(double TCompute, double TComms, bool Overlap);
/// §4: the largest of the three terms (ties: compute, then memory).
Bound boundOf(double TMath, double THbm, double TComms);

} // namespace shardc

#endif
