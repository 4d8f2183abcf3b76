//===- NetworkTest.cpp - The Network interface, hand-derived
//---------------===//
//
// Tests passes/Network.h through its first implementation, the switched
// hierarchy, and the per-kind facts of ir/CollectiveKinds.def it prices
// from. Every expected number is derived by hand from COST-MODEL.md §3 (the
// node prices (d-1)/d of V per ring pass, a level above prices 1 - f per
// pass, latency x hops per level); the arithmetic is next to it.
//
//===----------------------------------------------------------------------===//
#include "passes/Placement.h"
#include "passes/SwitchedNetwork.h"
#include "gtest/gtest.h"
#include <cmath>

using namespace shardc;

namespace {

LevelSpec level(const char *Name, int64_t Size, double UplinkBw,
                double Latency) {
  LevelSpec L;
  L.Name = Name;
  L.Size = Size;
  L.UplinkBw = UplinkBw;
  L.Calibration.Latency = Latency;
  return L;
}

/// Two levels: 8-chip nodes at 450 GB/s, 1 us a hop, in a 32-node leaf at
/// 400 GB/s, 5 us a hop.
MeshSpec twoLevelMesh(std::initializer_list<MeshAxis> Axes) {
  auto C = std::make_shared<ClusterSpec>();
  C->Name = "two-level";
  C->Levels.push_back(level("node", 8, 450e9, 1e-6));
  C->Levels.push_back(level("leaf", 32, 400e9, 5e-6));
  MeshSpec M;
  M.Name = "m";
  M.Cluster = C;
  M.Axes.assign(Axes.begin(), Axes.end());
  return M;
}

void expectRel(double Actual, double Expected) {
  EXPECT_NEAR(Actual, Expected, 1e-12 * std::abs(Expected))
      << "actual " << Actual << " expected " << Expected;
}

// The kinds' own facts, whatever the network: a member among n moves
// (n-1)/n of V per ring pass, (n-1)/n^2 in an exchange.
TEST(NetworkTest, MemberBytesPerKind) {
  auto Bytes = [](CollectiveKind K, int64_t N) {
    return memberBytesPerV(collectiveTraits(K), N, N);
  };
  EXPECT_EQ(Bytes(CollectiveKind::AllGather, 8), 7.0 / 8);
  EXPECT_EQ(Bytes(CollectiveKind::ReduceScatter, 8), 7.0 / 8);
  EXPECT_EQ(Bytes(CollectiveKind::AllReduce, 8), 14.0 / 8);
  EXPECT_EQ(Bytes(CollectiveKind::AllToAll, 8), 7.0 / 64);
  EXPECT_EQ(Bytes(CollectiveKind::AllReduce, 1), 0);
  EXPECT_EQ(collectiveName(CollectiveKind::AllToAll), "AllToAll");
  // ReduceScatter is priced as AllGather; AllReduce is not.
  EXPECT_EQ(trafficKey(collectiveTraits(CollectiveKind::ReduceScatter)),
            trafficKey(collectiveTraits(CollectiveKind::AllGather)));
  EXPECT_NE(trafficKey(collectiveTraits(CollectiveKind::AllReduce)),
            trafficKey(collectiveTraits(CollectiveKind::AllGather)));
}

// An AllGather over X: 16 (two nodes of one leaf), V = 1.6e9 B.
TEST(NetworkTest, AllGatherOverTwoLevels) {
  MeshSpec M = twoLevelMesh({{"X", 16}});
  std::unique_ptr<Network> Net = createNetwork(M);
  ASSERT_NE(dynamic_cast<const SwitchedNetwork *>(Net.get()), nullptr);
  CollectivePlacement P =
      Net->placeCollective(CollectiveKind::AllGather, {0}, 1.6e9);
  ASSERT_EQ(P.Levels.size(), 2u);
  // node: d = 8, bytes = 1.6e9 x 7/8 = 1.4e9, T = 1.4e9 / 450e9 = 3.111 ms;
  // 7 hops x 1 us.
  EXPECT_EQ(P.Levels[0].Level, 0u);
  EXPECT_EQ(P.Levels[0].FanIn, 8);
  expectRel(P.Levels[0].Bytes, 1.4e9);
  expectRel(P.Levels[0].Time, 1.4e9 / 450e9);
  expectRel(P.Levels[0].LatencyTime, 7e-6);
  // leaf: f = 8/16, bytes = 1.6e9 x (1 - 1/2) = 0.8e9, T = 0.8e9 / 400e9 =
  // 2 ms; two nodes: 1 hop x 5 us.
  EXPECT_EQ(P.Levels[1].Level, 1u);
  EXPECT_EQ(P.Levels[1].FanIn, 2);
  expectRel(P.Levels[1].Bytes, 0.8e9);
  expectRel(P.Levels[1].Time, 2e-3);
  expectRel(P.Levels[1].LatencyTime, 5e-6);
  // T = max(3.111, 2) ms + 12 us, bound at the node; one protocol.
  EXPECT_EQ(P.BoundLevel, 0u);
  expectRel(P.Time, 1.4e9 / 450e9 + 12e-6);
  EXPECT_FALSE(P.SmallProtocol.has_value());
}

// The same group as an AllReduce: two ring passes, so twice the bytes and
// twice the hops on each level: node 2.8e9 B (6.22 ms) and 14 hops x 1 us,
// leaf 1.6e9 B (4 ms) and 2 hops x 5 us; T = 2.8e9 / 450e9 + 24 us.
TEST(NetworkTest, AllReduceIsTwoPasses) {
  MeshSpec M = twoLevelMesh({{"X", 16}});
  std::unique_ptr<Network> Net = createNetwork(M);
  CollectivePlacement P =
      Net->placeCollective(CollectiveKind::AllReduce, {0}, 1.6e9);
  ASSERT_EQ(P.Levels.size(), 2u);
  expectRel(P.Levels[0].Bytes, 2.8e9);
  expectRel(P.Levels[1].Bytes, 1.6e9);
  expectRel(P.Time, 2.8e9 / 450e9 + 14e-6 + 10e-6);
}

// A pipeline send along P in [P: 2, X: 8]: stage 0 is node 0, stage 1 node
// 1, so every chip's partner is in the other node. The node's links carry
// nothing; node 0's leaf uplink carries its 8 chips' bytes, one hop.
TEST(NetworkTest, SendAcrossNodes) {
  MeshSpec M = twoLevelMesh({{"P", 2}, {"X", 8}});
  std::unique_ptr<Network> Net = createNetwork(M);
  PlacementCoefficients C = Net->sendCoefficients(0);
  ASSERT_EQ(C.size(), 1u);
  EXPECT_EQ(C[0].Level, 1u);
  EXPECT_EQ(C[0].BytesPerV, 8);
  EXPECT_EQ(C[0].Hops, 1);
  // 1e9 B a chip: 8e9 B / 400e9 = 20 ms, + 5 us.
  expectRel(Net->placeSend(0, 1e9).Time, 20e-3 + 5e-6);
  // Along X the partner is in the same node: 1 B per B at the node.
  CollectivePlacement X = Net->placeSend(1, 1e9);
  ASSERT_EQ(X.Levels.size(), 1u);
  EXPECT_EQ(X.Levels[0].Level, 0u);
  expectRel(X.Time, 1e9 / 450e9 + 1e-6);
}

// The cache prices through the mesh's network and shares an entry between
// kinds priced alike.
TEST(NetworkTest, CacheMatchesNetwork) {
  MeshSpec M = twoLevelMesh({{"X", 16}});
  PlacementCache Cache(M);
  std::unique_ptr<Network> Net = createNetwork(M);
  for (CollectiveKind K :
       {CollectiveKind::ReduceScatter, CollectiveKind::AllReduce,
        CollectiveKind::AllToAll, CollectiveKind::AllGather})
    EXPECT_EQ(Cache.place(K, llvm::ArrayRef<unsigned>{0}, 3e8).Time,
              Net->placeCollective(K, {0}, 3e8).Time);
}

} // namespace
