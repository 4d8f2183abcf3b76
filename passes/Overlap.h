//===- Overlap.h - Collectives overlapped with compute ----------*- C++ -*-===//
//
// docs/cost-model.md §6.6: the SM contention of a collective that runs
// under compute, and estimate-costs' placement of the tensor-parallel
// collectives a train block's `tp_overlap` overlaps (Overlap.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_OVERLAP_H
#define SHARDC_PASSES_OVERLAP_H

#include "passes/CostModel.h"

namespace shardc {

class MeshCompile;

/// The comm_sm_share of the outermost level whose links \p CC uses: the
/// share of the SMs its kernel occupies (0 for a collective with no
/// traffic).
double commShare(const MeshCompile &C, const CollectiveCost &CC);

/// What collectives of \p TComms seconds, with \p Contention = Σ s·t over
/// them, add to the critical path when they run under \p Under seconds of
/// compute: max(TComms − Under, Contention). For one collective, the pair
/// then takes max(t_c, Under + s·t_c): the compute runs at 1 − s while the
/// collective runs and at full rate after it.
double overlapCharge(double TComms, double Contention, double Under);

/// Fills C.Tables.Overlaps and retimes the statements that own overlapped
/// collectives (estimate-costs, before the totals).
void overlapTensorParallel(MeshCompile &C);

} // namespace shardc

#endif // SHARDC_PASSES_OVERLAP_H
