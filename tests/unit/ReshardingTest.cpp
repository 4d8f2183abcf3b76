//===- ReshardingTest.cpp - COST-MODEL.md §2's table, step by step --------===//
//
// Each test builds a source and a target type on mesh [X: 2, Y: 4] and checks
// the whole list of steps planReshard returns: kinds, axes, dims, order.
//
//===----------------------------------------------------------------------===//
#include "ir/Resharding.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

using namespace shardc;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::IsEmpty;

namespace {

constexpr AxisId X = 0, Y = 1;
constexpr DimId B = 0, F = 1;

/// bf16[B, F] with the given axes on B and F and the given unreduced axes.
ShardType type(llvm::ArrayRef<AxisId> OnB, llvm::ArrayRef<AxisId> OnF,
               llvm::ArrayRef<AxisId> Unreduced = {}) {
  ShardType T;
  T.Elt = DType::bf16;
  T.Dims.push_back({B, 1024, AxisList(OnB.begin(), OnB.end())});
  T.Dims.push_back({F, 4096, AxisList(OnF.begin(), OnF.end())});
  T.Unreduced = AxisSet::of(Unreduced);
  return T;
}

auto step(StepKind K, std::vector<AxisId> Axes, int Dim, int DstDim = -1) {
  return ::testing::AllOf(
      Field(&ReshardStep::Kind, K),
      Field(&ReshardStep::Axes,
            ::testing::ElementsAreArray(Axes.begin(), Axes.end())),
      Field(&ReshardStep::Dim, Dim), Field(&ReshardStep::DstDim, DstDim));
}

TEST(Resharding, SameTypeNeedsNothing) {
  auto S = planReshard(type({X}, {Y}), type({X}, {Y}));
  ASSERT_TRUE(S);
  EXPECT_THAT(*S, IsEmpty());
}

TEST(Resharding, TableRowByRow) {
  EXPECT_THAT(*planReshard(type({}, {}), type({X}, {})),
              ElementsAre(step(StepKind::Slice, {X}, 0)));
  EXPECT_THAT(*planReshard(type({X}, {}), type({}, {})),
              ElementsAre(step(StepKind::AllGather, {X}, 0)));
  EXPECT_THAT(*planReshard(type({X}, {}), type({}, {X})),
              ElementsAre(step(StepKind::AllToAll, {X}, 0, 1)));
  EXPECT_THAT(*planReshard(type({}, {}, {X}), type({}, {})),
              ElementsAre(step(StepKind::AllReduce, {X}, -1)));
  EXPECT_THAT(*planReshard(type({}, {}, {X}), type({}, {X})),
              ElementsAre(step(StepKind::ReduceScatter, {X}, 1)));
}

TEST(Resharding, UnreducedFromNothingIsImpossible) {
  EXPECT_FALSE(planReshard(type({}, {}), type({}, {}, {X})));
  EXPECT_FALSE(planReshard(type({X}, {}), type({}, {}, {X})));
}

TEST(Resharding, SameKindOnSameDimIsFused) {
  EXPECT_THAT(*planReshard(type({X, Y}, {}), type({}, {})),
              ElementsAre(step(StepKind::AllGather, {X, Y}, 0)));
  EXPECT_THAT(*planReshard(type({}, {}, {X, Y}), type({}, {})),
              ElementsAre(step(StepKind::AllReduce, {X, Y}, -1)));
}

TEST(Resharding, OrderIsSliceReduceScatterAllReduceAllToAllAllGather) {
  // X: shards B -> unused (AllGather); Y: {U} -> shards F (ReduceScatter).
  EXPECT_THAT(*planReshard(type({X}, {}, {Y}), type({}, {Y})),
              ElementsAre(step(StepKind::ReduceScatter, {Y}, 1),
                          step(StepKind::AllGather, {X}, 0)));
  // X: {U} -> unused (AllReduce); Y: shards B -> F (AllToAll).
  EXPECT_THAT(*planReshard(type({Y}, {}, {X}), type({}, {Y})),
              ElementsAre(step(StepKind::AllReduce, {X}, -1),
                          step(StepKind::AllToAll, {Y}, 0, 1)));
  // X: unused -> shards F (slice first); Y: shards B -> unused.
  EXPECT_THAT(*planReshard(type({Y}, {}), type({}, {X})),
              ElementsAre(step(StepKind::Slice, {X}, 1),
                          step(StepKind::AllGather, {Y}, 0)));
}

TEST(Resharding, EachStepSeesTheArrayAsItIsThen) {
  auto S = *planReshard(type({X}, {}, {Y}), type({}, {Y}));
  ASSERT_EQ(S.size(), 2u);
  EXPECT_EQ(S[0].Before, type({X}, {}, {Y}));
  EXPECT_EQ(S[0].After, type({X}, {Y}));
  EXPECT_EQ(S[1].Before, type({X}, {Y}));
  EXPECT_EQ(S[1].After, type({}, {Y}));
}

TEST(Resharding, AxisOrderChangeIsAnAllToAllInPlace) {
  EXPECT_THAT(*planReshard(type({X, Y}, {}), type({Y, X}, {})),
              ElementsAre(step(StepKind::AllToAll, {Y, X}, 0, 0)));
  // I_Y -> I_XY: slicing X appends it after Y, so the order is fixed after.
  auto S = *planReshard(type({Y}, {}), type({X, Y}, {}));
  EXPECT_THAT(S, ElementsAre(step(StepKind::Slice, {X}, 0),
                             step(StepKind::AllToAll, {X, Y}, 0, 0)));
  EXPECT_EQ(S.back().After, type({X, Y}, {}));
}

TEST(Resharding, AppendedAxesFollowTheTargetOrder) {
  EXPECT_THAT(*planReshard(type({}, {}), type({Y, X}, {})),
              ElementsAre(step(StepKind::Slice, {Y, X}, 0)));
}

} // namespace
