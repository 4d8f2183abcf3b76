//===- PipelinePropertyTest.cpp - Pipelined steps, generated --------------===//
//
// Seeded programs of a pipelined MLP stack (LANGUAGE.md §9) on
// DGX_H100_SuperPod with [D: d, P: p, T: t], a random number of layers per
// stage, microbatches (fewer than the stages too), schedule (gpipe, 1f1b,
// interleaved with 2 or 3 chunks), optional statements before and after the
// pipelined repeat, tensor parallelism, ZeRO, and syncs overlapped or after
// the backward (`sync = after_backward`). Properties of the
// simulated schedule (COST-MODEL.md §6.3, §7) on every one:
//  - it compiles, with a pipeline of p stages, and its costs are sane;
//  - T_pipe is at least every stage's m x (t_f + t_b) (a stage runs all
//    its slices) and at most m x Σ stages (everything one after another);
//  - the bubble is in [0, 1) and is 1 - busy / T_pipe of its stage;
//  - the first stage holds exactly the microbatches in flight the schedule
//    gives (m, min(m, p), or min(m, p)·(1 + (p - 1)/(p·v)));
//  - the timeline (report/Timeline.h, what --format=trace draws) ends at the
//    report's step time: the two models of the communication stream agree
//    under every ZeRO stage (syncs once per step or every microbatch).
//
//===----------------------------------------------------------------------===//
#include "report/Timeline.h"
#include "shardc/Config.h"
#include "tests/support/CompileInProcess.h"
#include "tests/support/ProgramGenerator.h"
#include "gtest/gtest.h"
#include <fmt/format.h>

using namespace shardc;
using namespace shardc::testgen;

namespace {

constexpr uint64_t NumSeeds = 60;

struct PipelineProgram {
  int64_t D = 1, P = 2, T = 1, PerStage = 1, M = 1, Chunks = 1;
  std::string Schedule = "1f1b";
  bool Pre = false, Post = false, Tp = false, SyncAfter = false,
       ScatterGather = false;
  int Zero = 0;

  std::string render() const {
    std::string S = "import \"nvidia.shard\";\n";
    S += fmt::format("mesh M = DGX_H100_SuperPod[D: {}, P: {}, T: {}];\n", D, P,
                     T);
    S += fmt::format("dim B = {}, E = 1024, F = 4096;\n", 64 * D);
    S += "tensor x : bf16[B_D, E];\n";
    if (Pre)
      S += "param g0 : bf16[E];\ny0[B_D, E] = x * g0;\nx[B_D, E] = y0;\n";
    S += fmt::format("repeat {} over P {{\n", P * PerStage * Chunks);
    if (Tp)
      S += "  param W_in : bf16[E, F_T];\n  param W_out : bf16[F_T, E];\n"
           "  h[B_D, F_T] = x * W_in;\n  o[B_D, E]{U_T} = h * W_out;\n"
           "  x[B_D, E] = o;\n";
    else
      S += "  param W_in : bf16[E, F];\n  param W_out : bf16[F, E];\n"
           "  h[B_D, F] = x * W_in;\n  x[B_D, E] = h * W_out;\n";
    S += "}\n";
    if (Post)
      S += "param W_head : bf16[E, F];\nlogits[B_D, F] = x * W_head;\n";
    S += fmt::format("train {{ microbatches = {}; schedule = {}; chunks = {}; "
                     "zero = {};{}{} }}\n",
                     M, Schedule, Chunks, Zero,
                     SyncAfter ? " sync = after_backward;" : "",
                     ScatterGather ? " scatter_gather = true;" : "");
    return S;
  }
};

PipelineProgram program(uint64_t Seed) {
  SplitMix64 C(Seed);
  PipelineProgram G;
  G.P = int64_t(1) << C.between(1, 3); // 2, 4, 8
  G.T = int64_t(1) << C.between(0, 3); // 1 .. 8
  G.D = int64_t(1) << C.between(0, 3);
  G.PerStage = int64_t(C.between(1, 3));
  G.M = int64_t(C.between(1, 12));
  static const char *Schedules[] = {"gpipe", "1f1b", "interleaved"};
  G.Schedule = Schedules[C.index(3)];
  if (G.Schedule == "interleaved") {
    G.Chunks = int64_t(C.between(2, 3));
    // Megatron-LM's interleaved schedule runs microbatches in groups of p.
    G.M = G.P * int64_t(C.between(1, 3));
  }
  G.Pre = C.percent(50);
  G.Post = C.percent(50);
  G.Tp = G.T > 1 && C.percent(70);
  G.Zero = int(C.between(0, 3));
  G.SyncAfter = C.percent(30);
  G.ScatterGather = C.percent(40);
  return G;
}

const InProcessResult &compiled(uint64_t Seed) {
  static std::map<uint64_t, std::unique_ptr<InProcessResult>> Cache;
  std::unique_ptr<InProcessResult> &R = Cache[Seed];
  if (!R) {
    InProcessOptions O;
    O.StdlibDir = SHARDC_SOURCE_STDLIB_DIR;
    O.Reports = false;
    R = compileInProcess(program(Seed).render(), O);
  }
  return *R;
}

TEST(PipelineProperty, EveryProgramCompilesWithItsStages) {
  for (uint64_t Seed = 0; Seed < NumSeeds; ++Seed) {
    const InProcessResult &R = compiled(Seed);
    std::string Src = program(Seed).render();
    ASSERT_EQ(R.InternalError, "") << Src;
    ASSERT_TRUE(R.Compiled) << Src << "\n"
                            << (R.Diagnostics.empty() ? "" : R.Diagnostics[0]);
    const StepSummary &S = *R.Compile->Tables.Step;
    ASSERT_TRUE(S.Pipeline) << Src;
    EXPECT_EQ(S.Stages, program(Seed).P) << Src;
    EXPECT_EQ(checkCostsSane(*R.Compile), "") << Src;
  }
}

TEST(PipelineProperty, MakespanBetweenTheBounds) {
  for (uint64_t Seed = 0; Seed < NumSeeds; ++Seed) {
    const InProcessResult &R = compiled(Seed);
    if (!R.Compiled)
      continue;
    const StepSummary &S = *R.Compile->Tables.Step;
    const auto &PI = *S.Pipeline;
    double M = double(S.Microbatches), Sum = 0, Max = 0;
    for (size_t I = 0; I < PI.StageFwd.size(); ++I) {
      double Stage = PI.StageFwd[I] + PI.StageBwd[I];
      Sum += Stage;
      Max = std::max(Max, Stage);
    }
    std::string Src = program(Seed).render();
    double Eps = 1e-9 * Sum * M;
    // Each stage runs all its slices (the first microbatch's backward may
    // be a little shorter: no gradient buffer read yet).
    EXPECT_GE(S.TPipe + Eps, M * Max - (S.TBwd - S.TBwdFirst)) << Src;
    EXPECT_LE(S.TPipe, M * Sum + Eps) << Src;
    EXPECT_GE(PI.Bubble, 0) << Src;
    EXPECT_LT(PI.Bubble, 1) << Src;
    EXPECT_NEAR(S.TStep, S.TPipe + S.TSyncExposed + S.TOpt + S.TParamGather,
                1e-9 * S.TStep)
        << Src;
  }
}

TEST(PipelineProperty, ScatterGatherSplitsOverTheReplicaAxis) {
  // x[B_D, E] crosses the stages replicated over T only: with
  // scatter_gather its sends split over T when T > 1, else nothing.
  for (uint64_t Seed = 0; Seed < NumSeeds; ++Seed) {
    const InProcessResult &R = compiled(Seed);
    if (!R.Compiled)
      continue;
    PipelineProgram G = program(Seed);
    const auto &PI = *R.Compile->Tables.Step->Pipeline;
    bool Split = G.ScatterGather && G.T > 1;
    EXPECT_EQ(PI.SendGatherAxes.size(), Split ? 1u : 0u) << G.render();
    // Braced: EXPECT_* expands to an if-else (GCC's -Wdangling-else).
    if (Split) {
      EXPECT_TRUE(PI.SendGatherAxes.contains(2)) << G.render(); // T
    }
  }
}

TEST(PipelineProperty, TheHeavierEndHoldsTheScheduledMicrobatches) {
  for (uint64_t Seed = 0; Seed < NumSeeds; ++Seed) {
    const InProcessResult &R = compiled(Seed);
    if (!R.Compiled)
      continue;
    PipelineProgram G = program(Seed);
    const MemorySummary &Mem = *R.Compile->Tables.Memory;
    double M = double(G.M), P = double(G.P), V = double(G.Chunks);
    // COST-MODEL.md §7 on the first stage; on the last, 1F1B holds one
    // microbatch and the interleaved schedule ((v - 1)·p + 1) / v.
    bool First = Mem.Stage == 0;
    double Want = G.Schedule == "gpipe"  ? M
                  : G.Schedule == "1f1b" ? (First ? std::min(M, P) : 1)
                  : First ? std::min(M, P) * (1 + (P - 1) / (P * V))
                          : std::min(M, ((V - 1) * P + 1) / V);
    EXPECT_DOUBLE_EQ(Mem.InFlight, Want) << G.render();
    EXPECT_TRUE(Mem.Stage == 0 || Mem.Stage == G.P - 1) << G.render();
    EXPECT_EQ(Mem.Stages, G.P) << G.render();
    EXPECT_GE(Mem.Total, Mem.OtherEndTotal) << G.render();
  }
}

} // namespace
