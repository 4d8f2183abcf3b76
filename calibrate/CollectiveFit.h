//===- CollectiveFit.h - A level's collective fits --------------*- C++ -*-===//
//
// The fits of docs/cost-model.md §3's collective time on one level. Each
// measured point is reduced to what the model sees: the bytes through one
// GPU's link and the latency hops. Two models are fitted:
//  - the two NCCL protocols, the faster of
//      small: hops x latency      + moved / (W x small_efficiency)
//      bulk:  hops x bulk_latency + moved / (W x efficiency),
//    with latency given (a small size's time over its hops), by the
//    deterministic grid search of scripts/fit_protocols.py: a log-spaced
//    grid of 40 points per constant, then three rounds of 21 points around
//    the best, minimising the sum of squared log errors;
//  - one line, hops x latency + moved / (W x efficiency), for an AllReduce
//    reduced in the switches (reduction_efficiency), the same way.
// Cross-validation is KFold.h's: point i in fold i mod k, each held-out
// point predicted by the fit of the other folds.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_CALIBRATE_COLLECTIVEFIT_H
#define SHARDC_CALIBRATE_COLLECTIVEFIT_H

#include "calibrate/KFold.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <optional>
#include <vector>

namespace shardc::calibrate {

/// One measured collective, as the level's model sees it.
struct CollectivePoint {
  double Moved = 0;   ///< bytes through one GPU's link into the level
  double Hops = 0;    ///< latency hops
  double Seconds = 0; ///< measured
};

struct TwoProtocols {
  double SmallEfficiency = 0, BulkLatency = 0, Efficiency = 0;
};

/// The faster protocol's time, and whether it is the small-message one.
double twoProtocolTime(const CollectivePoint &P, double LinkBw, double Latency,
                       const TwoProtocols &F, bool *Small = nullptr);

/// The least-squares log fit of small_efficiency, bulk_latency and
/// efficiency, with \p Latency fixed.
TwoProtocols fitTwoProtocols(llvm::ArrayRef<CollectivePoint> Points,
                             double LinkBw, double Latency);

struct OneLine {
  double Latency = 0, Efficiency = 0;
};

double oneLineTime(const CollectivePoint &P, double LinkBw, const OneLine &F);

/// The fit of latency and efficiency (of latency alone fixed to
/// \p FixedLatency when given).
OneLine fitOneLine(llvm::ArrayRef<CollectivePoint> Points, double LinkBw,
                   std::optional<double> FixedLatency);

/// Each point's held-out relative error (predicted / measured - 1) under
/// \p K-fold cross-validation: \p Predict fits on the points it is given and
/// returns a predictor for a point.
std::vector<double>
crossValidate(llvm::ArrayRef<CollectivePoint> Points, unsigned K,
              llvm::function_ref<std::function<double(const CollectivePoint &)>(
                  llvm::ArrayRef<CollectivePoint>)>
                  Fit);

} // namespace shardc::calibrate

#endif // SHARDC_CALIBRATE_COLLECTIVEFIT_H
