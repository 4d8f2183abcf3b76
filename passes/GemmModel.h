//===- GemmModel.h - A GEMM's time by its shape -----------------*- C++ -*-===//
//
// The tile/wave model of docs/cost-model.md §1: how long one GEMM of shape
// Batch x M x N x K takes on a chip that carries tile classes, and the
// share of the matmul peak that is. A chip without tiles runs every GEMM at
// its ceiling (matmul_efficiency, or matmul_efficiency.<dtype>), as before
// the model existed; a chip with tiles never runs one above it.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_GEMMMODEL_H
#define SHARDC_PASSES_GEMMMODEL_H

#include "ir/Hardware.h"
#include "ir/OpInterfaces.h"

namespace shardc {

/// One GEMM priced on one chip.
struct GemmTime {
  double Time = 0;       ///< seconds, the epilogue included
  double Efficiency = 0; ///< FLOPs / (peak x Time)
  double Ceiling = 0;    ///< the chip's ceiling for the dtype
  /// The fastest tile class; null without tiles or where the ceiling binds.
  const TileClass *Tile = nullptr;
  double Tiles = 0, Waves = 0; ///< of Tile
  double EpilogueTime = 0;     ///< the batched-GEMM epilogue term, seconds
};

/// Whether \p S pays the epilogue term: a batched GEMM (Batch > 1), which
/// is how attention's two GEMMs look (K or N a head dimension, one GEMM per
/// head and sequence).
inline bool gemmHasEpilogue(const GemmShape &S) { return S.Batch > 1; }

/// \p S in dtype \p T on \p C:
///  1. without tiles: FLOPs / (peak x ceiling);
///  2. per tile class that prices \p T (its own dtype's classes, else those
///     without a dtype): tiles = ceil(M/Tm) ceil(N/Tn) Batch, waves =
///     ceil(tiles / (sms x ctas)), t = waves x (2 Tm Tn K / (peak / sms x
///     ctas x efficiency) + wave_overhead); the fastest class wins;
///  3. never faster than the ceiling: max(t, FLOPs / (peak x ceiling));
///  4. with epilogue_efficiency, a batched GEMM adds its output bytes /
///     (hbm_bw x epilogue_efficiency).
GemmTime gemmTime(const GemmShape &S, DType T, const ChipSpec &C);

} // namespace shardc

#endif // SHARDC_PASSES_GEMMMODEL_H
