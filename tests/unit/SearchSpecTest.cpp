//===- SearchSpecTest.cpp - What a search file records --------------------===//
//
// The frontend checks what a search writes once and fills Program::Search:
// the searched axes (their sets, the text --emit=best replaces), the knobs
// in their canonical order with their values, the `search` block's
// settings and the `per step` dim. The program itself is checked with each
// searched axis at size 1.
//
//===----------------------------------------------------------------------===//
#include "passes/Pipeline.h"
#include "report/Report.h"
#include "shardc/Config.h"
#include "tests/support/CompileInProcess.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace shardc;
using namespace shardc::testgen;

namespace {

std::unique_ptr<InProcessResult> compile(const std::string &Source) {
  InProcessOptions O;
  O.StdlibDir = SHARDC_SOURCE_STDLIB_DIR;
  O.Reports = false;
  return compileInProcess(Source, O);
}

std::string text(llvm::SMRange R) {
  return std::string(R.Start.getPointer(),
                     R.End.getPointer() - R.Start.getPointer());
}

const char *const Model = R"(import "nvidia.shard";
mesh M = DGX_H100_SuperPod[D: ?, P: 2, T: ? in {8, 1, 4}];
dim B = 512 per step;
dim E = 8192, F = 8192;
tensor x : bf16[B_D, E];
param W : bf16[E, F_T];
h[B_D, F_T] = x * W;
train { microbatches = ?; optimizer = none; schedule in {interleaved, 1f1b}; }
search {
  chips <= 64; order = free;
  recompute in {full, none}; zero in 0..2;
  minimize = cost; max_memory = 72 GB; min_mfu = 0.35; top = 5;
  pareto = memory; max_candidates = 1000; time_limit = 60 s;
}
)";

TEST(SearchSpec, FillsAxesKnobsAndSettings) {
  auto R = compile(Model);
  ASSERT_EQ(R->Errors, 0u) << (R->Diagnostics.empty() ? "" : R->Diagnostics[0]);
  ASSERT_TRUE(R->P.Search);
  const SearchSpec &S = *R->P.Search;
  // The program is checked with the searched axes at 1.
  ASSERT_TRUE(R->P.IR);
  ASSERT_EQ(R->P.Meshes.size(), 1u);
  EXPECT_EQ(R->P.Meshes[0].Axes[0].Size, 1);
  EXPECT_EQ(R->P.Meshes[0].Axes[1].Size, 2);
  EXPECT_EQ(R->P.Meshes[0].Axes[2].Size, 1);

  ASSERT_EQ(S.Axes.size(), 2u);
  EXPECT_EQ(S.Axes[0].Axis, 0u);
  EXPECT_FALSE(S.Axes[0].Sizes);
  EXPECT_EQ(text(S.Axes[0].SizeRange), "?");
  EXPECT_EQ(S.Axes[1].Axis, 2u);
  EXPECT_EQ(*S.Axes[1].Sizes, (std::vector<int64_t>{1, 4, 8}));
  EXPECT_EQ(text(S.Axes[1].SizeRange), "? in {8, 1, 4}");
  EXPECT_EQ(S.Axes[1].At.Line, 2u);

  // Knobs in SearchKnob order, values canonical: recompute by
  // RecomputePolicy (none 0, full 2), schedule by PipelineSchedule
  // (1f1b 1, interleaved 2).
  ASSERT_EQ(S.Knobs.size(), 4u);
  EXPECT_EQ(S.Knobs[0].Knob, SearchKnob::Microbatches);
  EXPECT_FALSE(S.Knobs[0].Values);
  EXPECT_FALSE(S.Knobs[0].InSearchBlock);
  EXPECT_EQ(text(S.Knobs[0].PropRange), "microbatches = ?;");
  EXPECT_EQ(S.Knobs[1].Knob, SearchKnob::Zero);
  EXPECT_EQ(*S.Knobs[1].Values, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_TRUE(S.Knobs[1].InSearchBlock);
  EXPECT_EQ(S.Knobs[2].Knob, SearchKnob::Recompute);
  EXPECT_EQ(*S.Knobs[2].Values,
            (std::vector<int64_t>{int64_t(RecomputePolicy::None),
                                  int64_t(RecomputePolicy::Full)}));
  EXPECT_EQ(text(S.Knobs[2].PropRange), "recompute in {full, none};");
  EXPECT_EQ(S.Knobs[3].Knob, SearchKnob::Schedule);
  EXPECT_EQ(*S.Knobs[3].Values,
            (std::vector<int64_t>{int64_t(PipelineSchedule::OneFOneB),
                                  int64_t(PipelineSchedule::Interleaved)}));

  EXPECT_EQ(S.ChipsRule, SearchChipsRule::AtMost);
  EXPECT_EQ(S.Chips, (std::vector<int64_t>{64}));
  EXPECT_TRUE(S.FreeOrder);
  EXPECT_EQ(S.Minimize, SearchObjective::Cost);
  ASSERT_TRUE(S.MaxMemory);
  EXPECT_DOUBLE_EQ(*S.MaxMemory, 72e9);
  ASSERT_TRUE(S.MinMfu);
  EXPECT_DOUBLE_EQ(*S.MinMfu, 0.35);
  EXPECT_FALSE(S.MaxStepTime);
  EXPECT_EQ(S.Top, 5u);
  EXPECT_EQ(S.Pareto, SearchPareto::Memory);
  EXPECT_EQ(S.MaxCandidates, 1000u);
  ASSERT_TRUE(S.TimeLimit);
  EXPECT_DOUBLE_EQ(*S.TimeLimit, 60);

  ASSERT_TRUE(S.PerStep);
  EXPECT_EQ(S.PerStep->Name, "B");
  EXPECT_EQ(S.PerStep->Global, 512);
  EXPECT_EQ(S.PerStep->At.Line, 3u);

  EXPECT_EQ(text(S.BlockRange).substr(0, 8), "search {");
  EXPECT_EQ(text(S.BlockRange).back(), '}');
  EXPECT_EQ(*S.TrainEnd.getPointer(), '}');
  EXPECT_EQ(S.At.Line, 9u);
  EXPECT_EQ(S.At.Col, 1u);
  ASSERT_EQ(S.PropertyAt.size(), 11u);
  EXPECT_EQ(S.PropertyAt[0].first, "chips");
  EXPECT_EQ(S.PropertyAt[0].second.Line, 10u);
}

TEST(SearchSpec, ChipsDefaultToTheCluster) {
  auto R = compile(R"(import "nvidia.shard";
mesh M = DGX_H100_Node[D: ?];
dim B = 64, E = 128;
tensor x : bf16[B_D, E];
y[B_D, E] = x;
)");
  ASSERT_EQ(R->Errors, 0u);
  ASSERT_TRUE(R->P.Search);
  EXPECT_EQ(R->P.Search->ChipsRule, SearchChipsRule::Equal);
  EXPECT_EQ(R->P.Search->Chips, (std::vector<int64_t>{8}));
  EXPECT_TRUE(R->P.Search->Knobs.empty());
  EXPECT_FALSE(R->P.Search->BlockRange.isValid());
  // Without a block, a search is reported at its mesh declaration.
  EXPECT_EQ(R->P.Search->At.Line, 2u);
  EXPECT_EQ(R->P.Search->At.Col, 1u);
}

TEST(SearchSpec, PerStepAloneIsNotASearch) {
  auto R = compile(R"(import "nvidia.shard";
mesh M = DGX_H100_Node[D: 8];
dim B = 64 per step;
dim E = 128, F = 128;
tensor x : bf16[B_D, E];
param W : bf16[E, F];
y[B_D, F] = x * W;
train { microbatches = 2; }
)");
  ASSERT_EQ(R->Errors, 0u);
  EXPECT_FALSE(R->P.Search);
}

/// The engine's use of a search's checked module: one candidate is
/// compile(IR, Layout) with the axis sizes, the per-step dim at G / m and
/// the knobs. It must equal the file written with those values.
TEST(SearchSpec, ACandidateCompilesAsTheFileWrittenOut) {
  const std::string Head = "import \"nvidia.shard\";\n";
  const std::string Body = "dim B = 512 per step;\n"
                           "dim E = 8192, F = 8192;\n"
                           "tensor x : bf16[B_D, E];\n"
                           "param W : bf16[E, F];\n"
                           "h[B_D, F] = x * W;\n";
  auto Search = compile(Head + "mesh M = DGX_H100_Node[D: ?];\n" + Body +
                        "train { microbatches = ?; optimizer = none; }\n");
  ASSERT_EQ(Search->Errors, 0u);
  ASSERT_TRUE(Search->P.Search && Search->P.Search->PerStep);
  auto Written = compile(Head + "mesh M = DGX_H100_Node[D: 8];\n" + Body +
                         "train { microbatches = 4; optimizer = none; }\n");
  ASSERT_TRUE(Written->Compiled);
  // The per-step dim is checked at G (m = 1) and no expression reads it,
  // so a layout may rebind it.
  const Module &IR = *Search->P.IR;
  DimId B = 0;
  while (IR.names().Dims[B] != "B")
    ++B;
  Layout L{Written->P.IR->mesh(), DimSizeMap(), *IR.config().Train, nullptr};
  L.Dims[B] = 512 / 4;
  L.Train->Microbatches = 4;
  DiagnosticEngine Engine(Search->SM);
  auto Re = shardc::compile(IR, L, Engine);
  ASSERT_TRUE(bool(Re)) << llvm::toString(Re.takeError());
  EXPECT_FALSE(Engine.hasErrors());
  EXPECT_EQ(textReport(**Re), textReport(*Written->Compile));
}

} // namespace
