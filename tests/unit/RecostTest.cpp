//===- RecostTest.cpp - Re-costing a checked module for another mesh ------===//
//
// compileForMesh must give exactly what a fresh compile gives when that mesh
// is written in the file: the same text report, JSON report and lowered IR,
// byte for byte. Checked on every shipped example over other mesh shapes and
// another cluster, and on generated programs with an axis doubled and every
// bandwidth doubled. A mesh the program does not fit is refused the same way.
//
//===----------------------------------------------------------------------===//
#include "passes/Pipeline.h"
#include "report/Report.h"
#include "shardc/Config.h"
#include "tests/support/CompileInProcess.h"
#include "tests/support/ProgramGenerator.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace shardc;
using namespace shardc::testgen;

namespace {

std::unique_ptr<InProcessResult> compile(const std::string &Source) {
  InProcessOptions O;
  O.StdlibDir = SHARDC_SOURCE_STDLIB_DIR;
  return compileInProcess(Source, O);
}

struct Rendered {
  std::string Text, Json, IR;
};

Rendered render(const MeshCompile &C) {
  Rendered R;
  llvm::raw_string_ostream T(R.Text), J(R.Json), I(R.IR);
  printTextReport(C, T);
  printJsonReport(C, J);
  printAnnotated(C, I, /*WithCosts=*/true);
  return R;
}

/// Re-costs \p From's checked module on \p To's mesh and expects exactly
/// \p To's reports.
void expectSameAsFresh(const InProcessResult &From, const InProcessResult &To,
                       const std::string &What) {
  ASSERT_TRUE(From.Compiled && To.Compiled) << What;
  std::vector<std::string> Diags;
  DiagnosticEngine Engine(const_cast<llvm::SourceMgr &>(From.SM));
  Engine.setHandler([&](const Diagnostic &D) { Diags.push_back(D.Message); });
  auto C = compileForMesh(*From.P.IR, To.P.IR->mesh(), Engine);
  ASSERT_TRUE(bool(C)) << What << ": " << llvm::toString(C.takeError());
  Rendered Re = render(**C), Fresh = render(*To.Compile);
  EXPECT_EQ(Re.Text, Fresh.Text) << What;
  EXPECT_EQ(Re.Json, Fresh.Json) << What;
  EXPECT_EQ(Re.IR, Fresh.IR) << What;
  EXPECT_TRUE(Diags.empty()) << What;
}

std::string readExample(const std::string &Name) {
  auto B = llvm::MemoryBuffer::getFile(std::string(SHARDC_EXAMPLES_DIR) + "/" +
                                       Name);
  EXPECT_TRUE(bool(B)) << Name;
  return B ? (*B)->getBuffer().str() : "";
}

/// \p Source with its `mesh M = C[...]` declaration (at the start of a
/// line, not in a comment) written as \p Mesh.
std::string withMesh(const std::string &Source, const std::string &Mesh) {
  // Plain string search: GCC 12's -O2 sanitizer build warns inside
  // <regex> (-Wmaybe-uninitialized), which -Werror makes fatal.
  size_t At = Source.find("\nmesh ");
  size_t Eq = Source.find(" = ", At);
  size_t End = Source.find("];", Eq);
  if (At == std::string::npos || Eq == std::string::npos ||
      End == std::string::npos)
    return Source;
  return Source.substr(0, Eq + 3) + Mesh + Source.substr(End + 1);
}

struct ExampleCase {
  const char *File;
  std::vector<const char *> Meshes; ///< other shapes and clusters
};

TEST(Recost, ExamplesMatchAFreshCompile) {
  const std::vector<ExampleCase> Cases = {
      {"allgather_node.shard", {"DGX_H100_Node[X: 2]", "DGX_H100_Node[X: 4]"}},
      {"b200_roofline.shard",
       {"DGX_B200_SuperPod[X: 8]", "DGX_H100_SuperPod[X: 1]"}},
      {"mlp.shard",
       {"DGX_H100_SuperPod[X: 8, Y: 16]", "DGX_H100_SuperPod[X: 128, Y: 8]",
        "DGX_H100_SuperPod[X: 64, Y: 2]", "DGX_B200_SuperPod[X: 16, Y: 8]"}},
      {"tp_dp.shard",
       {"DGX_H100_SuperPod[X: 8, Y: 16]", "DGX_H100_SuperPod[X: 128, Y: 8]",
        "DGX_H100_SuperPod[X: 32, Y: 4]", "DGX_B200_SuperPod[X: 16, Y: 8]"}},
  };
  for (const ExampleCase &Case : Cases) {
    std::string Source = readExample(Case.File);
    auto Original = compile(Source);
    ASSERT_TRUE(Original->Compiled) << Case.File;
    for (const char *Mesh : Case.Meshes) {
      std::string Other = withMesh(Source, Mesh);
      ASSERT_NE(Other, Source) << Case.File << " has no mesh to replace";
      auto Fresh = compile(Other);
      expectSameAsFresh(*Original, *Fresh,
                        std::string(Case.File) + " on " + Mesh);
    }
  }
}

GenProgram programFor(uint64_t Seed) {
  GeneratorOptions O;
  O.WrongPercent = 0;
  O.Divisible = true;
  SplitMix64 C(Seed);
  return generateStructure(C, O);
}

TEST(Recost, GeneratedProgramsMatchAFreshCompile) {
  for (uint64_t Seed = 0; Seed < 200; ++Seed) {
    GenProgram Base = programFor(Seed);
    GenProgram Wider = Base;
    Wider.Axes[Seed % Wider.Axes.size()].Size *= 2;
    Wider.Levels.back().Size *= 2; // room for the larger mesh
    for (GenLevel &L : Wider.Levels) {
      L.Uplink.Value *= 2;
      L.Bw.Value *= 2;
    }
    auto A = compile(Base.render()), B = compile(Wider.render());
    ASSERT_TRUE(A->Compiled && B->Compiled) << Base.render();
    expectSameAsFresh(*A, *B, "seed " + std::to_string(Seed));
    expectSameAsFresh(*B, *A, "seed " + std::to_string(Seed) + " back");
  }
}

/// A mesh that breaks the program's divisibility is an error located at
/// the op, as a fresh compile's is at the index.
TEST(Recost, AMeshThatDoesNotDivideIsAnError) {
  auto A = compile(readExample("allgather_node.shard"));
  ASSERT_TRUE(A->Compiled);
  MeshSpec M = A->P.IR->mesh();
  M.Axes[0].Size = 3; // B = 1024 is not divisible by 3
  std::vector<std::string> Diags;
  DiagnosticEngine Engine(A->SM);
  Engine.setHandler([&](const Diagnostic &D) {
    auto LC = A->SM.getLineAndColumn(D.Range.Start);
    Diags.push_back(std::to_string(LC.first) + ": " + D.Message);
  });
  auto C = compileForMesh(*A->P.IR, M, Engine);
  ASSERT_FALSE(bool(C));
  llvm::consumeError(C.takeError());
  ASSERT_FALSE(Diags.empty());
  EXPECT_EQ(Diags.front(),
            "29: dim 'B' of size 1024 is not divisible by 3 (the product of "
            "its axes X=3); set 'config { allow_padding = true; }' to pad");
}

/// A typed reshard converts from its source dtype on the vector units: a
/// cluster whose chip gives no peak for it is an error at the reshard, as a
/// fresh compile's is.
TEST(Recost, AChipWithoutThePeakAConversionNeedsIsAnError) {
  auto A = compile("chip C { hbm = 80 GB; hbm_bw = 2 TB/s; flops.bf16 = 1 "
                   "PFLOP/s; flops.fp8 = 2 PFLOP/s; }\n"
                   "cluster K { chip = C; level node { size = 8; uplink_bw "
                   "= 100 GB/s; } }\n"
                   "mesh M = K[X: 8];\ndim N = 1024;\n"
                   "tensor x : fp8[N_X];\ny: bf16[N] = x;\n");
  ASSERT_TRUE(A->Compiled);
  MeshSpec M = A->P.IR->mesh();
  auto NoFp8 = std::make_shared<ClusterSpec>(*M.Cluster);
  NoFp8->Chip.Flops[unsigned(DType::fp8)] = 0;
  M.Cluster = NoFp8;
  std::vector<std::string> Diags;
  DiagnosticEngine Engine(A->SM);
  Engine.setHandler([&](const Diagnostic &D) {
    auto LC = A->SM.getLineAndColumn(D.Range.Start);
    Diags.push_back(std::to_string(LC.first) + ": " + D.Message);
  });
  auto C = compileForMesh(*A->P.IR, M, Engine);
  ASSERT_FALSE(bool(C));
  llvm::consumeError(C.takeError());
  ASSERT_EQ(Diags.size(), 1u);
  EXPECT_EQ(Diags.front(),
            "6: chip 'C' gives no peak for fp8; add 'flops.fp8 = ...;'");
}

TEST(Recost, AMeshWithOtherAxesIsRefused) {
  auto A = compile(readExample("mlp.shard"));
  ASSERT_TRUE(A->Compiled);
  MeshSpec M = A->P.IR->mesh();
  M.Axes[1].Name = "Z";
  DiagnosticEngine Engine(A->SM);
  auto C = compileForMesh(*A->P.IR, M, Engine);
  ASSERT_FALSE(bool(C));
  EXPECT_EQ(llvm::toString(C.takeError()),
            "mesh 'M' has axes [X, Z]; the program is written for [X, Y]");
}

} // namespace
