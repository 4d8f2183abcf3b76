//===- StagePartitionTest.cpp - Which stage runs what ---------------------===//
//
// passes/StagePartition.h on a small interleaved pipeline, against what
// LANGUAGE.md §9 and COST-MODEL.md §6.3 say by hand: p = 2 stages of v = 2
// chunks share `repeat 8 over P`'s iterations k = 8 / (2·2) = 2 at a time,
// virtual stage c·p + s taking iterations [(c·p + s)·2, (c·p + s)·2 + 2);
// what precedes the repeat (g0, y0) is the first stage's, what follows it
// (W_head, logits) the last's; each derived statement (a gradient, a sync,
// an update) runs on its forward statement's side.
//
//===----------------------------------------------------------------------===//
#include "passes/StagePartition.h"
#include "shardc/Config.h"
#include "tests/support/CompileInProcess.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

using namespace shardc;
using namespace shardc::testgen;
using ::testing::ElementsAre;

namespace {

const char *Source = R"(import "nvidia.shard";
mesh M = DGX_H100_SuperPod[D: 1, P: 2, T: 1];
dim B = 64, E = 1024, F = 4096;
tensor x : bf16[B_D, E];
param g0 : bf16[E];
y0[B_D, E] = x * g0;
x[B_D, E] = y0;
repeat 8 over P {
  param W_in : bf16[E, F];
  param W_out : bf16[F, E];
  h[B_D, F] = x * W_in;
  x[B_D, E] = h * W_out;
}
param W_head : bf16[E, F];
logits[B_D, F] = x * W_head;
train { microbatches = 4; schedule = interleaved; chunks = 2; }
)";

const InProcessResult &compiled() {
  static std::unique_ptr<InProcessResult> R;
  if (!R) {
    InProcessOptions O;
    O.StdlibDir = SHARDC_SOURCE_STDLIB_DIR;
    O.Reports = false;
    R = compileInProcess(Source, O);
  }
  return *R;
}

/// The statements' names, in order, of a partition's pieces.
std::vector<std::string> names(const Module &M,
                               llvm::ArrayRef<const Op *> Ops) {
  std::vector<std::string> Out;
  for (const Op *O : Ops)
    Out.push_back(M.statement(pieceStmt(*O)).Name);
  return Out;
}

TEST(StagePartition, VirtualStageCPlusSRunsItsTwoIterations) {
  const InProcessResult &R = compiled();
  ASSERT_TRUE(R.Compiled) << (R.Diagnostics.empty() ? "" : R.Diagnostics[0]);
  const StagePartition &P = *R.Compile->Tables.Partition;
  EXPECT_EQ(P.Stages, 2u);
  EXPECT_EQ(P.Chunks, 2);
  ASSERT_TRUE(P.pipelined());
  EXPECT_TRUE(P.BwdLayers && P.OptLayers && P.ProgramLayers);
  // Chunk 0: virtual stages 0 and 1; chunk 1: virtual stages 2 and 3.
  EXPECT_EQ(P.Layers[0][0], (LayerRange{0, 2}));
  EXPECT_EQ(P.Layers[1][0], (LayerRange{2, 2}));
  EXPECT_EQ(P.Layers[0][1], (LayerRange{4, 2}));
  EXPECT_EQ(P.Layers[1][1], (LayerRange{6, 2}));
  EXPECT_EQ(P.stageLayers(0), 4);
  EXPECT_EQ(P.stageLayers(1), 4);
  EXPECT_EQ(P.totalLayers(), 8);
}

TEST(StagePartition, EachStatementRunsWhereItsForwardDoes) {
  const InProcessResult &R = compiled();
  ASSERT_TRUE(R.Compiled);
  const StagePartition &P = *R.Compile->Tables.Partition;
  const ProgramInfo &Info = R.Compile->lowered()->info();
  // The forward statements, in source order: the input and the two
  // statements before the repeat, the repeat's four, the head's two.
  std::vector<std::pair<std::string, StageSide>> Fwd,
      Want = {{"x", StageSide::First},     {"g0", StageSide::First},
              {"y0", StageSide::First},    {"x", StageSide::First},
              {"W_in", StageSide::Layers}, {"W_out", StageSide::Layers},
              {"h", StageSide::Layers},    {"x", StageSide::Layers},
              {"W_head", StageSide::Last}, {"logits", StageSide::Last}};
  for (size_t I = 0; I < Info.Statements.size(); ++I) {
    const Statement &S = Info.Statements[I];
    if (!S.From) {
      Fwd.push_back({S.Name, P.Side[I]});
      continue;
    }
    // A gradient, a sync or an update: its forward statement's side (the
    // head's backward on the last stage, the embedding's on the first).
    EXPECT_EQ(P.Side[I], P.Side[S.From->Stmt]) << S.Name;
  }
  EXPECT_EQ(Fwd, Want);
}

TEST(StagePartition, TheEndsPiecesInProgramOrder) {
  const InProcessResult &R = compiled();
  ASSERT_TRUE(R.Compiled);
  const StagePartition &P = *R.Compile->Tables.Partition;
  const Module &M = *R.Compile->lowered();
  auto Pieces = [&](StepPart Pt, StageSide S) {
    return names(M, P.pieces(Pt, S));
  };
  EXPECT_THAT(Pieces(StepPart::Forward, StageSide::First),
              ElementsAre("x", "g0", "y0", "x"));
  EXPECT_THAT(Pieces(StepPart::Forward, StageSide::Last),
              ElementsAre("W_head", "logits"));
  // The head's backward (dlogits, dx, dW_head) and W_head's sync; y0's
  // backward (dx and dg0's two statements) and g0's sync.
  EXPECT_THAT(Pieces(StepPart::Backward, StageSide::Last),
              ElementsAre("dlogits", "dx", "dW_head", "dW_head"));
  EXPECT_THAT(Pieces(StepPart::Backward, StageSide::First),
              ElementsAre("dx", "dg0", "dg0", "dg0"));
  // g0 is declared before the layers, W_head after them; the layers'
  // params are updated in the optimizer's pipelined repeat.
  EXPECT_THAT(Pieces(StepPart::Optimizer, StageSide::First), ElementsAre("g0"));
  EXPECT_THAT(Pieces(StepPart::Optimizer, StageSide::Last),
              ElementsAre("W_head"));
}

TEST(StagePartition, SharesOfEachEnd) {
  const InProcessResult &R = compiled();
  ASSERT_TRUE(R.Compiled);
  StagePartition P = *R.Compile->Tables.Partition;
  // W_in's 8 versions: 4 on each stage; g0 on the first only, W_head on
  // the last only.
  EXPECT_EQ(P.share(0, StageSide::Layers, 8), 4);
  EXPECT_EQ(P.share(1, StageSide::Layers, 8), 4);
  EXPECT_EQ(P.share(0, StageSide::First, 1), 1);
  EXPECT_EQ(P.share(1, StageSide::First, 1), 0);
  EXPECT_EQ(P.share(0, StageSide::Last, 1), 0);
  EXPECT_EQ(P.share(1, StageSide::Last, 1), 1);
  EXPECT_TRUE(P.runs(1, StageSide::Layers));
  EXPECT_FALSE(P.runs(0, StageSide::Last));
  // Uneven stages are a change to the ranges only: 3 iterations on the
  // first stage, 5 on the last, and the shares follow.
  P.Layers[0] = {{0, 1}, {4, 2}};
  P.Layers[1] = {{1, 3}, {6, 2}};
  EXPECT_EQ(P.stageLayers(0), 3);
  EXPECT_EQ(P.layers(1, 0), 3);
  EXPECT_EQ(P.share(0, StageSide::Layers, 16), 6);
  EXPECT_EQ(P.share(1, StageSide::Layers, 16), 10);
}

TEST(StagePartition, TokensAreReadOnTheFirstStageOnly) {
  // The embedding's token ids are read by the embedding and by its
  // backward (after the backward's pipelined repeat): both the first
  // stage's, so the last stage does not load them (check-memory).
  InProcessOptions O;
  O.StdlibDir = SHARDC_SOURCE_STDLIB_DIR;
  O.Reports = false;
  auto R = compileInProcess(R"(import "nvidia.shard";
mesh M = DGX_H100_SuperPod[D: 2, P: 2, T: 8];
dim B = 128, V = 16384, E = 1024, F = 4096;
tensor tok : int32[B_D];
param emb : bf16[V, E];
x[B_D, E] = embed(tok, emb);
repeat 4 over P {
  param W_in : bf16[E, F_T];
  param W_out : bf16[F_T, E];
  h[B_D, F_T] = x * W_in;
  o[B_D, E]{U_T} = h * W_out;
  x[B_D, E] = o;
}
param W_head : bf16[E, F];
l[B_D, F] = x * W_head;
train { microbatches = 2; }
)",
                            O);
  ASSERT_TRUE(R->Compiled);
  const StagePartition &P = *R->Compile->Tables.Partition;
  const Op *Tok = R->Compile->program().body().ops().front().get();
  ASSERT_TRUE(isa<InputOp>(Tok));
  ASSERT_EQ(Tok->result()->users().size(), 2u); // embed, embed_grad
  for (const Op *U : Tok->result()->users())
    EXPECT_EQ(P.side(*U), StageSide::First);
}

TEST(StagePartition, WithoutAPipelineOneStageRunsEverything) {
  std::string Src = Source;
  Src.replace(Src.find("repeat 8 over P"), 15, "repeat 8");
  Src.replace(Src.find(" schedule = interleaved; chunks = 2;"), 36, "");
  InProcessOptions O;
  O.StdlibDir = SHARDC_SOURCE_STDLIB_DIR;
  O.Reports = false;
  auto R = compileInProcess(Src, O);
  ASSERT_TRUE(R->Compiled) << Src
                           << (R->Diagnostics.empty() ? "" : R->Diagnostics[0]);
  const StagePartition &P = *R->Compile->Tables.Partition;
  EXPECT_FALSE(P.pipelined());
  EXPECT_EQ(P.Stages, 1u);
  EXPECT_EQ(P.Chunks, 1);
  for (StageSide S : P.Side)
    EXPECT_EQ(S, StageSide::First);
  EXPECT_TRUE(P.pieces(StepPart::Forward, StageSide::Last).empty());
  EXPECT_EQ(P.share(0, StageSide::First, 8), 8);
}

} // namespace
