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
#include <map>
#include <memory>
#include <tuple>
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
  Piece P;
  P.Kind = K == 0   ? Piece::Compute
           : K == 1 ? Piece::Sync
           : K == 2 ? Piece::Seq
                    : Piece::Rep;
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

//===----------------------------------------------------------------------===//
// The simulated pipeline (COST-MODEL.md §6.3)
//===----------------------------------------------------------------------===//

namespace {

/// p identical stages of v chunks, each chunk's forward tf / v and
/// backward tb / v.
PipelineTimes identical(unsigned P, unsigned V, double Tf, double Tb) {
  PipelineTimes T;
  T.Fwd.assign(P, std::vector<double>(V, Tf / V));
  T.Bwd.assign(P, std::vector<double>(V, Tb / V));
  T.BwdFirst = T.Bwd;
  return T;
}

TEST(Pipeline, IdenticalStagesMatchTheClosedForm) {
  // gpipe and 1f1b: (m + p - 1) x (t_f + t_b).
  for (auto S : {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB})
    for (unsigned P : {1u, 2u, 4u, 8u})
      for (int64_t M : {1, 3, 4, 8, 32}) {
        PipelineRun R = simulatePipeline(S, M, identical(P, 1, 3, 5));
        EXPECT_NEAR(R.Makespan, double(M + P - 1) * 8, 1e-9)
            << scheduleName(S).str() << " p=" << P << " m=" << M;
        EXPECT_EQ(R.Slices.size(), size_t(2 * P * M));
      }
}

TEST(Pipeline, InterleavedMatchesItsClosedForm) {
  // (m + (p - 1) / v) x (t_f + t_b), m a multiple of p (Megatron-LM's
  // requirement for the interleaved schedule).
  for (unsigned P : {2u, 4u, 8u})
    for (unsigned V : {2u, 3u, 4u})
      for (int64_t K : {1, 2, 4}) {
        int64_t M = K * P;
        PipelineRun R = simulatePipeline(PipelineSchedule::Interleaved, M,
                                         identical(P, V, 3, 5));
        EXPECT_NEAR(R.Makespan, (double(M) + double(P - 1) / V) * 8, 1e-9)
            << "p=" << P << " v=" << V << " m=" << M;
        EXPECT_EQ(R.Slices.size(), size_t(2 * P * V * M));
      }
}

TEST(Pipeline, FewerMicrobatchesThanStages) {
  // m < p: every schedule still runs each microbatch through every stage;
  // with identical stages the makespan is the same closed form.
  PipelineRun R =
      simulatePipeline(PipelineSchedule::OneFOneB, 2, identical(4, 1, 1, 2));
  EXPECT_NEAR(R.Makespan, (2 + 4 - 1) * 3.0, 1e-9);
  // The bubble of the busiest stage: 1 - 2 x 3 / 15.
  EXPECT_NEAR(1 - R.Busy[0] / R.Makespan, 0.6, 1e-9);
}

TEST(Pipeline, UnevenStagesAreSimulatedNotLookedUp) {
  // CASES.md T-4: per-stage t_f + t_b of 10.40 / 13.08 / 13.08 / 10.40 ms
  // (t_f 3.268 + the 2.684 ms send on stages 0-2, t_b 4.447 + the send on
  // stages 1-3), m = 8 under 1F1B: 135.86 ms, where the closed form
  // Σ + (m - 1) x max would say 138.55.
  double Tf = 3.268, Tb = 4.447, Send = 2.684;
  PipelineTimes T = identical(4, 1, 0, 0);
  for (unsigned S = 0; S < 4; ++S) {
    T.Fwd[S][0] = Tf + (S < 3 ? Send : 0);
    T.Bwd[S][0] = T.BwdFirst[S][0] = Tb + (S > 0 ? Send : 0);
  }
  PipelineRun R = simulatePipeline(PipelineSchedule::OneFOneB, 8, T);
  EXPECT_NEAR(R.Makespan, 135.86, 0.01);
  double Sum = 0, Max = 0;
  for (unsigned S = 0; S < 4; ++S) {
    Sum += T.Fwd[S][0] + T.Bwd[S][0];
    Max = std::max(Max, T.Fwd[S][0] + T.Bwd[S][0]);
  }
  EXPECT_GT(Sum + 7 * Max, R.Makespan + 2);
}

TEST(Pipeline, SlicesRespectTheirInputsAndStages) {
  // Every forward starts after the previous stage's forward of the same
  // microbatch, every backward after the next stage's backward, and no
  // two slices of a stage overlap.
  PipelineTimes T = identical(4, 2, 3, 5);
  T.Fwd[2][1] = 7; // one slow chunk
  PipelineRun R = simulatePipeline(PipelineSchedule::Interleaved, 8, T);
  std::map<std::tuple<unsigned, int64_t, bool>, const PipelineSlice *> At;
  for (const PipelineSlice &S : R.Slices)
    At[{S.Chunk * 4 + S.Stage, S.Microbatch, S.Backward}] = &S;
  auto End = [&](unsigned Q, int64_t Mb, bool B) {
    return At[std::make_tuple(Q, Mb, B)]->End;
  };
  for (const PipelineSlice &S : R.Slices) {
    unsigned Q = S.Chunk * 4 + S.Stage;
    if (!S.Backward && Q > 0) {
      EXPECT_GE(S.Start, End(Q - 1, S.Microbatch, false) - 1e-12);
    }
    if (S.Backward && Q + 1 < 8) {
      EXPECT_GE(S.Start, End(Q + 1, S.Microbatch, true) - 1e-12);
    }
  }
  std::vector<double> Free(4, 0);
  for (const PipelineSlice &S : R.Slices) { // per stage in its order
    EXPECT_GE(S.Start, Free[S.Stage] - 1e-12);
    Free[S.Stage] = S.End;
  }
}

} // namespace
