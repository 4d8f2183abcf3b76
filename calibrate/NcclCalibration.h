//===- NcclCalibration.h - A level from nccl-tests --------------*- C++ -*-===//
//
// Turns nccl-tests runs inside one node into the node level's constants
// (docs/cost-model.md §3), each with its source and its 5-fold
// cross-validated error:
//  1. every run is reduced to points (bytes through one GPU's link, hops):
//     AllReduce 2(n-1)/n x size over 2(n-1) hops, AllGather and
//     ReduceScatter (n-1)/n x size over n-1, AllToAll (n-1)/n x size over 1;
//     an AllReduce on a level that reduces in its switches moves the size
//     itself, over 2(n-1) hops;
//  2. latency: the smallest size's time over its hops, in the run with the
//     most hops (a measurement, not a fit);
//  3. the ring collectives together: small_efficiency, bulk_latency and
//     efficiency, the two-protocol grid fit;
//  4. an in-switch AllReduce: reduction_efficiency (and latency, when no ring
//     run gives it) on one line; on a base level with two protocols, the
//     switches' line instead: bulk_latency and reduction_efficiency fitted
//     to the sizes of 4 MiB and more (below, NCCL runs its LL ring, whose
//     line the base keeps), as scripts/fit_protocols.py --in-network does.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_CALIBRATE_NCCLCALIBRATION_H
#define SHARDC_CALIBRATE_NCCLCALIBRATION_H

#include "calibrate/NcclTests.h"
#include "calibrate/Preset.h"
#include "llvm/ADT/ArrayRef.h"
#include <cstdint>
#include <optional>
#include <string>

namespace shardc {
class DiagnosticEngine;
} // namespace shardc

namespace shardc::calibrate {

/// The folds of every cross-validation.
constexpr unsigned Folds = 5;

/// The fewest points a k-fold fit of \p Constants constants takes: each
/// training set keeps more points than constants.
constexpr unsigned minPoints(unsigned Constants) { return Folds + Constants; }

/// The level the runs calibrate, from the base cluster.
struct LevelTarget {
  std::string Cluster; ///< the base cluster's name
  std::string Level;   ///< "node"
  int64_t Size = 0;    ///< GPUs in one unit of the level
  double LinkBw = 0;   ///< one GPU's link into it, bytes/s
  bool InNetworkReduction = false;
  /// The base level has small_efficiency and bulk_latency: an in-switch
  /// AllReduce's bandwidth line is then bulk_latency's (docs/cost-model.md
  /// §3), the small-message one the base's LL ring.
  bool TwoProtocols = false;
};

/// The level's constants (with comments) and the lines to print above the
/// preset (per run: what it is and its held-out error). Nothing after
/// reporting errors.
std::optional<PresetBlock> calibrateLevel(llvm::ArrayRef<NcclRun> Runs,
                                          const LevelTarget &T,
                                          DiagnosticEngine &Diags);

} // namespace shardc::calibrate

#endif // SHARDC_CALIBRATE_NCCLCALIBRATION_H
