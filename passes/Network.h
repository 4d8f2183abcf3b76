//===- Network.h - Pricing collectives and sends on a cluster ---*- C++ -*-===//
//
// The one interface through which the passes price traffic on a cluster: a
// collective of some kind over a set of mesh axes, and a pipeline's
// point-to-point send along one axis. Today's switched hierarchy
// (SwitchedNetwork.h: NVLink node, IB leaf, spine) is one implementation; a
// torus (TPU pods) will be another. Nothing here assumes switch levels: a
// price is broken down into the network's pieces (a level of a switched
// hierarchy, a ring dimension of a torus), named by index.
//
// It lives in passes/, not ir/: pricing is the cost model's, and what the IR
// needs of a kind (its volume V, its traffic pattern) does not depend on the
// network and comes from ir/CollectiveKind.h.
//
// Every network shardc models moves bytes linearly in V (ring and exchange
// algorithms), so pricing is split in two: coefficients, which depend on
// where the groups sit (costly: O(chips)), and price, which applies them to
// a V (cheap: O(pieces)). PlacementCache (Placement.h) keeps the first per
// (traffic, axis set), which is what makes a re-cost fast.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_NETWORK_H
#define SHARDC_PASSES_NETWORK_H

#include "ir/Hardware.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include <cstdint>
#include <memory>
#include <optional>

namespace shardc {

/// The traffic of one collective on one piece of the network.
struct LevelTraffic {
  /// The piece: on a switched network an index into ClusterSpec::Levels
  /// (0 = node).
  unsigned Level = 0;
  /// The latency fan-in: on a switched network max d over groups and units,
  /// the most children of one unit holding members of one group. Above the
  /// node it may be 1 at a level that still carries bytes: a group whose
  /// children sit one per unit of this level reaches its other members
  /// through their uplinks.
  int64_t FanIn = 1;
  double Bytes = 0;       ///< max bytes through one link of the piece
  double Time = 0;        ///< T_l = Bytes / W_l, seconds
  double LatencyTime = 0; ///< latency x hops on this piece, seconds
};

/// The cost of one collective: T = max_l T_l + latency (COST-MODEL §3).
struct CollectivePlacement {
  /// Only the pieces whose links carry bytes, innermost first.
  llvm::SmallVector<LevelTraffic, 4> Levels;
  double BandwidthTime = 0; ///< max_l T_l
  double LatencyTime = 0;   ///< sum of the pieces' latency
  double Time = 0;          ///< BandwidthTime + LatencyTime
  /// The innermost piece attaining BandwidthTime (meaningful when Time > 0).
  unsigned BoundLevel = 0;
  /// Where a piece it crosses has two protocols, the one chosen (the
  /// faster): the small-message one or the bandwidth one.
  std::optional<bool> SmallProtocol;
};

/// What a placement costs per byte of V on one piece, independent of V.
struct LevelCoefficient {
  unsigned Level = 0;
  int64_t FanIn = 1;
  double BytesPerV = 0; ///< max over the piece's links of bytes / V
  double Hops = 0;      ///< latency hops on this piece
  /// The piece reduces the collective in its switches (in-network
  /// reduction): priced at its own efficiency.
  bool InNetwork = false;
  /// Where InNetwork: bytes / V of the ring the collective runs instead
  /// when NCCL picks the small-message protocol, which does not reduce in
  /// the switches (docs/cost-model.md §3); 0 elsewhere.
  double RingBytesPerV = 0;
};
using PlacementCoefficients = llvm::SmallVector<LevelCoefficient, 4>;

/// A mesh laid out on a cluster's network (row-major on chips 0..P-1), and
/// what traffic costs on it. The mesh and its cluster must outlive the
/// network and stay unchanged.
class Network {
public:
  virtual ~Network();

  const MeshSpec &mesh() const { return Mesh; }

  /// The coefficients of a collective of kind \p Kind over the mesh axes
  /// \p Axes (indices into the mesh's axes; order and repeats do not
  /// matter). Two kinds with the same trafficKey must get the same.
  virtual PlacementCoefficients
  collectiveCoefficients(CollectiveKind Kind,
                         llvm::ArrayRef<unsigned> Axes) const = 0;

  /// COST-MODEL.md §6.3: a pipeline's point-to-point sends along mesh axis
  /// \p Axis, every chip of a stage sending its V local bytes to the chip
  /// with the same coordinates in the next stage, all boundaries at once.
  virtual PlacementCoefficients sendCoefficients(unsigned Axis) const = 0;

  /// Prices coefficients of this network for \p GroupBytes bytes (the
  /// group's V, or a chip's bytes for a send), choosing the protocol.
  virtual CollectivePlacement price(const PlacementCoefficients &Coeffs,
                                    double GroupBytes) const = 0;

  /// Both steps at once, uncached.
  CollectivePlacement placeCollective(CollectiveKind Kind,
                                      llvm::ArrayRef<unsigned> Axes,
                                      double GroupBytes) const {
    return price(collectiveCoefficients(Kind, Axes), GroupBytes);
  }
  CollectivePlacement placeSend(unsigned Axis, double Bytes) const {
    return price(sendCoefficients(Axis), Bytes);
  }

protected:
  explicit Network(const MeshSpec &Mesh) : Mesh(Mesh) {}

  const MeshSpec &Mesh;
};

/// The network of \p Mesh's cluster. Every cluster shardc reads today is a
/// switched hierarchy.
std::unique_ptr<Network> createNetwork(const MeshSpec &Mesh);

/// Bit mask of an axis set of \p Mesh; order and repeats in \p Axes do not
/// matter.
uint64_t axisMask(const MeshSpec &Mesh, llvm::ArrayRef<unsigned> Axes);

} // namespace shardc

#endif // SHARDC_PASSES_NETWORK_H
