//===- SwitchedNetwork.h - A hierarchy of switches --------------*- C++ -*-===//
//
// The Network of a cluster whose chips sit in nested switched levels
// (ClusterSpec::Levels: an NVLink node, an IB leaf, a spine), priced as
// COST-MODEL.md §3 says: per level, the bytes through the busiest child's
// uplink over the level's effective bandwidth, plus latency x hops; NCCL's
// two protocols where a level gives both.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_SWITCHEDNETWORK_H
#define SHARDC_PASSES_SWITCHEDNETWORK_H

#include "passes/Network.h"

namespace shardc {

/// W_l = min(uplink_bw, bw / size) x the level's calibrated efficiency
/// (COST-MODEL §3): with \p InNetwork, reduction_efficiency when given; with
/// \p Small, small_efficiency (a level with two protocols).
double effectiveUplink(const LevelSpec &Level, bool InNetwork = false,
                       bool Small = false);

class SwitchedNetwork final : public Network {
public:
  explicit SwitchedNetwork(const MeshSpec &Mesh);

  /// O(P x levels) time, O(P) memory.
  PlacementCoefficients
  collectiveCoefficients(CollectiveKind Kind,
                         llvm::ArrayRef<unsigned> Axes) const override;
  /// At the node, a chip's link carries its bytes when the partner is in
  /// its node; above it, a child's uplink carries the bytes of each of its
  /// chips whose partner lies outside it. One hop per level crossed.
  PlacementCoefficients sendCoefficients(unsigned Axis) const override;
  /// T = max_l T_l + latency under each protocol the crossed levels give;
  /// the faster (NCCL picks one protocol for the whole collective).
  CollectivePlacement price(const PlacementCoefficients &Coeffs,
                            double GroupBytes) const override;

private:
  const ClusterSpec &Cluster;
};

} // namespace shardc

#endif // SHARDC_PASSES_SWITCHEDNETWORK_H
