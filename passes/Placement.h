//===- Placement.h - A collective's cost on the hierarchy -------*- C++ -*-===//
//
// Owns COST-MODEL.md §3: where the groups of one collective sit on the
// cluster's levels, how many bytes each level's busiest uplink carries, and the
// resulting bandwidth and latency time. Bytes are linear in the group volume
// V, so the placement of a (mesh, kind, axis set) is reduced once to per-level
// coefficients and cached; pricing a V is then O(levels).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_PLACEMENT_H
#define SHARDC_PASSES_PLACEMENT_H

#include "ir/Hardware.h"
#include "ir/Types.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include <cstdint>
#include <utility>

namespace shardc {

/// The traffic of one collective at one level of the hierarchy.
struct LevelTraffic {
  unsigned Level = 0; ///< index into ClusterSpec::Levels (0 = node)
  /// max d over groups and units: the most children of one unit holding
  /// members of one group (the latency fan-in). Above the node it may be 1
  /// at a level that still carries bytes: a group whose children sit one per
  /// unit of this level reaches its other members through their uplinks.
  int64_t FanIn = 1;
  double Bytes = 0;       ///< max bytes through one child's uplink
  double Time = 0;        ///< T_l = Bytes / W_l, seconds
  double LatencyTime = 0; ///< Latency_l x hops at this level, seconds
};

/// The cost of one collective: T = max_l T_l + latency (COST-MODEL §3).
struct CollectivePlacement {
  /// Only the levels whose uplinks carry bytes (some group spans more than
  /// one child of the level), innermost first.
  llvm::SmallVector<LevelTraffic, 4> Levels;
  double BandwidthTime = 0; ///< max_l T_l
  double LatencyTime = 0;   ///< sum of the levels' latency
  double Time = 0;          ///< BandwidthTime + LatencyTime
  /// The innermost level attaining BandwidthTime (meaningful when Time > 0).
  unsigned BoundLevel = 0;
  /// Where a level it crosses has two protocols, the one chosen (the
  /// faster): the small-message one or the bandwidth one.
  std::optional<bool> SmallProtocol;
};

/// What a placement costs per byte of V, independent of V.
struct LevelCoefficient {
  unsigned Level = 0;
  int64_t FanIn = 1;
  double BytesPerV = 0; ///< max over children of bytes / V
  double Hops = 0;      ///< latency hops at this level
  /// An AllReduce this level reduces in its switches: priced at the
  /// level's reduction_efficiency.
  bool InNetwork = false;
};
using PlacementCoefficients = llvm::SmallVector<LevelCoefficient, 4>;

/// Computes the per-level coefficients of a collective of kind \p Kind over
/// the mesh axes \p Axes (a set of indices into Mesh.Axes; order and repeats
/// do not matter). O(P x levels) time, O(P) memory.
PlacementCoefficients
computePlacementCoefficients(const MeshSpec &Mesh, CollectiveKind Kind,
                             llvm::ArrayRef<unsigned> Axes);

/// COST-MODEL.md §6.3: a pipeline's point-to-point sends along mesh axis
/// \p Axis, every chip of a stage sending its V local bytes to the chip
/// with the same coordinates in the next stage, all boundaries at once. At
/// the node, a chip's link carries its bytes when the partner is in its
/// node; above it, a child's uplink carries the bytes of each of its chips
/// whose partner lies outside it. One hop per level crossed.
PlacementCoefficients computeSendCoefficients(const MeshSpec &Mesh,
                                              unsigned Axis);

/// Prices coefficients for a group volume of \p GroupBytes bytes.
CollectivePlacement priceCoefficients(const ClusterSpec &Cluster,
                                      const PlacementCoefficients &Coeffs,
                                      double GroupBytes);

/// Caches coefficients per (kind, axis set) of one mesh. The mesh and its
/// cluster must outlive the cache and stay unchanged.
class PlacementCache {
public:
  explicit PlacementCache(const MeshSpec &Mesh) : Mesh(Mesh) {}

  /// The placement of a collective over \p Axes on \p GroupBytes per group.
  CollectivePlacement place(CollectiveKind Kind, llvm::ArrayRef<unsigned> Axes,
                            double GroupBytes);
  /// The same for an axis set.
  CollectivePlacement place(CollectiveKind Kind, AxisSet Axes,
                            double GroupBytes);

  /// The coefficients of a collective over \p Axes, computed on first use.
  /// Returned by value: a later insertion may move the cached entries.
  PlacementCoefficients coefficients(CollectiveKind Kind,
                                     llvm::ArrayRef<unsigned> Axes);

private:
  const MeshSpec &Mesh;
  /// Keyed by (kind, bit mask of the axis set).
  llvm::DenseMap<std::pair<unsigned, uint64_t>, PlacementCoefficients> Cache;
};

/// Computes the placement of a collective over mesh axes \p Axes (indices into
/// Mesh.Axes) where each group works on \p GroupBytes (V_g) bytes.
CollectivePlacement placeCollective(const MeshSpec &Mesh, CollectiveKind Kind,
                                    llvm::ArrayRef<unsigned> Axes,
                                    double GroupBytes);

} // namespace shardc

#endif // SHARDC_PASSES_PLACEMENT_H
