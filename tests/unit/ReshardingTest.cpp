//===- ReshardingTest.cpp - COST-MODEL.md §2's table, step by step --------===//
//
// Each test builds a source and a target type on mesh [X: 2, Y: 4] and checks
// the whole list of steps planReshard returns: kinds, axes, dims, order; and
// the places planConversions gives a dtype change.
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

ShardType typed(DType T, llvm::ArrayRef<AxisId> OnB, llvm::ArrayRef<AxisId> OnF,
                llvm::ArrayRef<AxisId> Unreduced = {}) {
  ShardType S = type(OnB, OnF, Unreduced);
  S.Elt = T;
  return S;
}

TEST(Resharding, AConversionGoesBeforeEachCollectiveOrLast) {
  // {U_Y} over F_X: ReduceScatter Y onto B, then AllGather X: three places.
  auto Plans = planConversions(typed(DType::bf16, {}, {X}, {Y}),
                               typed(DType::fp32, {Y}, {}));
  ASSERT_EQ(Plans.size(), 3u);
  EXPECT_THAT(Plans[0], ElementsAre(step(StepKind::Convert, {}, -1),
                                    step(StepKind::ReduceScatter, {Y}, 0),
                                    step(StepKind::AllGather, {X}, 1)));
  EXPECT_THAT(Plans[1], ElementsAre(step(StepKind::ReduceScatter, {Y}, 0),
                                    step(StepKind::Convert, {}, -1),
                                    step(StepKind::AllGather, {X}, 1)));
  EXPECT_THAT(Plans[2], ElementsAre(step(StepKind::ReduceScatter, {Y}, 0),
                                    step(StepKind::AllGather, {X}, 1),
                                    step(StepKind::Convert, {}, -1)));
  // Steps before the conversion move the source dtype, the rest the target.
  const ReshardSteps &Mid = Plans[1];
  EXPECT_EQ(Mid[0].Before, typed(DType::bf16, {}, {X}, {Y}));
  EXPECT_EQ(Mid[0].After, typed(DType::bf16, {Y}, {X}));
  EXPECT_EQ(Mid[1].Before, typed(DType::bf16, {Y}, {X}));
  EXPECT_EQ(Mid[1].After, typed(DType::fp32, {Y}, {X}));
  EXPECT_EQ(Mid[2].Before, typed(DType::fp32, {Y}, {X}));
  EXPECT_EQ(Mid[2].After, typed(DType::fp32, {Y}, {}));
}

TEST(Resharding, AConversionNeverGoesBeforeASlice) {
  // Slice X onto F, then AllGather Y: converting before the free slice
  // would only convert more.
  auto Plans =
      planConversions(typed(DType::fp32, {Y}, {}), typed(DType::bf16, {}, {X}));
  ASSERT_EQ(Plans.size(), 2u);
  EXPECT_THAT(Plans[0], ElementsAre(step(StepKind::Slice, {X}, 1),
                                    step(StepKind::Convert, {}, -1),
                                    step(StepKind::AllGather, {Y}, 0)));
  EXPECT_EQ(Plans[0][1].Before, typed(DType::fp32, {Y}, {X}));
  EXPECT_THAT(Plans[1], ElementsAre(step(StepKind::Slice, {X}, 1),
                                    step(StepKind::AllGather, {Y}, 0),
                                    step(StepKind::Convert, {}, -1)));
  // Only a slice, or nothing to move: one place, at the end.
  auto Sliced =
      planConversions(typed(DType::fp32, {}, {}), typed(DType::bf16, {X}, {}));
  ASSERT_EQ(Sliced.size(), 1u);
  EXPECT_THAT(Sliced[0], ElementsAre(step(StepKind::Slice, {X}, 0),
                                     step(StepKind::Convert, {}, -1)));
  auto Same =
      planConversions(typed(DType::fp32, {X}, {}), typed(DType::bf16, {X}, {}));
  ASSERT_EQ(Same.size(), 1u);
  EXPECT_THAT(Same[0], ElementsAre(step(StepKind::Convert, {}, -1)));
  EXPECT_EQ(Same[0][0].After, typed(DType::bf16, {X}, {}));
  // No plan for the sharding, none with a conversion.
  EXPECT_THAT(planConversions(typed(DType::fp32, {}, {}),
                              typed(DType::bf16, {}, {}, {X})),
              IsEmpty());
}

} // namespace
