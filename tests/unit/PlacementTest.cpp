//===- PlacementTest.cpp - Hand-derived COST-MODEL 3 checks ---------------===//
//
// Tests passes/Placement: the per-level cost of one collective. Every
// expected number is derived by hand from COST-MODEL.md §3 (v0.2: the node
// level prices (d-1)/d of the in-node share, every level above prices 1 - f,
// f the group's share inside the child); the arithmetic is in the comment
// next to it.
//
//===----------------------------------------------------------------------===//
#include "passes/Placement.h"
#include "gtest/gtest.h"
#include <chrono>
#include <cmath>
#include <initializer_list>
#include <utility>

using namespace shardc;

namespace {

constexpr CollectiveKind AG = CollectiveKind::AllGather;
constexpr CollectiveKind RS = CollectiveKind::ReduceScatter;
constexpr CollectiveKind AR = CollectiveKind::AllReduce;
constexpr CollectiveKind A2A = CollectiveKind::AllToAll;

LevelSpec level(const char *Name, int64_t Size, double UplinkBw, double Bw) {
  LevelSpec L;
  L.Name = Name;
  L.Size = Size;
  L.UplinkBw = UplinkBw;
  L.Bw = Bw;
  return L;
}

ClusterSpec cluster(std::initializer_list<LevelSpec> Levels) {
  ClusterSpec C;
  C.Name = "test";
  C.Chip.Name = "H100";
  C.Levels.assign(Levels.begin(), Levels.end());
  return C;
}

/// One 8xH100 node: W = min(450e9, 6.4e12 / 8 = 800e9) = 450e9.
ClusterSpec h100Node() { return cluster({level("node", 8, 450e9, 6.4e12)}); }

/// One SU: 32 nodes; leaf W = min(400e9, 12.8e12 / 32 = 400e9) = 400e9.
ClusterSpec oneSu() {
  return cluster(
      {level("node", 8, 450e9, 6.4e12), level("leaf", 32, 400e9, 12.8e12)});
}

/// The 1024-GPU SuperPod; spine W = min(12.8e12, 51.2e12 / 4) = 12.8e12.
ClusterSpec superPod() {
  return cluster({level("node", 8, 450e9, 6.4e12),
                  level("leaf", 32, 400e9, 12.8e12),
                  level("spine", 4, 12.8e12, 51.2e12)});
}

MeshSpec mesh(const ClusterSpec &C,
              std::initializer_list<std::pair<const char *, int64_t>> Axes) {
  MeshSpec M;
  M.Name = "m";
  M.Cluster = std::make_shared<ClusterSpec>(C);
  for (auto [Name, Size] : Axes)
    M.Axes.push_back({Name, Size});
  return M;
}

/// Equal up to floating rounding (sums of a few terms).
void expectRel(double Actual, double Expected) {
  EXPECT_NEAR(Actual, Expected, 1e-12 * std::abs(Expected))
      << "actual " << Actual << " expected " << Expected;
}

/// Matches a number the book rounds to four digits (e.g. 17.07e12 for
/// 17.0667e12): within 0.05%, or \p RelTol for fewer digits.
void expectBook(double Actual, double Rounded, double RelTol = 5e-4) {
  EXPECT_NEAR(Actual, Rounded, RelTol * std::abs(Rounded))
      << "actual " << Actual << " book " << Rounded;
}

/// Checks one level's traffic against hand-derived numbers.
void expectLevel(const LevelTraffic &T, unsigned Level, int64_t FanIn,
                 double Bytes, double Time) {
  EXPECT_EQ(T.Level, Level);
  EXPECT_EQ(T.FanIn, FanIn);
  expectRel(T.Bytes, Bytes);
  expectRel(T.Time, Time);
}

// 1. CASES.md G-11: one node, mesh [X:8], AllGather of V = 33,554,432 B.
TEST(PlacementTest, OneNodeAllGather) {
  ClusterSpec C = h100Node();
  MeshSpec M = mesh(C, {{"X", 8}});
  CollectivePlacement P = placeCollective(M, AG, {0}, 33554432);
  ASSERT_EQ(P.Levels.size(), 1u);
  // d = 8; bytes = 33554432 * 7/8 = 29360128; T = 29360128 / 450e9.
  expectLevel(P.Levels[0], 0, 8, 29360128, 29360128 / 450e9);
  // 29360128 / 450e9 = 65.2447 us.
  EXPECT_NEAR(P.Time, 65.24e-6, 0.01e-6);
  expectRel(P.BandwidthTime, 29360128 / 450e9);
  EXPECT_EQ(P.LatencyTime, 0);
  EXPECT_EQ(P.BoundLevel, 0u);
}

// 1b. The book's bf16[4096 x 65536] on one node: 1.04 ms.
TEST(PlacementTest, OneNodeBookNumber) {
  ClusterSpec C = h100Node();
  MeshSpec M = mesh(C, {{"X", 8}});
  // V = 4096 * 65536 * 2 = 536870912; bytes = V * 7/8 = 469762048;
  // T = 469762048 / 450e9 = 1.04392 ms.
  CollectivePlacement P = placeCollective(M, AG, {0}, 536870912);
  expectRel(P.Time, 469762048 / 450e9);
  EXPECT_NEAR(P.Time, 1.04e-3, 0.005e-3);
}

// 2. CASES.md G-15: the SuperPod, mesh [X:1024], AllGather; V = 1e12.
TEST(PlacementTest, SuperPodAllGather) {
  ClusterSpec C = superPod();
  MeshSpec M = mesh(C, {{"X", 1024}});
  const double V = 1e12;
  CollectivePlacement P = placeCollective(M, AG, {0}, V);
  ASSERT_EQ(P.Levels.size(), 3u);
  // node: d = 8, bytes = V * 7/8 = 0.875e12, T = 0.875e12 / 450e9 = 1.9444 s
  // = V / 514.29e9.
  expectLevel(P.Levels[0], 0, 8, 0.875e12, 0.875e12 / 450e9);
  expectBook(P.Levels[0].Time, V / 514.3e9);
  // leaf: a node holds f = 8/1024 = 1/128 of the group; every byte it
  // exchanges with the other 1016 members crosses its uplink, including those
  // in the other three SUs: bytes = V * 127/128 = 0.9921875e12,
  // T = 0.9921875e12 / 400e9 = 2.48046875 s = V / 403.15e9 (CASES.md G-15;
  // the book's V / 412.9e9 = V * 31/32 / 400e9 counts only the traffic
  // inside one SU). Fan-in: 32 nodes of one SU hold members.
  expectLevel(P.Levels[1], 1, 32, 0.9921875e12, 2.48046875);
  expectBook(P.Levels[1].Time, V / 403.1e9);
  // spine: an SU holds f = 256/1024 = 1/4: bytes = V * 3/4 = 0.75e12,
  // T = 0.75e12 / 12.8e12 = 0.05859375 s = V / 17.067e12.
  expectLevel(P.Levels[2], 2, 4, 0.75e12, 0.05859375);
  expectBook(P.Levels[2].Time, V / 17.07e12);
  // max(1.9444, 2.48046875, 0.0586) = 2.48046875, the leaf.
  expectRel(P.Time, 2.48046875);
  EXPECT_EQ(P.BoundLevel, 1u);
}

// 3. Two nodes, mesh [X:16] on the SuperPod: node-bound at V / 514e9.
TEST(PlacementTest, TwoNodesNodeBound) {
  ClusterSpec C = superPod();
  MeshSpec M = mesh(C, {{"X", 16}});
  const double V = 1e12;
  CollectivePlacement P = placeCollective(M, AG, {0}, V);
  // The spine sees one SU holding all 16 chips: d = 1, not listed.
  ASSERT_EQ(P.Levels.size(), 2u);
  // node: d = 8, bytes = V * 7/8 = 0.875e12, T = 0.875e12 / 450e9.
  expectLevel(P.Levels[0], 0, 8, 0.875e12, 0.875e12 / 450e9);
  // leaf: nodes 0 and 1 => d = 2, bytes = V / 2 = 0.5e12, T = 0.5e12 / 400e9
  // = 1.25 s.
  expectLevel(P.Levels[1], 1, 2, 0.5e12, 1.25);
  // max(1.9444, 1.25): the node, V / 514.29e9.
  expectRel(P.Time, 0.875e12 / 450e9);
  expectBook(P.Time, V / 514e9, 1e-3); // three digits: 514.29e9
  EXPECT_EQ(P.BoundLevel, 0u);
}

// 4. CASES.md G-17a: mesh [X:32, Y:8] on one SU, AllGather over X of
// bf16[D_X, F_Y] with D = 8192, F = 32768: V_g = 8192 * 4096 * 2 = 67108864.
TEST(PlacementTest, MixedTpDpOneSu) {
  ClusterSpec C = oneSu();
  MeshSpec M = mesh(C, {{"X", 32}, {"Y", 8}});
  const double Vg = 8192.0 * 32768 * 2 / 8; // = 67108864
  CollectivePlacement P = placeCollective(M, AG, {0}, Vg);
  // Chip c = 8x + y, node = x: each node holds one member of each of the 8
  // groups, so the node level has d = 1 and is not listed.
  ASSERT_EQ(P.Levels.size(), 1u);
  // leaf: d = 32; one node's uplink: 8 groups * 67108864 * 31/32 = 520093696;
  // T = 520093696 / 400e9 = 1.30023424 ms.
  expectLevel(P.Levels[0], 1, 32, 520093696, 1.30023424e-3);
  EXPECT_NEAR(P.Time, 1.300e-3, 0.5e-6);
  EXPECT_EQ(P.BoundLevel, 1u);
}

// 4b. The same with [X:64, Y:4]: V_g' = 8192 * 32768 * 2 / 4 = 134217728.
TEST(PlacementTest, MixedTpDpOneSuWideX) {
  ClusterSpec C = oneSu();
  MeshSpec M = mesh(C, {{"X", 64}, {"Y", 4}});
  const double Vg = 8192.0 * 32768 * 2 / 4; // = 134217728
  CollectivePlacement P = placeCollective(M, AG, {0}, Vg);
  ASSERT_EQ(P.Levels.size(), 2u);
  // Chip c = 4x + y, node = x / 2: each group has 2 members per node, d = 2;
  // one chip's uplink: 134217728 * 1/2 = 67108864; T = 67108864 / 450e9 =
  // 149.13 us.
  expectLevel(P.Levels[0], 0, 2, 67108864, 67108864 / 450e9);
  // leaf: d = 32; one node carries 4 groups: 4 * 134217728 * 31/32 =
  // 520093696; T = 520093696 / 400e9 = 1.30023424 ms, as for [X:32, Y:8].
  expectLevel(P.Levels[1], 1, 32, 520093696, 1.30023424e-3);
  expectRel(P.Time, 1.30023424e-3);
  EXPECT_EQ(P.BoundLevel, 1u);
}

// 4c. The same mesh on the whole SuperPod: 256 chips sit in one SU, so the
// spine carries nothing and the answer does not change.
TEST(PlacementTest, MixedTpDpOnSuperPod) {
  ClusterSpec C = superPod();
  MeshSpec M = mesh(C, {{"X", 32}, {"Y", 8}});
  CollectivePlacement P = placeCollective(M, AG, {0}, 67108864);
  ASSERT_EQ(P.Levels.size(), 1u);
  // As in 4: 8 * 67108864 * 31/32 = 520093696 through a node's uplink.
  expectLevel(P.Levels[0], 1, 32, 520093696, 1.30023424e-3);
}

// 5. AllReduce on one node, with and without in-network reduction; V = 1e9.
TEST(PlacementTest, AllReduceOneNode) {
  ClusterSpec C = h100Node();
  MeshSpec M = mesh(C, {{"X", 8}});
  CollectivePlacement P = placeCollective(M, AR, {0}, 1e9);
  ASSERT_EQ(P.Levels.size(), 1u);
  // bytes = 2 * 1e9 * 7/8 = 1.75e9; T = 1.75e9 / 450e9 = 3.8889 ms.
  expectLevel(P.Levels[0], 0, 8, 1.75e9, 1.75e9 / 450e9);

  // CASES.md G-6: with in_network_reduction, bytes = V = 1e9; T = V / 450e9.
  C.Levels[0].InNetworkReduction = true;
  M = mesh(C, {{"X", 8}});
  P = placeCollective(M, AR, {0}, 1e9);
  ASSERT_EQ(P.Levels.size(), 1u);
  expectLevel(P.Levels[0], 0, 8, 1e9, 1e9 / 450e9);
  expectRel(P.Time, 1e9 / 450e9);
}

// 5b. AllReduce over the SuperPod, in-network reduction at the leaf only.
TEST(PlacementTest, AllReduceSuperPodLeafReduction) {
  ClusterSpec C = superPod();
  MeshSpec M = mesh(C, {{"X", 1024}});
  CollectivePlacement P = placeCollective(M, AR, {0}, 1e12);
  ASSERT_EQ(P.Levels.size(), 3u);
  // Without: node 2 * 0.875e12 = 1.75e12 / 450e9 = 3.8889 s;
  // leaf 2 * V * 127/128 = 1.984375e12 / 400e9 = 4.9609375 s;
  // spine 2 * 0.75e12 = 1.5e12 / 12.8e12 = 0.1171875 s. Leaf-bound.
  expectLevel(P.Levels[0], 0, 8, 1.75e12, 1.75e12 / 450e9);
  expectLevel(P.Levels[1], 1, 32, 1.984375e12, 4.9609375);
  expectLevel(P.Levels[2], 2, 4, 1.5e12, 0.1171875);
  EXPECT_EQ(P.BoundLevel, 1u);
  expectRel(P.Time, 4.9609375);

  // With SHARP at the leaf: leaf bytes = V = 1e12, T = 2.5 s; the spine does
  // not reduce, so it keeps 2 * V * 3/4 = 1.5e12; the node's 3.8889 s now
  // bounds.
  C.Levels[1].InNetworkReduction = true;
  M = mesh(C, {{"X", 1024}});
  P = placeCollective(M, AR, {0}, 1e12);
  expectLevel(P.Levels[1], 1, 32, 1e12, 2.5);
  expectLevel(P.Levels[2], 2, 4, 1.5e12, 0.1171875);
  EXPECT_EQ(P.BoundLevel, 0u);
  expectRel(P.Time, 1.75e12 / 450e9);
}

// 5c. AllToAll over one node: V * (1/8) * (7/8) per chip; V = 1e9.
TEST(PlacementTest, AllToAllOneNode) {
  ClusterSpec C = h100Node();
  MeshSpec M = mesh(C, {{"X", 8}});
  CollectivePlacement P = placeCollective(M, A2A, {0}, 1e9);
  ASSERT_EQ(P.Levels.size(), 1u);
  // f = 1/8, f_p = 1: bytes = 1e9 * 7/64 = 109375000; T = 109375000 / 450e9.
  expectLevel(P.Levels[0], 0, 8, 109375000, 109375000 / 450e9);
}

// 5d. AllToAll over the SuperPod, V = 2^20 = 1048576, so V / 1024^2 = 1.
TEST(PlacementTest, AllToAllSuperPod) {
  ClusterSpec C = superPod();
  MeshSpec M = mesh(C, {{"X", 1024}});
  CollectivePlacement P = placeCollective(M, A2A, {0}, 1048576);
  ASSERT_EQ(P.Levels.size(), 3u);
  // node: f = 1/1024, f_p = 8/1024: bytes = 1 * 7 = 7; T = 7 / 450e9.
  expectLevel(P.Levels[0], 0, 8, 7, 7 / 450e9);
  // leaf: f = 8/1024; V f (1 - f) = 8 * 1016 = 8128 (a node sends to every
  // member outside it, not only to the 248 others in its SU);
  // T = 8128 / 400e9 = 2.032e-8.
  expectLevel(P.Levels[1], 1, 32, 8128, 2.032e-8);
  // spine: f = 256/1024: bytes = 256 * 768 = 196608;
  // T = 196608 / 12.8e12 = 1.536e-8. The leaf bounds.
  expectLevel(P.Levels[2], 2, 4, 196608, 1.536e-8);
  EXPECT_EQ(P.BoundLevel, 1u);
  expectRel(P.Time, 2.032e-8);
}

// ReduceScatter moves the bytes of AllGather (same table row).
TEST(PlacementTest, ReduceScatterMatchesAllGather) {
  ClusterSpec C = superPod();
  MeshSpec M = mesh(C, {{"X", 1024}});
  CollectivePlacement P = placeCollective(M, RS, {0}, 1e12);
  ASSERT_EQ(P.Levels.size(), 3u);
  // As SuperPodAllGather: leaf V * 127/128 = 0.9921875e12 / 400e9 =
  // 2.48046875 s.
  expectLevel(P.Levels[1], 1, 32, 0.9921875e12, 2.48046875);
  expectRel(P.Time, 2.48046875);
}

// 6a. [X:3, Y:8] on the SuperPod (24 chips), c = 8x + y, node = x.
TEST(PlacementTest, IrregularThreeNodes) {
  ClusterSpec C = superPod();
  MeshSpec M = mesh(C, {{"X", 3}, {"Y", 8}});
  // Over X: 8 groups (one per y), 1 member per node => node d = 1; the leaf
  // unit holds nodes 0..2 => d = 3; one node carries 8 groups:
  // 8 * 3e6 * 2/3 = 16e6; T = 16e6 / 400e9 = 4e-5. Spine: one SU, d = 1.
  CollectivePlacement P = placeCollective(M, AG, {0}, 3e6);
  ASSERT_EQ(P.Levels.size(), 1u);
  expectLevel(P.Levels[0], 1, 3, 16e6, 4e-5);
  // AllToAll over X, V = 9e6: f = 1/3, f_p = 1: 9e6 * 1/3 * 2/3 = 2e6 per
  // group, 8 groups => 16e6; T = 4e-5.
  P = placeCollective(M, A2A, {0}, 9e6);
  ASSERT_EQ(P.Levels.size(), 1u);
  expectLevel(P.Levels[0], 1, 3, 16e6, 4e-5);
  // Over Y: 3 groups, each one whole node: node d = 8, bytes 8e6 * 7/8 = 7e6,
  // T = 7e6 / 450e9; leaf: each group in one node, d = 1.
  P = placeCollective(M, AG, {1}, 8e6);
  ASSERT_EQ(P.Levels.size(), 1u);
  expectLevel(P.Levels[0], 0, 8, 7e6, 7e6 / 450e9);
}

/// node 8 (450e9), leaf 4 (400e9, no bw) => 32-chip units, spine 2 (1e12).
ClusterSpec smallUnits() {
  return cluster({level("node", 8, 450e9, 0), level("leaf", 4, 400e9, 0),
                  level("spine", 2, 1e12, 0)});
}

// 6b. 24 chips on 32-chip units: a leaf unit with one empty node.
TEST(PlacementTest, IrregularPartialUnit) {
  ClusterSpec C = smallUnits();
  MeshSpec M = mesh(C, {{"X", 24}});
  CollectivePlacement P = placeCollective(M, AG, {0}, 24e6);
  // Spine: all 24 chips in leaf unit 0, d = 1, not listed.
  ASSERT_EQ(P.Levels.size(), 2u);
  // node: 3 full nodes, d = 8: 24e6 * 7/8 = 21e6; T = 21e6 / 450e9 = 46.67us.
  expectLevel(P.Levels[0], 0, 8, 21e6, 21e6 / 450e9);
  // leaf: nodes 0..2 hold members, d = 3: 24e6 * 2/3 = 16e6; T = 40 us.
  expectLevel(P.Levels[1], 1, 3, 16e6, 4e-5);
  EXPECT_EQ(P.BoundLevel, 0u);
  expectRel(P.Time, 21e6 / 450e9);
}

// 6b'. [X:12]: node 0 full, node 1 half full; d differs per unit.
TEST(PlacementTest, IrregularHalfNode) {
  ClusterSpec C = smallUnits();
  MeshSpec M = mesh(C, {{"X", 12}});
  CollectivePlacement P = placeCollective(M, AG, {0}, 12e6);
  ASSERT_EQ(P.Levels.size(), 2u);
  // node 0: d = 8, 12e6 * 7/8 = 10.5e6; node 1: d = 4, 12e6 * 3/4 = 9e6.
  // Max 10.5e6, fan-in 8.
  expectLevel(P.Levels[0], 0, 8, 10.5e6, 10.5e6 / 450e9);
  // leaf (uneven): node 0 holds f = 8/12, 12e6 * 4/12 = 4e6; node 1 holds
  // f = 4/12, 12e6 * 8/12 = 8e6. Max 8e6 (the half-full node sends more);
  // T = 8e6 / 400e9 = 20 us. Fan-in 2.
  expectLevel(P.Levels[1], 1, 2, 8e6, 2e-5);

  // AllToAll, V = 144e6 (so V / 12^2 = 1e6):
  // node 0: f = 1/12, f_p = 8/12: 1e6 * 1 * 7 = 7e6;
  // node 1: f = 1/12, f_p = 4/12: 1e6 * 1 * 3 = 3e6. Max 7e6.
  // leaf: node 0: f = 8/12, f_p = 1: 1e6 * 8 * 4 = 32e6;
  //       node 1: f = 4/12: 1e6 * 4 * 8 = 32e6. T = 32e6 / 400e9 = 80 us.
  P = placeCollective(M, A2A, {0}, 144e6);
  ASSERT_EQ(P.Levels.size(), 2u);
  expectLevel(P.Levels[0], 0, 8, 7e6, 7e6 / 450e9);
  expectLevel(P.Levels[1], 1, 2, 32e6, 8e-5);
  EXPECT_EQ(P.BoundLevel, 1u);
}

// 6b''. [X:3, Y:4] on node+leaf: c = 4x + y, node 0 = x in {0, 1}, node 1 =
// x = 2. Over X each group's members are 4 chips apart.
TEST(PlacementTest, IrregularStridedAcrossNodes) {
  ClusterSpec C = oneSu();
  MeshSpec M = mesh(C, {{"X", 3}, {"Y", 4}});
  CollectivePlacement P = placeCollective(M, AG, {0}, 3e6);
  ASSERT_EQ(P.Levels.size(), 2u);
  // node 0: each group has 2 members, d = 2: 3e6 / 2 = 1.5e6 per chip;
  // node 1: 1 member per group, d = 1.
  expectLevel(P.Levels[0], 0, 2, 1.5e6, 1.5e6 / 450e9);
  // leaf: every group in nodes 0 and 1 (fan-in 2), unevenly: node 0 holds
  // f = 2/3 of each of its 4 groups, 4 * 3e6 * 1/3 = 4e6; node 1 holds
  // f = 1/3, 4 * 3e6 * 2/3 = 8e6. Max 8e6; T = 8e6 / 400e9 = 20 us.
  expectLevel(P.Levels[1], 1, 2, 8e6, 2e-5);
}

// 6c. A strided group: [X:4, Y:2] on one node of two 4-chip boards; over X
// the members of a group (c = 2x + y) are 2 chips apart.
TEST(PlacementTest, StridedGroup) {
  ClusterSpec C =
      cluster({level("board", 4, 100e9, 0), level("node", 2, 50e9, 0)});
  MeshSpec M = mesh(C, {{"X", 4}, {"Y", 2}});
  CollectivePlacement P = placeCollective(M, AG, {0}, 1e9);
  ASSERT_EQ(P.Levels.size(), 2u);
  // board 0 = chips 0..3 holds group y=0 at {0, 2} and y=1 at {1, 3}: d = 2,
  // one chip carries 1e9 / 2 = 5e8; T = 5e8 / 100e9 = 5 ms.
  expectLevel(P.Levels[0], 0, 2, 5e8, 5e-3);
  // node: both groups span both boards, d = 2; one board carries 2 groups:
  // 2 * 1e9 / 2 = 1e9; T = 1e9 / 50e9 = 20 ms.
  expectLevel(P.Levels[1], 1, 2, 1e9, 2e-2);
  EXPECT_EQ(P.BoundLevel, 1u);
  expectRel(P.Time, 2e-2);
  // Over Y the members are neighbours {2x, 2x+1}: board d = 2, 5e8 per chip;
  // each group sits in one board, so the node level carries nothing.
  P = placeCollective(M, AG, {1}, 1e9);
  ASSERT_EQ(P.Levels.size(), 1u);
  expectLevel(P.Levels[0], 0, 2, 5e8, 5e-3);
}

// 6d. A mesh smaller than the cluster: [X:4] on the SuperPod.
TEST(PlacementTest, MeshSmallerThanCluster) {
  ClusterSpec C = superPod();
  MeshSpec M = mesh(C, {{"X", 4}});
  CollectivePlacement P = placeCollective(M, AG, {0}, 1e9);
  ASSERT_EQ(P.Levels.size(), 1u);
  // d = 4: 1e9 * 3/4 = 7.5e8; T = 7.5e8 / 450e9 = 1.6667 ms.
  expectLevel(P.Levels[0], 0, 4, 7.5e8, 7.5e8 / 450e9);
}

// 6e. A group of one member costs exactly 0, for every kind.
TEST(PlacementTest, SingletonGroupIsFree) {
  ClusterSpec C = superPod();
  C.Levels[0].Calibration.Latency = 5e-6;
  MeshSpec M = mesh(C, {{"X", 8}, {"Y", 1}});
  for (CollectiveKind K : {AG, RS, AR, A2A}) {
    CollectivePlacement P = placeCollective(M, K, {1}, 1e9);
    EXPECT_TRUE(P.Levels.empty());
    EXPECT_EQ(P.Time, 0);
    EXPECT_EQ(P.BandwidthTime, 0);
    EXPECT_EQ(P.LatencyTime, 0);
    // No axes at all: n = 1 too.
    P = placeCollective(M, K, {}, 1e9);
    EXPECT_TRUE(P.Levels.empty());
    EXPECT_EQ(P.Time, 0);
  }
  // A one-chip mesh.
  MeshSpec One = mesh(C, {{"X", 1}});
  EXPECT_EQ(placeCollective(One, AG, {0}, 1e9).Time, 0);
}

// 7. Latency 5 us at the node, mesh [X:8], V = 33554432.
TEST(PlacementTest, Latency) {
  ClusterSpec C = h100Node();
  C.Levels[0].Calibration.Latency = 5e-6;
  MeshSpec M = mesh(C, {{"X", 8}});
  // AllGather: 29360128 / 450e9 + 7 hops * 5 us = 65.2447 us + 35 us.
  CollectivePlacement P = placeCollective(M, AG, {0}, 33554432);
  expectRel(P.LatencyTime, 35e-6);
  expectRel(P.Levels[0].LatencyTime, 35e-6);
  expectRel(P.Time, 29360128 / 450e9 + 35e-6);
  // AllReduce: 2 * 29360128 / 450e9 + 14 * 5 us = 130.489 us + 70 us.
  P = placeCollective(M, AR, {0}, 33554432);
  expectRel(P.LatencyTime, 70e-6);
  expectRel(P.Time, 58720256 / 450e9 + 70e-6);
  // AllToAll: 33554432 * 7/64 = 3670016 B / 450e9 + 1 hop * 5 us.
  P = placeCollective(M, A2A, {0}, 33554432);
  expectRel(P.LatencyTime, 5e-6);
  expectRel(P.Time, 3670016 / 450e9 + 5e-6);
  // Latency is paid even when V = 0.
  P = placeCollective(M, AG, {0}, 0);
  EXPECT_EQ(P.BandwidthTime, 0);
  expectRel(P.Time, 35e-6);
}

// 7b. Latency over several levels, only where the group spans children.
TEST(PlacementTest, LatencyPerLevel) {
  ClusterSpec C = superPod();
  C.Levels[0].Calibration.Latency = 1e-6;
  C.Levels[1].Calibration.Latency = 2e-6;
  C.Levels[2].Calibration.Latency = 3e-6;
  // [X:1024]: 7 * 1 + 31 * 2 + 3 * 3 = 78 us (hops count the fan-in of one
  // unit, d - 1) on top of the leaf's 2.48046875 s (SuperPodAllGather).
  MeshSpec Flat = mesh(C, {{"X", 1024}});
  CollectivePlacement P = placeCollective(Flat, AG, {0}, 1e12);
  expectRel(P.LatencyTime, 78e-6);
  expectRel(P.Time, 2.48046875 + 78e-6);
  // [X:32, Y:8] over X: node d = 1 (no latency), leaf d = 32: 31 * 2 = 62 us.
  MeshSpec Mixed = mesh(C, {{"X", 32}, {"Y", 8}});
  P = placeCollective(Mixed, AG, {0}, 67108864);
  expectRel(P.LatencyTime, 62e-6);
  expectRel(P.Time, 1.30023424e-3 + 62e-6);
}

// 8. Level efficiency 0.5 halves W and doubles T.
TEST(PlacementTest, Efficiency) {
  ClusterSpec C = h100Node();
  C.Levels[0].Calibration.Efficiency = 0.5;
  MeshSpec M = mesh(C, {{"X", 8}});
  CollectivePlacement P = placeCollective(M, AG, {0}, 33554432);
  // W = 450e9 * 0.5 = 225e9; T = 29360128 / 225e9 = 130.489 us = 2 x 65.24.
  expectRel(P.Time, 29360128 / 225e9);
  EXPECT_NEAR(P.Time, 2 * 65.24e-6, 0.02e-6);
}

// 9. The switch's bw, not the uplink, limits: W = bw / size.
TEST(PlacementTest, SwitchBandwidthLimits) {
  ClusterSpec C = cluster({level("node", 8, 450e9, 2e12)});
  MeshSpec M = mesh(C, {{"X", 8}});
  // W = min(450e9, 2e12 / 8 = 250e9) = 250e9; T = 29360128 / 250e9.
  CollectivePlacement P = placeCollective(M, AG, {0}, 33554432);
  expectRel(P.Time, 29360128 / 250e9);
  // Only bw given: W = 3.6e12 / 8 = 450e9, the same as G-11.
  C.Levels[0] = level("node", 8, 0, 3.6e12);
  M = mesh(C, {{"X", 8}});
  P = placeCollective(M, AG, {0}, 33554432);
  expectRel(P.Time, 29360128 / 450e9);
}

// The cache: order-free axis sets, linear in V, repeatable.
TEST(PlacementTest, CacheIsLinearAndOrderFree) {
  ClusterSpec C = superPod();
  MeshSpec M = mesh(C, {{"X", 4}, {"Y", 8}, {"Z", 32}});
  PlacementCache Cache(M);
  CollectivePlacement A = Cache.place(AG, {0, 2}, 1e9);
  CollectivePlacement B = Cache.place(AG, {2, 0}, 2e9);
  CollectivePlacement Again = Cache.place(AG, {0, 2}, 1e9);
  ASSERT_EQ(A.Levels.size(), B.Levels.size());
  for (size_t I = 0; I != A.Levels.size(); ++I) {
    EXPECT_EQ(A.Levels[I].FanIn, B.Levels[I].FanIn);
    expectRel(B.Levels[I].Bytes, 2 * A.Levels[I].Bytes);
  }
  expectRel(B.Time, 2 * A.Time);
  EXPECT_EQ(Again.Time, A.Time);
  EXPECT_EQ(Cache.place(RS, {0, 2}, 1e9).Time, A.Time);
  // The cached result agrees with a fresh computation.
  EXPECT_EQ(placeCollective(M, AG, {0, 2}, 1e9).Time, A.Time);
  // Hand check, c = 256x + 32y + z; groups per y, n = 128 over (x, z):
  // node (8 chips: one x, one y, 8 z): d = 8, 1e9 * 7/8 = 8.75e8 per chip.
  // leaf (one SU = one x): children are nodes; group y has the 4 nodes of
  // its y in each SU (fan-in 4) and 16 nodes in all; each node holds 1
  // group with f = 8/128: 1e9 * 120/128 = 9.375e8 / 400e9.
  // spine: one SU holds 8 groups, f = 32/128: 8 * 1e9 * 3/4 = 6e9 / 12.8e12.
  ASSERT_EQ(A.Levels.size(), 3u);
  expectLevel(A.Levels[0], 0, 8, 8.75e8, 8.75e8 / 450e9);
  expectLevel(A.Levels[1], 1, 4, 9.375e8, 9.375e8 / 400e9);
  expectLevel(A.Levels[2], 2, 4, 6e9, 6e9 / 12.8e12);
}

/// node 8, leaf 32, spine 16384: 2^22 chips.
ClusterSpec hugeCluster() {
  return cluster({level("node", 8, 450e9, 0), level("leaf", 32, 400e9, 0),
                  level("spine", 16384, 12.8e12, 0)});
}

// P = 2^22: linear time, and hand-checkable numbers.
TEST(PlacementTest, HugeMesh) {
  ClusterSpec C = hugeCluster();
  MeshSpec Flat = mesh(C, {{"X", 4194304}});
  auto Start = std::chrono::steady_clock::now();
  CollectivePlacement P = placeCollective(Flat, AG, {0}, 1e12);
  ASSERT_EQ(P.Levels.size(), 3u);
  // node 0.875e12 / 450e9; leaf: f = 8/2^22 = 1/524288, 1e12 * 524287/524288
  // / 400e9 = 2.5 * 524287/524288 s;
  // spine: d = 16384, 1e12 * 16383/16384 / 12.8e12 = 0.078125 * 16383/16384.
  expectLevel(P.Levels[0], 0, 8, 0.875e12, 0.875e12 / 450e9);
  expectLevel(P.Levels[1], 1, 32, 1e12 * 524287 / 524288,
              2.5 * 524287 / 524288);
  expectLevel(P.Levels[2], 2, 16384, 1e12 * 16383 / 16384,
              0.078125 * 16383 / 16384);
  EXPECT_EQ(P.BoundLevel, 1u);

  // [X:4096, Y:1024] over X, c = 1024x + y: a node (8 chips) and an SU (256)
  // each hold one x, so the node level carries nothing (d = 1). The leaf has
  // fan-in 1 too, but each node holds f = 1/4096 of its 8 groups and sends
  // to the rest through its uplink: 8 * 1e9 * 4095/4096 = 7.998046875e9;
  // T = 7.998046875e9 / 400e9 = 19.995 ms. SU k holds y in [256 (k%4), +256)
  // of x = k/4: group y is in 4096 SUs, d = 4096; one SU carries 256 groups
  // with f = 1/4096: 256 * 1e9 * 4095/4096 = 255.9375e9;
  // T = 255.9375e9 / 12.8e12 = 19.995 ms. Both are 0.02 * 4095/4096 s, each
  // rounded once from the same exact product, so they tie and the innermost
  // level, the leaf, bounds.
  MeshSpec Mixed = mesh(C, {{"X", 4096}, {"Y", 1024}});
  P = placeCollective(Mixed, AG, {0}, 1e9);
  ASSERT_EQ(P.Levels.size(), 2u);
  expectLevel(P.Levels[0], 1, 1, 7.998046875e9, 7.998046875e9 / 400e9);
  expectLevel(P.Levels[1], 2, 4096, 255.9375e9, 255.9375e9 / 12.8e12);
  EXPECT_EQ(P.Levels[0].Time, P.Levels[1].Time);
  EXPECT_EQ(P.BoundLevel, 1u);
  double Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  // Two O(P x levels) scans of 4M chips; generous for slow CI machines.
  EXPECT_LT(Seconds, 10.0);
}

// ---------------------------------------------------------------------------
// COST-MODEL.md §3 v0.2: above the node a child's uplink carries V (1 - f).
// ---------------------------------------------------------------------------

/// The issue 8 meshes: the same 8-node AllReduce groups spread over the 4 SUs
/// ([S:4, Z:16, W:2, Y:8] over S, W) and packed into one SU ([Z:4, W:8, Y:8]
/// over W). V = 8Gi bf16 sharded over Y: 2^30 elements x 2 B = 2^31 B.
constexpr double IssueV = 2147483648.0;

// The issue's reproducer: crossing the spine no longer makes it cheaper.
TEST(PlacementTest, IssueSpineCrossingAllReduce) {
  ClusterSpec C = superPod();
  // c = 256s + 16z + 8w + y: node = (s, z, w), SU = s; groups (z, y), n = 8.
  MeshSpec Spread = mesh(C, {{"S", 4}, {"Z", 16}, {"W", 2}, {"Y", 8}});
  CollectivePlacement P = placeCollective(Spread, AR, {0, 2}, IssueV);
  // Node: its 8 chips have 8 different y, one member per group: d = 1.
  ASSERT_EQ(P.Levels.size(), 2u);
  // Leaf: a node holds 8 groups with f = 1/8 each: 8 * 2V * 7/8 = 14V =
  // 30064771072 B; T = 30064771072 / 400e9 = 75.16192768 ms (the old
  // within-SU (d-1)/d with d = 2 gave 8 * 2V * 1/2 = 8V, 42.95 ms).
  expectLevel(P.Levels[0], 1, 2, 30064771072, 0.07516192768);
  // Spine: an SU holds 128 groups (16 z x 8 y) with f = 2/8 each:
  // 128 * 2V * 3/4 = 192V = 412316860416 B; T = / 12.8e12 = 32.21225472 ms.
  expectLevel(P.Levels[1], 2, 4, 412316860416, 0.03221225472);
  EXPECT_EQ(P.BoundLevel, 1u);
  expectRel(P.Time, 0.07516192768);

  // c = 64z + 8w + y: node = (z, w), all in SU 0; groups (z, y), n = 8.
  MeshSpec Packed = mesh(C, {{"Z", 4}, {"W", 8}, {"Y", 8}});
  CollectivePlacement Q = placeCollective(Packed, AR, {1}, IssueV);
  // Leaf: 8 groups per node with f = 1/8: 14V, fan-in 8; no spine level.
  ASSERT_EQ(Q.Levels.size(), 1u);
  expectLevel(Q.Levels[0], 1, 8, 30064771072, 0.07516192768);
  expectRel(Q.Time, 0.07516192768);
  // The nodes' contents are the same, so the leaf is the same, and the
  // spine only adds: spreading costs at least as much.
  EXPECT_GE(P.Time, Q.Time);
}

// The same two meshes for the other kinds (V = 2^31 B).
TEST(PlacementTest, IssueSpineCrossingOtherKinds) {
  ClusterSpec C = superPod();
  MeshSpec Spread = mesh(C, {{"S", 4}, {"Z", 16}, {"W", 2}, {"Y", 8}});
  MeshSpec Packed = mesh(C, {{"Z", 4}, {"W", 8}, {"Y", 8}});
  for (CollectiveKind K : {AG, RS}) {
    // Leaf: 8 * V * 7/8 = 7V = 15032385536 B / 400e9 = 37.58096384 ms.
    // Spine: 128 * V * 3/4 = 96V = 206158430208 B / 12.8e12 = 16.10612736 ms.
    CollectivePlacement P = placeCollective(Spread, K, {0, 2}, IssueV);
    ASSERT_EQ(P.Levels.size(), 2u);
    expectLevel(P.Levels[0], 1, 2, 15032385536, 0.03758096384);
    expectLevel(P.Levels[1], 2, 4, 206158430208, 0.01610612736);
    CollectivePlacement Q = placeCollective(Packed, K, {1}, IssueV);
    ASSERT_EQ(Q.Levels.size(), 1u);
    expectLevel(Q.Levels[0], 1, 8, 15032385536, 0.03758096384);
    EXPECT_EQ(P.Time, Q.Time);
  }
  // AllToAll above the node, V f (1 - f). Leaf: 8 groups, f = 1/8:
  // 8 * V * 1/8 * 7/8 = 7V/8 = 1879048192 B / 400e9 = 4.69762048 ms (the
  // old f (f_p - f) with f_p = 2/8 in the SU gave 8 * V/64 = V/8).
  // Spine: 128 groups, f = 1/4: 128 * V * 3/16 = 24V = 51539607552 B
  // / 12.8e12 = 4.02653184 ms. The leaf bounds.
  CollectivePlacement P = placeCollective(Spread, A2A, {0, 2}, IssueV);
  ASSERT_EQ(P.Levels.size(), 2u);
  expectLevel(P.Levels[0], 1, 2, 1879048192, 0.00469762048);
  expectLevel(P.Levels[1], 2, 4, 51539607552, 0.00402653184);
  EXPECT_EQ(P.BoundLevel, 1u);
  CollectivePlacement Q = placeCollective(Packed, A2A, {1}, IssueV);
  ASSERT_EQ(Q.Levels.size(), 1u);
  expectLevel(Q.Levels[0], 1, 8, 1879048192, 0.00469762048);
}

// An uneven spread over two spine units: [X:40] on 32-chip leaf units holds
// 32 chips in leaf unit 0 (nodes 0..3) and 8 in leaf unit 1 (node 4).
TEST(PlacementTest, UnevenSpreadAcrossUnits) {
  ClusterSpec C = smallUnits();
  MeshSpec M = mesh(C, {{"X", 40}});
  CollectivePlacement P = placeCollective(M, AG, {0}, 40e6);
  ASSERT_EQ(P.Levels.size(), 3u);
  // Node: 5 full nodes, d = 8: 40e6 * 7/8 = 35e6; T = 35e6 / 450e9.
  expectLevel(P.Levels[0], 0, 8, 35e6, 35e6 / 450e9);
  // Leaf: every node holds f = 8/40: 40e6 * 32/40 = 32e6; T = 32e6 / 400e9
  // = 80 us. Node 4 sits alone in its leaf unit and still sends 32e6 (the
  // within-unit rule gave it 0). Fan-in 4, in leaf unit 0.
  expectLevel(P.Levels[1], 1, 4, 32e6, 8e-5);
  // Spine: leaf unit 0 holds f = 32/40: 40e6 * 8/40 = 8e6; leaf unit 1
  // holds f = 8/40: 40e6 * 32/40 = 32e6. Max 32e6; T = 32e6 / 1e12 = 32 us.
  expectLevel(P.Levels[2], 2, 2, 32e6, 3.2e-5);
  // max(77.78, 80, 32) us: the leaf.
  EXPECT_EQ(P.BoundLevel, 1u);
  expectRel(P.Time, 8e-5);

  // AllReduce: twice every level: node 70e6, leaf 64e6 (160 us), spine
  // 64e6 (64 us); bound by the leaf.
  P = placeCollective(M, AR, {0}, 40e6);
  ASSERT_EQ(P.Levels.size(), 3u);
  expectLevel(P.Levels[1], 1, 4, 64e6, 1.6e-4);
  expectLevel(P.Levels[2], 2, 2, 64e6, 6.4e-5);
  expectRel(P.Time, 1.6e-4);
}

// AllToAll above the node on the same uneven spread, V = 1600e6 so that
// V / 40^2 = 1e6 and bytes = 1e6 x (members in) x (members out).
TEST(PlacementTest, AllToAllUnevenAboveTheNode) {
  ClusterSpec C = smallUnits();
  MeshSpec M = mesh(C, {{"X", 40}});
  CollectivePlacement P = placeCollective(M, A2A, {0}, 1600e6);
  ASSERT_EQ(P.Levels.size(), 3u);
  // Node (level-1 rule): f = 1/40, f_p = 8/40: 1e6 * 1 * 7 = 7e6.
  expectLevel(P.Levels[0], 0, 8, 7e6, 7e6 / 450e9);
  // Leaf: every node, f = 8/40: 1e6 * 8 * 32 = 256e6; T = 640 us. (Within
  // the leaf unit, f_p - f would give node 4 nothing and nodes 0..3
  // 1e6 * 8 * 24 = 192e6.)
  expectLevel(P.Levels[1], 1, 4, 256e6, 6.4e-4);
  // Spine: unit 0: 1e6 * 32 * 8 = 256e6; unit 1: 1e6 * 8 * 32 = 256e6;
  // T = 256e6 / 1e12 = 256 us.
  expectLevel(P.Levels[2], 2, 2, 256e6, 2.56e-4);
  EXPECT_EQ(P.BoundLevel, 1u);
  expectRel(P.Time, 6.4e-4);
}

// In-network reduction at an upper level reaches every uplink below it that
// the group's traffic climbs through; at the node it stays at the node.
TEST(PlacementTest, AllReduceReductionAboveTheLevel) {
  ClusterSpec C = superPod();
  C.Levels[2].InNetworkReduction = true; // the spine only
  MeshSpec Pod = mesh(C, {{"X", 1024}});
  CollectivePlacement P = placeCollective(Pod, AR, {0}, 1e12);
  ASSERT_EQ(P.Levels.size(), 3u);
  // Node: level 1 keeps its own rule, 2 * 1e12 * 7/8 = 1.75e12 / 450e9.
  expectLevel(P.Levels[0], 0, 8, 1.75e12, 1.75e12 / 450e9);
  // Leaf: the group crosses the spine, which reduces: V = 1e12 / 400e9 =
  // 2.5 s (not 2 * V * 127/128 = 1.984375e12).
  expectLevel(P.Levels[1], 1, 32, 1e12, 2.5);
  // Spine: V = 1e12 / 12.8e12 = 78.125 ms.
  expectLevel(P.Levels[2], 2, 4, 1e12, 0.078125);
  EXPECT_EQ(P.BoundLevel, 0u);
  expectRel(P.Time, 1.75e12 / 450e9);

  // [X:256] stays inside SU 0 and never reaches the spine's switches:
  // leaf 2 * 1e12 * 31/32 = 1.9375e12 / 400e9 = 4.84375 s; no spine level.
  MeshSpec Su = mesh(C, {{"X", 256}});
  P = placeCollective(Su, AR, {0}, 1e12);
  ASSERT_EQ(P.Levels.size(), 2u);
  expectLevel(P.Levels[1], 1, 32, 1.9375e12, 4.84375);
  expectRel(P.Time, 4.84375);

  // Reduction in the node's NVSwitch only: the node carries V = 1e12
  // (2.2222 s), the leaf its full 2 * V * 127/128 = 1.984375e12 (4.9609 s).
  C.Levels[2].InNetworkReduction = false;
  C.Levels[0].InNetworkReduction = true;
  Pod = mesh(C, {{"X", 1024}});
  P = placeCollective(Pod, AR, {0}, 1e12);
  expectLevel(P.Levels[0], 0, 8, 1e12, 1e12 / 450e9);
  expectLevel(P.Levels[1], 1, 32, 1.984375e12, 4.9609375);
  expectLevel(P.Levels[2], 2, 4, 1.5e12, 0.1171875);
}

// What the rule does NOT guarantee: with in-network reduction in the spine,
// spreading the issue's groups over the 4 SUs reaches the spine's switches
// and makes the AllReduce cheaper than packing them into one SU.
TEST(PlacementTest, SpineReductionMakesSpreadingCheaper) {
  ClusterSpec C = superPod();
  C.Levels[2].InNetworkReduction = true;
  MeshSpec Spread = mesh(C, {{"S", 4}, {"Z", 16}, {"W", 2}, {"Y", 8}});
  MeshSpec Packed = mesh(C, {{"Z", 4}, {"W", 8}, {"Y", 8}});
  // Spread: leaf 8 groups * V = 8V = 17179869184 B / 400e9 = 42.94967296 ms;
  // spine 128 groups * V = 128V = 274877906944 B / 12.8e12 = 21.47483648 ms.
  CollectivePlacement P = placeCollective(Spread, AR, {0, 2}, IssueV);
  ASSERT_EQ(P.Levels.size(), 2u);
  expectLevel(P.Levels[0], 1, 2, 17179869184, 0.04294967296);
  expectLevel(P.Levels[1], 2, 4, 274877906944, 0.02147483648);
  // Packed: no group crosses the spine: leaf 14V, 75.16192768 ms.
  CollectivePlacement Q = placeCollective(Packed, AR, {1}, IssueV);
  ASSERT_EQ(Q.Levels.size(), 1u);
  expectLevel(Q.Levels[0], 1, 8, 30064771072, 0.07516192768);
  EXPECT_LT(P.Time, Q.Time);
}

/// The packed / spread pair of PlacementProperty below: groups of n nodes,
/// q members per node, either in one SU or over s SUs (n/s nodes in each).
/// Both fill s SUs of \p NodesPerSu nodes of \p K chips, and every node
/// holds q members of each of K/q groups in both.
MeshSpec packedMesh(const ClusterSpec &C, int64_t NodesPerSu, int64_t K,
                    int64_t N, int64_t Q, int64_t S) {
  return mesh(C, {{"Z", NodesPerSu * S / N}, {"W", N}, {"Q", Q}, {"Y", K / Q}});
}
MeshSpec spreadMesh(const ClusterSpec &C, int64_t NodesPerSu, int64_t K,
                    int64_t N, int64_t Q, int64_t S) {
  return mesh(C, {{"S", S},
                  {"Z", NodesPerSu * S / N},
                  {"W", N / S},
                  {"Q", Q},
                  {"Y", K / Q}});
}

/// Checks the guarantee derived in docs/cost-model.md §3 for one pair: the
/// levels up to the leaf carry the same bytes (a node's uplink depends only
/// on what the node holds), the spine carries nothing when packed, so the
/// spread layout is never faster; and more SUs (s' > s, even spreads) never
/// make it faster either: each SU's spine bytes grow as (s - 1) or 1 - 1/s.
void expectSpreadCostsMore(const ClusterSpec &C, CollectiveKind Kind,
                           int64_t NodesPerSu, int64_t K, int64_t N, int64_t Q,
                           int64_t S, double &Prev) {
  SCOPED_TRACE(::testing::Message() << "kind " << unsigned(Kind) << " K " << K
                                    << " n " << N << " q " << Q << " s " << S);
  CollectivePlacement Packed =
      placeCollective(packedMesh(C, NodesPerSu, K, N, Q, S), Kind, {1, 2}, 1e9);
  CollectivePlacement Spread = placeCollective(
      spreadMesh(C, NodesPerSu, K, N, Q, S), Kind, {0, 2, 3}, 1e9);
  for (const LevelTraffic &T : Packed.Levels)
    EXPECT_LT(T.Level, 2u) << "a packed group crosses the spine";
  auto BytesAt = [](const CollectivePlacement &P, unsigned Level) {
    for (const LevelTraffic &T : P.Levels)
      if (T.Level == Level)
        return T.Bytes;
    return 0.0;
  };
  for (unsigned Level : {0u, 1u})
    expectRel(BytesAt(Spread, Level), BytesAt(Packed, Level));
  EXPECT_GE(Spread.BandwidthTime, Packed.BandwidthTime);
  EXPECT_GE(Spread.BandwidthTime, Prev);
  Prev = Spread.BandwidthTime;
}

// The monotonicity the rule guarantees, over a grid of layouts on the
// SuperPod and on a small cluster whose slow spine often binds: moving whole
// nodes (same contents) from one SU to several never lowers a collective's
// bandwidth time, for every kind, and for AllReduce with in-network
// reduction at or below the leaf. (Spine reduction breaks it:
// SpineReductionMakesSpreadingCheaper. Latency is left out: fewer nodes per
// SU means fewer hops there.)
TEST(PlacementProperty, SpreadingNodesOverMoreSusNeverHelps) {
  ClusterSpec Pod = superPod();
  ClusterSpec Small =
      cluster({level("node", 4, 450e9, 0), level("leaf", 4, 400e9, 0),
               level("spine", 4, 100e9, 0)});
  unsigned Pairs = 0;
  for (bool Reduce : {false, true})
    for (auto [C, NodesPerSu] : {std::pair(&Pod, 32), std::pair(&Small, 4)}) {
      C->Levels[0].InNetworkReduction = C->Levels[1].InNetworkReduction =
          Reduce;
      int64_t K = C->Levels[0].Size;
      for (CollectiveKind Kind : {AG, RS, AR, A2A})
        for (int64_t Q = 1; Q <= K; Q *= 2)
          for (int64_t N = 2; N <= NodesPerSu; N *= 2) {
            double Prev = 0;
            for (int64_t S = 1; S <= 4 && S <= N; S *= 2, ++Pairs)
              expectSpreadCostsMore(*C, Kind, NodesPerSu, K, N, Q, S, Prev);
          }
    }
  EXPECT_EQ(Pairs, 2u * 4 * (4 * 14 + 3 * 5)); // the grid was walked
}

} // namespace
