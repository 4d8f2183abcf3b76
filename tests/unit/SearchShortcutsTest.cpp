//===- SearchShortcutsTest.cpp - A search's shortcuts are fresh compiles --===//
//
// The layout search shares a layout's placement coefficients between its
// compiles and reschedules a compile for a candidate that differs only in
// schedule and chunks; each must print what a fresh compile prints.
//
//===----------------------------------------------------------------------===//
#include "diag/Diagnostic.h"
#include "passes/Pipeline.h"
#include "shardc/Config.h"
#include "tests/support/CompileInProcess.h"
#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"

using namespace shardc;
using namespace shardc::testgen;

namespace {

std::unique_ptr<InProcessResult> compile(const std::string &Source) {
  InProcessOptions O;
  O.StdlibDir = SHARDC_SOURCE_STDLIB_DIR;
  return compileInProcess(Source, O);
}

std::string readExample(const std::string &Name) {
  auto B = llvm::MemoryBuffer::getFile(std::string(SHARDC_EXAMPLES_DIR) + "/" +
                                       Name);
  EXPECT_TRUE(bool(B)) << Name;
  return B ? (*B)->getBuffer().str() : "";
}

/// A layout's shared placements (a layout search's candidates share them)
/// are used only on their own mesh: one made for another mesh is ignored,
/// and a compile with either prints a fresh compile's reports.
TEST(SearchShortcuts, SharedPlacementsAreUsedOnlyOnTheirMesh) {
  auto Original = compile(readExample("gpt3_175b_train.shard"));
  ASSERT_TRUE(Original->Compiled);
  const MeshSpec &Mesh = Original->P.IR->mesh();
  MeshSpec Other = Mesh;
  std::swap(Other.Axes.front(), Other.Axes.back());
  const MeshSpec *Meshes[] = {&Mesh, &Other};
  for (const MeshSpec *For : Meshes) {
    auto Shared = std::make_shared<PlacementCache>(*For);
    DiagnosticEngine Engine(Original->SM);
    Layout L{Mesh, DimSizeMap(), std::nullopt, Shared};
    auto Re = shardc::compile(*Original->P.IR, L, Engine);
    ASSERT_TRUE(bool(Re)) << llvm::toString(Re.takeError());
    EXPECT_EQ(&(*Re)->placements() == Shared.get(), For == &Mesh);
    EXPECT_EQ(textReport(**Re), textReport(*Original->Compile));
  }
}

/// Reschedules \p Re (compiled on \p Base) to \p S and \p Chunks and
/// expects a fresh compile's reports, or its errors.
void expectRescheduled(const Module &IR, llvm::SourceMgr &SM, MeshCompile &Re,
                       const TrainConfig &Base, PipelineSchedule S,
                       int64_t Chunks) {
  TrainConfig T = Base;
  T.Schedule = S;
  T.Chunks = Chunks;
  std::string What = scheduleName(S).str() + " x" + std::to_string(Chunks) +
                     " m=" + std::to_string(Base.Microbatches);
  std::vector<std::string> FreshErrors, ReErrors;
  auto Collect = [](std::vector<std::string> &To) {
    return [&To](const Diagnostic &D) {
      if (D.Sev == Severity::Error)
        To.push_back(D.Message);
    };
  };
  DiagnosticEngine FreshDiags(SM), ReDiags(SM);
  FreshDiags.setHandler(Collect(FreshErrors));
  ReDiags.setHandler(Collect(ReErrors));
  auto Fresh = shardc::compile(IR, Layout{IR.mesh(), DimSizeMap(), T, nullptr},
                               FreshDiags);
  llvm::Error E = reschedule(Re, S, Chunks, ReDiags);
  EXPECT_EQ(bool(Fresh), !E) << What;
  llvm::consumeError(std::move(E));
  EXPECT_EQ(FreshErrors, ReErrors) << What;
  if (!Fresh) {
    llvm::consumeError(Fresh.takeError());
    EXPECT_FALSE(FreshErrors.empty()) << What;
    return;
  }
  EXPECT_EQ(textReport(Re), textReport(**Fresh)) << What;
  EXPECT_EQ(jsonReport(Re), jsonReport(**Fresh)) << What;
}

/// What a search does for a candidate that differs from the last one only
/// in schedule and chunks: reschedule() the last compile in place. It
/// prints a fresh compile's reports for every schedule (and, where a
/// schedule cannot split the stages, fails with the fresh compile's
/// first error): GPT-3 175B on 8 stages of 96 layers, 96 microbatches.
TEST(SearchShortcuts, RescheduleIsAFreshCompile) {
  auto Original = compile(readExample("gpt3_175b_train.shard"));
  ASSERT_TRUE(Original->Compiled);
  const Module &IR = *Original->P.IR;
  struct Variant {
    PipelineSchedule S;
    int64_t Chunks;
  };
  // 96 layers over 8 stages: 5 chunks do not split them (an error).
  const Variant Variants[] = {{PipelineSchedule::OneFOneB, 1},
                              {PipelineSchedule::GPipe, 1},
                              {PipelineSchedule::Interleaved, 3},
                              {PipelineSchedule::Interleaved, 5},
                              {PipelineSchedule::Interleaved, 4}};
  // The file's settings; and 4 microbatches (not whole groups of the 8
  // stages: interleaving is an error) with the syncs after the backward.
  TrainConfig Few = *IR.config().Train;
  Few.Microbatches = 4;
  Few.SyncAfterBackward = true;
  Few.Schedule = PipelineSchedule::OneFOneB;
  Few.Chunks = 1;
  for (const TrainConfig &Base : {*IR.config().Train, Few}) {
    DiagnosticEngine First(Original->SM);
    auto Re = shardc::compile(
        IR, Layout{IR.mesh(), DimSizeMap(), Base, nullptr}, First);
    ASSERT_TRUE(bool(Re)) << llvm::toString(Re.takeError());
    for (const Variant &V : Variants)
      expectRescheduled(IR, Original->SM, **Re, Base, V.S, V.Chunks);
  }
}

} // namespace
