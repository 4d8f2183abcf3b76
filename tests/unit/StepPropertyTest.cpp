//===- StepPropertyTest.cpp - Generated transformer training steps --------===//
//
// tests/support/StepGenerator's steps (embedding and loss head, norms,
// attention, gated MLPs or MoE, tensor and sequence parallelism, pipelines,
// every train setting) through the whole compile, with the text, JSON and
// trace reports rendered:
//  - most drawn steps compile (the rest are over a chip's memory or a
//    combination of settings shardc refuses, with a diagnostic);
//  - none is an internal error: no broken IR invariant, no bad cost, and
//    JSON and trace output that parse with only finite numbers;
//  - each deliberate mistake gets a located diagnostic, never a report.
//
//===----------------------------------------------------------------------===//
#include "shardc/Config.h"
#include "tests/support/CompileInProcess.h"
#include "tests/support/StepGenerator.h"
#include "llvm/ADT/StringExtras.h"
#include "gtest/gtest.h"

using namespace shardc;
using namespace shardc::testgen;

namespace {

constexpr uint64_t NumSeeds = 150;

std::unique_ptr<InProcessResult> compile(const std::string &Source) {
  InProcessOptions O;
  O.StdlibDir = SHARDC_SOURCE_STDLIB_DIR;
  O.Trace = true;
  return compileInProcess(Source, O);
}

TEST(StepProperty, MostStepsCompileAndNoneBreaks) {
  unsigned Compiled = 0;
  for (uint64_t Seed = 0; Seed < NumSeeds; ++Seed) {
    SplitMix64 C(Seed * 0x9E3779B97F4A7C15ull + 5);
    std::string Source = generateStep(C).render();
    auto R = compile(Source);
    EXPECT_EQ(R->InternalError, "") << Source;
    if (R->Compiled) {
      ++Compiled;
      EXPECT_FALSE(R->Trace.empty()) << Source;
    } else {
      EXPECT_GT(R->Errors, 0u) << Source;
    }
  }
  EXPECT_GE(Compiled, NumSeeds * 6 / 10);
}

TEST(StepProperty, EveryMistakeGetsALocatedDiagnostic) {
  for (uint64_t Seed = 0; Seed < NumSeeds / 3; ++Seed) {
    SplitMix64 C(Seed * 0x9E3779B97F4A7C15ull + 7);
    std::string Source = generateStep(C, /*WrongPercent=*/100).render();
    auto R = compile(Source);
    EXPECT_EQ(R->InternalError, "") << Source;
    EXPECT_FALSE(R->Compiled) << Source;
    ASSERT_FALSE(R->Diagnostics.empty()) << Source;
    // `line:col: message`, with a real line.
    EXPECT_FALSE(llvm::StringRef(R->Diagnostics[0]).startswith("0:"))
        << R->Diagnostics[0] << "\n"
        << Source;
  }
}

} // namespace
