//===- ScheduleTest.cpp - The two-stream timeline in closed form ----------===//
//
// passes/Schedule.h against hand-derived timelines and against a plain
// simulation of the same pieces unrolled: compute runs in order on one
// stream; each sync starts when it is issued and the communication stream is
// free, and runs to completion.
//
//===----------------------------------------------------------------------===//
#include "passes/Schedule.h"
#include "tests/support/ProgramGenerator.h"
#include "gtest/gtest.h"
#include <memory>
#include <vector>

using namespace shardc;

namespace {

using E = StreamEffect;

TEST(Schedule, ASyncAfterTheLastComputeIsExposed) {
  // compute 4, then a sync of 2: the stream is busy 2 past the end.
  E S = E::compute(4).then(E::sync(2));
  EXPECT_DOUBLE_EQ(S.T, 4);
  EXPECT_DOUBLE_EQ(S.backlogAfter(0), 2);
}

TEST(Schedule, ASyncUnderLongerComputeIsHidden) {
  E S = E::sync(2).then(E::compute(4));
  EXPECT_DOUBLE_EQ(S.backlogAfter(0), 0);
  // Partly hidden: 3 - 1 = 2 left.
  EXPECT_DOUBLE_EQ(E::sync(3).then(E::compute(1)).backlogAfter(0), 2);
}

TEST(Schedule, SyncsQueueOnTheCommunicationStream) {
  // Two syncs of 2 issued 1 apart, then 1 of compute: the second starts at
  // 2 (when the first ends), ends at 4; the compute ends at 2: backlog 2.
  E S = E::sync(2).then(E::compute(1)).then(E::sync(2)).then(E::compute(1));
  EXPECT_DOUBLE_EQ(S.T, 2);
  EXPECT_DOUBLE_EQ(S.backlogAfter(0), 2);
  // A backlog entering the piece delays both: 1 more.
  EXPECT_DOUBLE_EQ(S.backlogAfter(1), 3);
}

TEST(Schedule, TheCaseT1Timeline) {
  // CASES.md T-1's backward: 8 layers of dh, dW_out (sync 2.088), dx,
  // dW_in (sync 2.088), each contraction 4.447: every sync but the last is
  // hidden; the last is exposed in full.
  E Layer = E::compute(4.447)
                .then(E::compute(4.447))
                .then(E::sync(2.088))
                .then(E::compute(4.447))
                .then(E::compute(4.447))
                .then(E::sync(2.088));
  E Backward = Layer.times(8);
  EXPECT_DOUBLE_EQ(Backward.T, 8 * 4 * 4.447);
  EXPECT_DOUBLE_EQ(Backward.backlogAfter(0), 2.088);
}

TEST(Schedule, ARepeatThatFallsBehindGrowsItsBacklog) {
  // Each iteration computes 1 and syncs 3: the stream falls 2 behind per
  // iteration. After 5: the first sync ends at 1 + 3 = 4, each next one 3
  // later: 4 + 4 * 3 = 16, against compute 5: backlog 11.
  E It = E::compute(1).then(E::sync(3));
  EXPECT_DOUBLE_EQ(It.times(5).backlogAfter(0), 11);
}

/// A random piece of timeline as a tree, and its plain simulation.
struct Piece {
  enum { Compute, Sync, Seq, Rep } Kind;
  double Time = 0;
  int64_t N = 1;
  std::vector<Piece> Kids;

  E effect() const {
    switch (Kind) {
    case Compute:
      return E::compute(Time);
    case Sync:
      return E::sync(Time);
    case Seq: {
      E S;
      for (const Piece &P : Kids)
        S = S.then(P.effect());
      return S;
    }
    case Rep:
      return Kids[0].effect().times(N);
    }
    return {};
  }
  /// Advances compute time \p Now and the stream's free time \p Free.
  void simulate(double &Now, double &Free) const {
    switch (Kind) {
    case Compute:
      Now += Time;
      return;
    case Sync:
      Free = std::max(Free, Now) + Time;
      return;
    case Seq:
      for (const Piece &P : Kids)
        P.simulate(Now, Free);
      return;
    case Rep:
      for (int64_t I = 0; I < N; ++I)
        Kids[0].simulate(Now, Free);
      return;
    }
  }
};

Piece randomPiece(testgen::SplitMix64 &C, unsigned Depth) {
  unsigned K = unsigned(C.between(0, Depth > 2 ? 1 : 3));
  Piece P{K == 0   ? Piece::Compute
          : K == 1 ? Piece::Sync
          : K == 2 ? Piece::Seq
                   : Piece::Rep};
  P.Time = double(C.between(0, 20)) / 4;
  if (P.Kind == Piece::Seq)
    for (unsigned I = 0, E = unsigned(C.between(1, 5)); I < E; ++I)
      P.Kids.push_back(randomPiece(C, Depth + 1));
  if (P.Kind == Piece::Rep) {
    P.N = int64_t(C.between(0, 6));
    P.Kids.push_back(randomPiece(C, Depth + 1));
  }
  return P;
}

TEST(Schedule, ClosedFormEqualsThePlainSimulation) {
  testgen::SplitMix64 C(20261123);
  for (unsigned Trial = 0; Trial < 2000; ++Trial) {
    Piece P = randomPiece(C, 0);
    double Now = 0, Free = 0;
    P.simulate(Now, Free);
    E S = P.effect();
    EXPECT_NEAR(S.T, Now, 1e-9) << "trial " << Trial;
    EXPECT_NEAR(S.backlogAfter(0), std::max(0.0, Free - Now), 1e-9)
        << "trial " << Trial;
  }
}

} // namespace
