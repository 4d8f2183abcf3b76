//===- SwitchedNetwork.cpp - Collectives on a hierarchy of switches -------===//
//
// Implements COST-MODEL.md §3 (v0.2). Every unit of every level is a
// contiguous range of chips, so one level is scanned unit by unit, child by
// child, with per-group counters indexed by group id: O(P) per level, no
// hashing and no pairwise work, which keeps P = 2^22 cheap. A kind enters
// only through its CollectiveTraits (ir/CollectiveKinds.def).
//
//===----------------------------------------------------------------------===//
#include "passes/SwitchedNetwork.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <vector>

using namespace shardc;

namespace {

/// Bytes per unit of V that one group moves through one chip's port at the
/// node level (§3 level 1), for a group with \p InNode members in the node
/// and \p N in all. The chip holds one member, so d = InNode; traffic to
/// other nodes leaves through the node's NICs and is priced one level up.
double nodeBytesPerV(const CollectiveTraits &T, bool InNetworkReduction,
                     uint32_t InNode, int64_t N) {
  if (InNode <= 1)
    return 0;
  // The switch reduces, so each chip sends its V once and receives once.
  if (T.SwitchReduces && InNetworkReduction)
    return 1.0;
  return memberBytesPerV(T, InNode, N);
}

/// Bytes per unit of V that one group moves through one child's uplink above
/// the node (§3 levels >= 2), for a group with \p InChild of its \p N
/// members in the child. Every byte the child exchanges with a member outside
/// it crosses this uplink, wherever that member sits, hence 1 - f and not
/// the within-parent (d-1)/d, which undercounts groups spanning several
/// parents. \p Reduced: this level or one above it that the group crosses
/// reduces in its switches.
double uplinkBytesPerV(const CollectiveTraits &T, bool Reduced,
                       uint32_t InChild, int64_t N) {
  if (InChild == 0 || InChild >= N)
    return 0;
  switch (T.Pattern) {
  case TrafficPattern::Ring:
    if (T.SwitchReduces && Reduced)
      return 1.0;
    // 1 - f = (N - InChild) / N: integer numerator, so the share rounds
    // once.
    return double(T.Passes) * (double(N - InChild) / double(N));
  case TrafficPattern::Exchange:
    return double(InChild) * double(N - InChild) / (double(N) * double(N));
  }
  return 0;
}

/// Latency hops at a level whose largest fan-in is \p FanIn: a ring pass
/// takes d - 1 steps, an exchange one.
double latencyHops(const CollectiveTraits &T, int64_t FanIn) {
  if (FanIn <= 1)
    return 0;
  switch (T.Pattern) {
  case TrafficPattern::Ring:
    return double(T.Passes) * double(FanIn - 1);
  case TrafficPattern::Exchange:
    return 1;
  }
  return 0;
}

/// Members per group: the product of the collective axes' sizes.
int64_t groupSize(const MeshSpec &Mesh, uint64_t Mask) {
  int64_t N = 1;
  for (unsigned I = 0, E = Mesh.Axes.size(); I != E; ++I)
    if (Mask >> I & 1)
      N *= Mesh.Axes[I].Size;
  return N;
}

/// The group of every chip: the row-major index of its coordinates on the
/// axes outside the collective. Walks the chips as an odometer so no chip
/// needs a division per axis.
std::vector<uint32_t> groupOfChips(const MeshSpec &Mesh, uint64_t Mask) {
  unsigned NumAxes = Mesh.Axes.size();
  llvm::SmallVector<int64_t, 4> Stride(NumAxes, 0), Coord(NumAxes, 0);
  int64_t NumGroups = 1;
  for (unsigned I = NumAxes; I-- > 0;) {
    if (Mask >> I & 1)
      continue;
    Stride[I] = NumGroups;
    NumGroups *= Mesh.Axes[I].Size;
  }
  int64_t P = Mesh.numChips();
  std::vector<uint32_t> GroupOf(P);
  int64_t Id = 0;
  for (int64_t C = 0; C != P; ++C) {
    GroupOf[C] = uint32_t(Id);
    for (unsigned I = NumAxes; I-- > 0;) {
      Id += Stride[I];
      if (++Coord[I] < Mesh.Axes[I].Size)
        break;
      Id -= Stride[I] * Mesh.Axes[I].Size;
      Coord[I] = 0;
    }
  }
  return GroupOf;
}

/// Scans the levels of one collective. The caller scans from the top level
/// down, so that when a level is priced each group already knows whether a
/// level above it that it crosses reduces in-network (§3). The per-group
/// counters are sized by the number of groups and reset through
/// touched-lists, so each unit costs time proportional to its chips.
class LevelScanner {
public:
  LevelScanner(const ClusterSpec &Cluster, const CollectiveTraits &Kind,
               std::vector<uint32_t> GroupOf, int64_t GroupSize)
      : Cluster(Cluster), Kind(Kind), GroupOf(std::move(GroupOf)),
        N(GroupSize) {
    size_t NumGroups = this->GroupOf.size() / size_t(N);
    ChildCount.assign(NumGroups, 0);
    UnitCount.assign(NumGroups, 0);
    UnitFanIn.assign(NumGroups, 0);
    // Only a kind the switches reduce depends on reduction above.
    if (Kind.SwitchReduces)
      ReducedAbove.assign(NumGroups, 0);
  }

  /// The coefficients of level \p Level, whose children hold \p ChildChips.
  /// Levels must be scanned from the top down.
  LevelCoefficient scanLevel(unsigned Level, int64_t ChildChips);

private:
  /// One group's members in one child of the unit being scanned.
  struct Entry {
    uint32_t Group;
    uint32_t InChild;
  };

  void collectUnit(int64_t Begin, int64_t End, int64_t ChildChips);
  void collectChild(int64_t Begin, int64_t End);
  double groupBytesPerV(unsigned Level, const Entry &E, bool Ring) const;
  double childBytesPerV(unsigned Level, size_t Begin, size_t End,
                        bool Ring) const;
  void markReduced();

  const ClusterSpec &Cluster;
  const CollectiveTraits &Kind;
  std::vector<uint32_t> GroupOf;
  int64_t N;
  // Indexed by group id; zero outside the child / unit being scanned.
  std::vector<uint32_t> ChildCount, UnitCount, UnitFanIn;
  std::vector<uint32_t> ChildTouched, UnitTouched;
  // Indexed by group id: a level scanned so far (at or above the current
  // one) reduces in-network and the group crosses it. Only for a kind the
  // switches reduce.
  std::vector<uint8_t> ReducedAbove;
  // The unit's (group, members) pairs, child by child.
  std::vector<Entry> Entries;
  std::vector<size_t> ChildStarts;
};

/// Counts one child's members per group and folds them into the unit.
void LevelScanner::collectChild(int64_t Begin, int64_t End) {
  ChildStarts.push_back(Entries.size());
  for (int64_t C = Begin; C != End; ++C) {
    uint32_t G = GroupOf[C];
    if (ChildCount[G]++ == 0)
      ChildTouched.push_back(G);
  }
  for (uint32_t G : ChildTouched) {
    Entries.push_back({G, ChildCount[G]});
    if (UnitCount[G] == 0)
      UnitTouched.push_back(G);
    UnitCount[G] += ChildCount[G];
    ++UnitFanIn[G];
    ChildCount[G] = 0;
  }
  ChildTouched.clear();
}

/// Fills Entries, ChildStarts and the unit counters for chips [Begin, End).
void LevelScanner::collectUnit(int64_t Begin, int64_t End, int64_t ChildChips) {
  Entries.clear();
  ChildStarts.clear();
  for (int64_t C = Begin; C < End; C += ChildChips)
    collectChild(C, std::min(C + ChildChips, End));
  ChildStarts.push_back(Entries.size());
}

/// One group's bytes per V through one child's uplink: the node level prices
/// the in-node share with (d-1)/d, the levels above price 1 - f (§3 table).
/// \p Ring: as if no switch reduced it (the small-message protocol's ring).
double LevelScanner::groupBytesPerV(unsigned Level, const Entry &E,
                                    bool Ring) const {
  const LevelSpec &Spec = Cluster.Levels[Level];
  if (Level == 0)
    return nodeBytesPerV(Kind, Spec.InNetworkReduction && !Ring,
                         UnitCount[E.Group], N);
  bool Reduced = Spec.InNetworkReduction ||
                 (!ReducedAbove.empty() && ReducedAbove[E.Group]);
  return uplinkBytesPerV(Kind, Reduced && !Ring, E.InChild, N);
}

/// Sum over the groups present in one child (Entries [Begin, End)).
double LevelScanner::childBytesPerV(unsigned Level, size_t Begin, size_t End,
                                    bool Ring) const {
  double Sum = 0;
  for (size_t I = Begin; I != End; ++I)
    Sum += groupBytesPerV(Level, Entries[I], Ring);
  return Sum;
}

/// After a unit of a level that reduces in-network: every group that
/// crosses the level (a child holds some but not all of its members) is
/// reduced in the switches for the levels below too.
void LevelScanner::markReduced() {
  for (const Entry &E : Entries)
    if (E.InChild < N)
      ReducedAbove[E.Group] = 1;
}

LevelCoefficient LevelScanner::scanLevel(unsigned Level, int64_t ChildChips) {
  const LevelSpec &Spec = Cluster.Levels[Level];
  int64_t UnitChips = ChildChips * Spec.Size;
  int64_t P = GroupOf.size();
  bool Marks = Spec.InNetworkReduction && !ReducedAbove.empty();
  // The ring the small-message protocol runs instead of the switches'
  // reduction, on a level that reduces and has two protocols (§3).
  bool RingToo = Kind.SwitchReduces && Spec.InNetworkReduction &&
                 Spec.Calibration.twoProtocols();
  LevelCoefficient Result;
  Result.Level = Level;
  for (int64_t Begin = 0; Begin < P; Begin += UnitChips) {
    collectUnit(Begin, std::min(Begin + UnitChips, P), ChildChips);
    // The level's AllReduce traffic is in-network when any group in it is
    // reduced in the switches (§3; in practice all of them or none).
    if (Kind.SwitchReduces && !Result.InNetwork) {
      Result.InNetwork = Spec.InNetworkReduction;
      if (Level > 0)
        for (size_t I = 0; I < Entries.size(); ++I)
          Result.InNetwork |=
              !ReducedAbove.empty() && ReducedAbove[Entries[I].Group];
    }
    for (size_t K = 0, E = ChildStarts.size() - 1; K != E; ++K) {
      size_t From = ChildStarts[K], To = ChildStarts[K + 1];
      Result.BytesPerV =
          std::max(Result.BytesPerV, childBytesPerV(Level, From, To, false));
      if (RingToo)
        Result.RingBytesPerV = std::max(Result.RingBytesPerV,
                                        childBytesPerV(Level, From, To, true));
    }
    if (Marks)
      markReduced();
    for (uint32_t G : UnitTouched) {
      Result.FanIn = std::max<int64_t>(Result.FanIn, UnitFanIn[G]);
      UnitCount[G] = UnitFanIn[G] = 0;
    }
    UnitTouched.clear();
  }
  Result.Hops = latencyHops(Kind, Result.FanIn);
  if (!Result.InNetwork)
    Result.RingBytesPerV = 0;
  return Result;
}

/// T_l for \p Bytes through an uplink of \p W bytes/s. An unbounded uplink
/// (neither bandwidth given) costs nothing.
double uplinkTime(double Bytes, double W) {
  assert(W > 0 && "the frontend requires a positive level bandwidth");
  if (Bytes == 0 || std::isinf(W))
    return 0;
  return Bytes / W;
}

} // namespace

double shardc::effectiveUplink(const LevelSpec &Level, bool InNetwork,
                               bool Small) {
  return Level.uplink() * Level.Calibration.efficiency(InNetwork, Small);
}

SwitchedNetwork::SwitchedNetwork(const MeshSpec &Mesh)
    : Network(Mesh), Cluster(*Mesh.Cluster) {}

PlacementCoefficients
SwitchedNetwork::collectiveCoefficients(CollectiveKind Kind,
                                        llvm::ArrayRef<unsigned> Axes) const {
  int64_t P = Mesh.numChips();
  assert(P <= Cluster.numChips() && "the frontend rejects oversized meshes");
  assert(P <= int64_t(std::numeric_limits<uint32_t>::max()));
  uint64_t Mask = axisMask(Mesh, Axes);
  int64_t N = groupSize(Mesh, Mask);
  PlacementCoefficients Coeffs;
  if (N <= 1 || P <= 1)
    return Coeffs;

  // S_{l-1} of each level that can carry traffic: a level whose child holds
  // every chip (and all levels above it) sees none.
  llvm::SmallVector<int64_t, 4> ChildChips;
  int64_t S = 1;
  for (const LevelSpec &Level : Cluster.Levels) {
    if (S >= P)
      break;
    assert(Level.Size >= 1 && "levels have at least one child");
    ChildChips.push_back(S);
    S *= Level.Size;
  }
  LevelScanner Scanner(Cluster, collectiveTraits(Kind),
                       groupOfChips(Mesh, Mask), N);
  for (unsigned L = ChildChips.size(); L-- > 0;) {
    LevelCoefficient C = Scanner.scanLevel(L, ChildChips[L]);
    if (C.BytesPerV > 0)
      Coeffs.push_back(C);
  }
  std::reverse(Coeffs.begin(), Coeffs.end()); // innermost level first
  return Coeffs;
}

PlacementCoefficients SwitchedNetwork::sendCoefficients(unsigned Axis) const {
  int64_t P = Mesh.numChips();
  int64_t Size = Mesh.Axes[Axis].Size;
  PlacementCoefficients Coeffs;
  if (Size <= 1 || P <= 1)
    return Coeffs;
  // Row-major, the last axis fastest: the partner is Stride chips on.
  int64_t Stride = 1;
  for (size_t I = Axis + 1; I < Mesh.Axes.size(); ++I)
    Stride *= Mesh.Axes[I].Size;
  int64_t Child = 1;
  for (unsigned L = 0; L < Cluster.Levels.size() && Child < P; ++L) {
    int64_t Parent = Child * Cluster.Levels[L].Size;
    // Per child unit, the chips sending out of it. Chip C's stage is
    // (C / Stride) % Size, its unit C / Child, its place in its unit and
    // its parent C % Child and C % Parent: counted, not divided (this runs
    // for every candidate of a layout search).
    std::vector<int64_t> Senders(size_t((P + Child - 1) / Child), 0);
    int64_t Most = 0, Unit = 0, InUnit = 0, InParent = 0, InStride = 0,
            Stage = 0;
    for (int64_t C = 0; C < P; ++C) {
      // The last stage sends nothing forward; the partner is Stride on.
      bool Out = Stage != Size - 1 && InUnit + Stride >= Child;
      // The node's links carry only the partners inside the node.
      if (L == 0)
        Out = Out && InParent + Stride < Parent;
      if (Out)
        Most = std::max(Most, ++Senders[size_t(Unit)]);
      if (++InUnit == Child)
        InUnit = 0, ++Unit;
      if (++InParent == Parent)
        InParent = 0;
      if (++InStride == Stride && (InStride = 0, ++Stage == Size))
        Stage = 0;
    }
    if (Most > 0)
      Coeffs.push_back({L, 2, double(Most), 1});
    Child = Parent;
  }
  return Coeffs;
}

namespace {

/// The collective under one protocol: the bandwidth one (a level's
/// efficiency, and its bulk_latency where it has two protocols) or the
/// small-message one (small_efficiency and latency). NCCL's small-message
/// protocol (LL) has no in-switch algorithm: at a level that reduces in its
/// switches and has two protocols, it is a ring (§3), whose bytes the
/// scan kept in RingBytesPerV.
CollectivePlacement priceProtocol(const ClusterSpec &Cluster,
                                  const PlacementCoefficients &Coeffs,
                                  double GroupBytes, bool Small) {
  CollectivePlacement Result;
  if (!Coeffs.empty())
    Result.BoundLevel = Coeffs.front().Level;
  for (const LevelCoefficient &C : Coeffs) {
    const LevelSpec &Spec = Cluster.Levels[C.Level];
    LevelTraffic T;
    T.Level = C.Level;
    T.FanIn = C.FanIn;
    bool Ring = Small && C.RingBytesPerV > 0;
    T.Bytes = (Ring ? C.RingBytesPerV : C.BytesPerV) * GroupBytes;
    T.Time =
        uplinkTime(T.Bytes, effectiveUplink(Spec, C.InNetwork && !Ring, Small));
    // bulk_latency of a level that reduces in its switches was measured on
    // that reduction: a ring over it (an AllGather, a ReduceScatter)
    // keeps `latency` on its bandwidth line, as before it had two.
    bool SwitchLine = !Spec.InNetworkReduction || C.InNetwork || Small;
    T.LatencyTime = (SwitchLine ? Spec.Calibration.hopLatency(Small)
                                : Spec.Calibration.Latency) *
                    C.Hops;
    // Strictly greater: ties go to the innermost level.
    if (T.Time > Result.BandwidthTime) {
      Result.BandwidthTime = T.Time;
      Result.BoundLevel = C.Level;
    }
    Result.LatencyTime += T.LatencyTime;
    Result.Levels.push_back(T);
  }
  Result.Time = Result.BandwidthTime + Result.LatencyTime;
  return Result;
}

} // namespace

CollectivePlacement SwitchedNetwork::price(const PlacementCoefficients &Coeffs,
                                           double GroupBytes) const {
  assert(GroupBytes >= 0 && std::isfinite(GroupBytes));
  CollectivePlacement Bulk =
      priceProtocol(Cluster, Coeffs, GroupBytes, /*Small=*/false);
  // NCCL picks one protocol for the whole collective, the faster; a level
  // with one protocol prices both alike.
  if (llvm::none_of(Coeffs, [&](const LevelCoefficient &C) {
        return Cluster.Levels[C.Level].Calibration.twoProtocols();
      }))
    return Bulk;
  CollectivePlacement Small =
      priceProtocol(Cluster, Coeffs, GroupBytes, /*Small=*/true);
  CollectivePlacement &Faster = Small.Time < Bulk.Time ? Small : Bulk;
  Faster.SmallProtocol = &Faster == &Small;
  return Faster;
}
