//===- GemmFit.h - The GEMM tile/wave model fitted to a sweep ---*- C++ -*-===//
//
// scripts/fit_gemm.py's search, ported: the tile classes, their
// efficiencies and the wave overhead of docs/cost-model.md §1's GEMM model
// that minimise the mean |relative time error| over a sweep of unbatched
// GEMMs, under a given ceiling. Deterministic, step by step as the script:
//  1. greedy forward selection of up to 4 classes from the candidates
//     (256x128 ... 64x64, 1 and 2 CTAs per SM), each class's 1/efficiency
//     by an exact line search (the error is piecewise linear in it), then
//     two rounds of coordinate descent over every constant (the wave
//     overhead by a log grid refined by golden section);
//  2. a restart of the efficiencies from each of 8 wave overheads;
//  3. ten rounds of coordinate descent, a Nelder-Mead polish of all the
//     constants at once (kept if better), and dropping the classes the fit
//     does as well without.
// The model's time itself is passes/GemmModel's: the prediction of a
// fitted chip is gemmTime's.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_CALIBRATE_GEMMFIT_H
#define SHARDC_CALIBRATE_GEMMFIT_H

#include "ir/Hardware.h"
#include "llvm/ADT/ArrayRef.h"
#include <cstdint>
#include <vector>

namespace shardc::calibrate {

/// One measured GEMM: Batch x M x N x K in Seconds.
struct GemmPoint {
  double M = 0, N = 0, K = 0, Batch = 1;
  double Seconds = 0;
};

/// What the fit holds fixed: the chip's SMs, its peak for the sweep's
/// dtype, and the ceiling (the best share of the peak a GEMM reaches).
struct GemmChip {
  int64_t Sms = 0;
  double Peak = 0;
  double Ceiling = 1;
};

struct GemmFitResult {
  std::vector<TileClass> Tiles; ///< sorted by (m, n, ctas)
  double WaveOverhead = 0;      ///< seconds
};

GemmFitResult fitGemm(llvm::ArrayRef<GemmPoint> Points, const GemmChip &C);

/// \p Base with \p F's tiles and wave overhead and \p C's ceiling: the chip
/// whose gemmTime is the fit's prediction.
ChipSpec fittedChip(const ChipSpec &Base, const GemmFitResult &F,
                    const GemmChip &C, DType T);

} // namespace shardc::calibrate

#endif // SHARDC_CALIBRATE_GEMMFIT_H
