//===- CompileInProcessTest.cpp - A string compiled as a file is ----------===//
//
// compileInProcess hands the compiler a string, not a file, so it must
// normalise the text as readSourceFile does (normalizeSource): else a
// source with classic Mac line ends is all line 1 in-process, and the
// property tests and fuzzers would see other diagnostics than the driver.
//
//===----------------------------------------------------------------------===//
#include "tests/support/CompileInProcess.h"
#include "shardc/Config.h"
#include "gtest/gtest.h"

using namespace shardc;
using namespace shardc::testgen;

namespace {

/// The program with \p Eol between its lines; its only error is the
/// undefined 'c' at line 5, column 12.
std::string program(llvm::StringRef Eol) {
  std::string S;
  for (llvm::StringRef Line :
       {"import \"nvidia.shard\";", "mesh M = DGX_H100_SuperPod[X: 8];",
        "dim B = 8;", "tensor a : bf16[B];", "b[B] = a + c;"})
    S += Line.str() + Eol.str();
  return S;
}

std::vector<std::string> diagnostics(const std::string &Source) {
  InProcessOptions O;
  O.StdlibDir = SHARDC_SOURCE_STDLIB_DIR;
  O.Reports = false;
  return compileInProcess(Source, O)->Diagnostics;
}

const std::vector<std::string> Want = {"5:12: undefined tensor 'c'"};

TEST(CompileInProcess, LoneCarriageReturnsEndLines) {
  EXPECT_EQ(diagnostics(program("\r")), Want);
}

TEST(CompileInProcess, CrLfEndsLines) {
  EXPECT_EQ(diagnostics(program("\r\n")), Want);
}

TEST(CompileInProcess, ByteOrderMarkIsDropped) {
  EXPECT_EQ(diagnostics("\xEF\xBB\xBF" + program("\r")), Want);
}

} // namespace
