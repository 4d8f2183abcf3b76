//===- Placement.h - A mesh's collectives, priced and cached ----*- C++ -*-===//
//
// Owns COST-MODEL.md §3's reuse: the coefficients of a (mesh, kind, axis
// set) are computed once by the mesh's Network (Network.h) and cached, so
// pricing another V is O(pieces). Kinds a network prices alike (the same
// trafficKey: ReduceScatter and AllGather) share an entry.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_PLACEMENT_H
#define SHARDC_PASSES_PLACEMENT_H

#include "ir/Types.h"
#include "passes/Network.h"
#include "llvm/ADT/DenseMap.h"
#include <memory>
#include <utility>

namespace shardc {

/// Caches coefficients per (traffic, axis set) of one mesh, and each
/// axis's pipeline send. It holds its own copy of the mesh (the cluster is
/// shared and never changes), so compiles on the same mesh may share one: a
/// layout search's candidates of one layout do (Layout::Placements). The
/// coefficients are functions of the mesh alone, so a shared cache prices
/// as a fresh one.
class PlacementCache {
public:
  explicit PlacementCache(const MeshSpec &Mesh);
  PlacementCache(const PlacementCache &) = delete;
  PlacementCache &operator=(const PlacementCache &) = delete;

  const Network &network() const { return *Net; }
  /// Whether \p Other is this cache's mesh: the same cluster, and the same
  /// axes in the same order with the same sizes.
  bool isFor(const MeshSpec &Other) const;

  /// The placement of a pipeline send over \p Axis of \p Bytes.
  CollectivePlacement placeSend(unsigned Axis, double Bytes);

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
  MeshSpec Mesh; ///< the network's: declared before it
  std::unique_ptr<Network> Net;
  /// Keyed by (trafficKey, bit mask of the axis set).
  llvm::DenseMap<std::pair<unsigned, uint64_t>, PlacementCoefficients> Cache;
  llvm::DenseMap<unsigned, PlacementCoefficients> Sends; ///< by axis
};

/// Computes the placement of a collective over mesh axes \p Axes (indices into
/// Mesh.Axes) where each group works on \p GroupBytes (V_g) bytes.
CollectivePlacement placeCollective(const MeshSpec &Mesh, CollectiveKind Kind,
                                    llvm::ArrayRef<unsigned> Axes,
                                    double GroupBytes);

} // namespace shardc

#endif // SHARDC_PASSES_PLACEMENT_H
