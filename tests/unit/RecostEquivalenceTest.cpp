//===- RecostEquivalenceTest.cpp - A re-cost is a fresh compile -----------===//
//
// compileForMesh(checked, mesh) and a fresh compile of the file with that
// mesh written in it must agree on every mesh, valid or not, for every
// shipped example and for generated training programs (pipelines under
// every schedule, interleaved chunks, MoE layers, grouped-query attention,
// ZeRO 0-3, padding). For each pair:
//  - the fresh compile succeeds: the re-cost succeeds with byte-identical
//    text and JSON reports and annotated IR;
//  - the fresh compile's checks pass and a pass reports (bind-mesh's
//    pipeline split, KV heads, MoE slots; check-mesh; memory): the re-cost
//    fails with exactly the same diagnostics, line, column and message (a
//    step over HBM still returns its compile, with the error);
//  - the fresh compile's checks fail (a dim its mesh does not divide,
//    reported at the index that shards it): the re-cost fails too, with an
//    error (check-mesh reports it at the op, since a re-cost has no source
//    types to point into).
// Every category is required to occur, so the test cannot pass vacuously.
//
//===----------------------------------------------------------------------===//
#include "passes/Pipeline.h"
#include "report/Report.h"
#include "shardc/Config.h"
#include "tests/support/CompileInProcess.h"
#include "tests/support/ProgramGenerator.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <array>
#include <cstring>
#include <fmt/format.h>

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

/// How the fresh compile ended.
enum class Outcome { Compiled, PassError, CheckError };

struct Tally {
  std::array<unsigned, 3> N{};
  void add(Outcome O) { ++N[unsigned(O)]; }
  unsigned of(Outcome O) const { return N[unsigned(O)]; }
};

/// \p From's mesh with the axis sizes \p Sizes (same names and cluster).
MeshSpec resized(const InProcessResult &From,
                 const std::vector<int64_t> &Sizes) {
  MeshSpec M = From.P.IR->mesh();
  for (size_t I = 0; I < Sizes.size(); ++I)
    M.Axes[I].Size = Sizes[I];
  return M;
}

/// \p Source with its `mesh M = C[...]` declaration's axis sizes replaced
/// by \p Sizes, in order.
std::string withSizes(const std::string &Source, const MeshSpec &Mesh) {

  std::string Axes;
  for (const MeshAxis &A : Mesh.Axes)
    Axes += fmt::format("{}{}: {}", Axes.empty() ? "" : ", ", A.Name, A.Size);
  // Plain string search: GCC 12's -O2 sanitizer build warns inside
  // <regex> (-Wmaybe-uninitialized), which -Werror makes fatal.
  size_t At = Source.find("\nmesh ");
  size_t Open = Source.find('[', At);
  size_t End = Source.find("];", Open);
  if (At == std::string::npos || Open == std::string::npos ||
      End == std::string::npos)
    return Source;
  return Source.substr(0, Open + 1) + Axes + Source.substr(End);
}

/// Re-costs \p From on \p Mesh and compares with the fresh compile of the
/// file with \p Mesh written in it.
Outcome expectEquivalent(const InProcessResult &From, const MeshSpec &Mesh,
                         const std::string &Source, const std::string &What) {
  auto Fresh = compile(withSizes(Source, Mesh));
  std::vector<std::string> Diags;
  DiagnosticEngine Engine(const_cast<llvm::SourceMgr &>(From.SM));
  Engine.setErrorLimit(20);
  Engine.setHandler([&](const Diagnostic &D) {
    auto LC = D.Range.Start.isValid() ? From.SM.getLineAndColumn(D.Range.Start)
                                      : std::pair<unsigned, unsigned>(0, 0);
    Diags.push_back(fmt::format("{}:{}: {}", LC.first, LC.second, D.Message));
  });
  auto Re = compileForMesh(*From.P.IR, Mesh, Engine);
  EXPECT_TRUE(Fresh->InternalError.empty()) << What << Fresh->InternalError;
  if (Fresh->Compiled) {
    EXPECT_TRUE(bool(Re)) << What << ": "
                          << (Re ? "" : llvm::toString(Re.takeError()));
    if (!Re)
      return Outcome::Compiled;
    std::string T1, T2, J1, J2, I1, I2;
    llvm::raw_string_ostream TO1(T1), TO2(T2), JO1(J1), JO2(J2), IO1(I1),
        IO2(I2);
    printTextReport(**Re, TO1);
    printTextReport(*Fresh->Compile, TO2);
    printJsonReport(**Re, JO1);
    printJsonReport(*Fresh->Compile, JO2);
    printAnnotated(**Re, IO1, /*WithCosts=*/true);
    printAnnotated(*Fresh->Compile, IO2, /*WithCosts=*/true);
    EXPECT_EQ(T1, T2) << What;
    EXPECT_EQ(J1, J2) << What;
    EXPECT_EQ(I1, I2) << What;
    std::vector<std::string> FreshPass(Fresh->Diagnostics.begin() +
                                           Fresh->CheckDiagnostics,
                                       Fresh->Diagnostics.end());
    EXPECT_EQ(Diags, FreshPass) << What; // warnings of the passes
    return Outcome::Compiled;
  }
  // A step over HBM is reported with its report (a search ranks it as a
  // near miss): the re-cost returns the compile and the error.
  EXPECT_TRUE(!Re || Engine.hasErrors())
      << What << ": the fresh compile failed";
  if (!Re)
    llvm::consumeError(Re.takeError());
  if (Fresh->Compile) {
    std::vector<std::string> FreshPass(Fresh->Diagnostics.begin() +
                                           Fresh->CheckDiagnostics,
                                       Fresh->Diagnostics.end());
    EXPECT_EQ(Diags, FreshPass) << What;
    return Outcome::PassError;
  }
  EXPECT_FALSE(Diags.empty()) << What << ": no error on a mesh Sema refuses";
  return Outcome::CheckError;
}

struct ExampleCase {
  const char *File;
  std::vector<std::vector<int64_t>> Meshes;
};

TEST(RecostEquivalence, EveryExampleOnOtherMeshes) {
  const std::vector<ExampleCase> Cases = {
      {"allgather_node.shard", {{2}, {4}, {3}}},
      {"b200_roofline.shard", {{1}, {8}}},
      {"gather_or_slice.shard", {{2, 4}, {8, 1}, {1, 1}, {3, 2}}},
      {"gpt3_175b_train.shard",
       {{8, 16, 8}, {16, 8, 4}, {16, 5, 8}, {32, 1, 8}}},
      {"llama3_70b_train.shard",
       {{16, 8, 8}, {32, 3, 8}, {32, 1, 8}, {16, 2, 16}, {8, 16, 8}}},
      {"mlp.shard", {{8, 16}, {128, 8}, {64, 2}, {3, 8}}},
      {"moe_train.shard", {{8, 8, 16}, {1, 8, 64}, {2, 7, 64}, {2, 3, 64}}},
      {"tp_dp.shard", {{8, 16}, {128, 8}, {32, 4}}},
      {"train_mlp.shard", {{8, 8}, {32, 4}, {3, 8}, {16, 16}}},
  };
  Tally T;
  for (const ExampleCase &Case : Cases) {
    std::string Source = readExample(Case.File);
    auto Original = compile(Source);
    ASSERT_TRUE(Original->Compiled) << Case.File;
    for (const std::vector<int64_t> &Sizes : Case.Meshes) {
      MeshSpec M = resized(*Original, Sizes);
      T.add(expectEquivalent(*Original, M, Source,
                             std::string(Case.File) + " on " +
                                 withSizes("\nmesh M = C[];", M)));
    }
  }
  EXPECT_GE(T.of(Outcome::Compiled), 15u);
  EXPECT_GE(T.of(Outcome::PassError), 3u);
  EXPECT_GE(T.of(Outcome::CheckError), 3u);
}

//===----------------------------------------------------------------------===//
// The three cases that differed before bind-mesh
//===----------------------------------------------------------------------===//

/// A MoE's slots per expert are rounded up to a multiple of the chips the
/// tokens are sharded over (D): 2 (top) x 1.25 (capacity) x 48 x 64 tokens
/// / 7 experts = 1097.14, so ceil(1097.14 / 2) x 2 = 1098 slots on D = 2
/// and ceil(1097.14 / 8) x 8 = 1104 on D = 8. Before bind-mesh, a re-cost
/// from D = 2 kept 1098.
const char *MoeProgram = R"(import "nvidia.shard";
mesh M = DGX_H100_SuperPod[D: 2, T: 1];
dim B = 48, S = 64, E = 256, F = 512, X = 7;
tensor x : bf16[B_D, S, E];
param W1 : bf16[X, E, F];
param W2 : bf16[X, F, E];
y[B_D, S, E] = moe(x, W1, W2; top = 2, capacity = 1.25);
train { }
)";

TEST(RecostEquivalence, MoeSlotsAreBoundPerMesh) {
  auto Original = compile(MoeProgram);
  ASSERT_TRUE(Original->Compiled) << llvm::join(Original->Diagnostics, "\n");
  MeshSpec M = resized(*Original, {8, 1});
  EXPECT_EQ(expectEquivalent(*Original, M, MoeProgram, "D: 8"),
            Outcome::Compiled);
  // The bound module's buffer has D = 8's 1104 slots, not D = 2's 1098.
  DiagnosticEngine Engine(Original->SM);
  auto Re = compileForMesh(*Original->P.IR, M, Engine);
  ASSERT_TRUE(bool(Re));
  bool Seen = false;
  walk<MoeDispatchOp>((*Re)->forward().body(), [&](const MoeDispatchOp &D) {
    EXPECT_EQ(D.result()->type().Dims[1].Size, 1104);
    Seen = true;
  });
  EXPECT_TRUE(Seen);
}

/// `repeat 8 over P` onto P = 3: 8 iterations do not split into 3 stages,
/// reported at the count as a fresh compile reports it.
TEST(RecostEquivalence, APipelineThatDoesNotSplitIsRefused) {
  const char *Source = R"(import "nvidia.shard";
mesh M = DGX_H100_SuperPod[P: 4, T: 2];
dim B = 64, E = 128;
tensor x : bf16[B, E];
repeat 8 over P {
  param g : bf16[E];
  x[B, E] = x * g;
}
train { microbatches = 4; }
)";
  auto Original = compile(Source);
  ASSERT_TRUE(Original->Compiled) << llvm::join(Original->Diagnostics, "\n");
  MeshSpec M = resized(*Original, {3, 2});
  EXPECT_EQ(expectEquivalent(*Original, M, Source, "P: 3"), Outcome::PassError);
}

/// The interleaved schedule with m = 8 on p = 3 stages: 12 iterations split
/// into 3 x 2 chunks, but 8 microbatches are not whole groups of 3.
TEST(RecostEquivalence, InterleavedGroupsAreCheckedPerMesh) {
  const char *Source = R"(import "nvidia.shard";
mesh M = DGX_H100_SuperPod[P: 2, T: 2];
dim B = 64, E = 128;
tensor x : bf16[B, E];
repeat 12 over P {
  param g : bf16[E];
  x[B, E] = x * g;
}
train { schedule = interleaved; chunks = 2; microbatches = 8; }
)";
  auto Original = compile(Source);
  ASSERT_TRUE(Original->Compiled) << llvm::join(Original->Diagnostics, "\n");
  MeshSpec M = resized(*Original, {3, 2});
  EXPECT_EQ(expectEquivalent(*Original, M, Source, "P: 3"), Outcome::PassError);
  auto Fresh = compile(withSizes(Source, M));
  ASSERT_EQ(Fresh->Diagnostics.size(), Fresh->CheckDiagnostics + 1);
  EXPECT_EQ(Fresh->Diagnostics.back(),
            "9:60: the interleaved schedule runs microbatches in groups of "
            "the 3 stages: 'microbatches' (8) must be a multiple of 3");
}

/// A layout's train settings (a search's knobs) compile as the file with
/// those settings written: the same report, byte for byte.
TEST(RecostEquivalence, ALayoutsTrainSettingsAreTheFileWithThem) {
  const char *Written = "train { microbatches = 2; }";
  const char *Edited = "train { microbatches = 4; zero = 3; recompute = full; "
                       "schedule = interleaved; chunks = 3; }";
  std::string Source = R"(import "nvidia.shard";
mesh M = DGX_H100_SuperPod[D: 2, P: 2, T: 2];
dim B = 64, E = 256, F = 1024;
tensor x : bf16[B_D, E];
repeat 12 over P {
  param w1 : bf16[E, F_T];
  param w2 : bf16[F_T, E];
  h[B_D, F_T] = x * w1;
  o[B_D, E]{U_T} = h * w2;
  x[B_D, E] = o;
}
)";
  auto Original = compile(Source + Written + "\n");
  ASSERT_TRUE(Original->Compiled) << llvm::join(Original->Diagnostics, "\n");
  auto Fresh = compile(Source + Edited + "\n");
  ASSERT_TRUE(Fresh->Compiled) << llvm::join(Fresh->Diagnostics, "\n");
  TrainConfig Knobs = *Original->P.IR->config().Train;
  Knobs.Microbatches = 4;
  Knobs.Zero = 3;
  Knobs.Recompute = RecomputePolicy::Full;
  Knobs.Schedule = PipelineSchedule::Interleaved;
  Knobs.Chunks = 3;
  DiagnosticEngine Engine(Original->SM);
  std::vector<std::string> Messages;
  Engine.setHandler(
      [&](const Diagnostic &D) { Messages.push_back(D.Message); });
  auto Re = shardc::compile(
      *Original->P.IR,
      Layout{Original->P.IR->mesh(), DimSizeMap(), Knobs, nullptr}, Engine);
  ASSERT_TRUE(bool(Re)) << llvm::toString(Re.takeError());
  EXPECT_TRUE(Messages.empty()) << llvm::join(Messages, "\n");
  std::string T1, T2;
  llvm::raw_string_ostream TO1(T1), TO2(T2);
  printTextReport(**Re, TO1);
  printTextReport(*Fresh->Compile, TO2);
  EXPECT_EQ(T1, T2);
}

//===----------------------------------------------------------------------===//
// Generated programs
//===----------------------------------------------------------------------===//

/// A generated training step: `layers` blocks, each an MLP, a grouped-query
/// attention or a MoE, pipelined or not, on DGX_H100_SuperPod[D, P, T].
struct GenStep {
  int64_t D = 2, P = 1, T = 2, Layers = 2, Chunks = 1, Mb = 1;
  bool Pipeline = false, Padding = false;
  std::string Schedule = "1f1b", Block = "mlp";
  unsigned Zero = 0;
  double Capacity = 1.25;
  int64_t Experts = 8, Top = 2;

  std::string render() const;
};

std::string GenStep::render() const {
  std::string S = "import \"nvidia.shard\";\n";
  S += fmt::format("mesh M = DGX_H100_SuperPod[D: {}, P: {}, T: {}];\n", D, P,
                   T);
  if (Padding)
    S += "config { allow_padding = true; }\n";
  S += fmt::format("dim B = 48, S = 64, E = 256, F = 768, N = 12, K = 4, "
                   "H = 32, X = {};\n",
                   Experts);
  S += "tensor x : bf16[B_D, S, E];\n";
  S += Pipeline ? fmt::format("repeat {} over P {{\n", Layers)
                : fmt::format("repeat {} {{\n", Layers);
  if (Block == "mlp")
    S += "  param W_in : bf16[E, F_T];\n  param W_out : bf16[F_T, E];\n"
         "  h[B_D, S, F_T] = x * W_in;\n  o[B_D, S, E]{U_T} = h * W_out;\n"
         "  x[B_D, S, E] = o;\n";
  else if (Block == "attention")
    S += "  param Wq : bf16[E, N_T, H];\n  param Wk : bf16[E, K_T, H];\n"
         "  param Wv : bf16[E, K_T, H];\n  param Wo : bf16[N_T, H, E];\n"
         "  q[B_D, S, N_T, H] = x * Wq;\n  k[B_D, S, K_T, H] = x * Wk;\n"
         "  v[B_D, S, K_T, H] = x * Wv;\n"
         "  c[B_D, S, N_T, H] = attention(q, k, v; causal = true);\n"
         "  o[B_D, S, E]{U_T} = c * Wo;\n  x[B_D, S, E] = o;\n";
  else
    S += fmt::format("  param W1 : bf16[X_T, E, F];\n"
                     "  param W2 : bf16[X_T, F, E];\n"
                     "  y[B_D, S, E] = moe(x, W1, W2; top = {}, capacity = "
                     "{});\n  x[B_D, S, E] = y;\n",
                     Top, Capacity);
  S += "}\n";
  S += fmt::format("train {{ microbatches = {}; zero = {};", Mb, Zero);
  if (Pipeline)
    S += fmt::format(
        " schedule = {};{}", Schedule,
        Schedule == "interleaved" ? fmt::format(" chunks = {};", Chunks) : "");
  return S + " }\n";
}

template <typename T> T pick(Chooser &C, std::initializer_list<T> L) {
  return L.begin()[C.index(L.size())];
}

/// A step that compiles on its own mesh (most draws do; the test counts).
GenStep generateStep(Chooser &C) {
  GenStep G;
  G.Block = pick<std::string>(C, {"mlp", "attention", "moe"});
  G.Pipeline = C.percent(50);
  G.D = pick<int64_t>(C, {1, 2, 4});
  G.T = pick<int64_t>(C, {1, 2, 4});
  G.P = G.Pipeline ? pick<int64_t>(C, {2, 4}) : 1;
  G.Schedule = pick<std::string>(C, {"gpipe", "1f1b", "interleaved"});
  G.Chunks = G.Schedule == "interleaved" ? pick<int64_t>(C, {2, 3}) : 1;
  G.Layers = (G.Pipeline ? G.P * G.Chunks : 1) * pick<int64_t>(C, {1, 2, 3});
  G.Mb = G.Pipeline && G.Schedule == "interleaved"
             ? G.P * pick<int64_t>(C, {1, 2, 3})
             : pick<int64_t>(C, {1, 2, 4, 8});
  G.Zero = unsigned(C.between(0, 3));
  G.Padding = C.percent(20);
  G.Experts = pick<int64_t>(C, {4, 7, 8});
  G.Top = pick<int64_t>(C, {1, 2});
  G.Capacity = pick<double>(C, {1.0, 1.25, 0.75});
  return G;
}

/// Another mesh for \p G: sizes that often do not divide (3, 6) or split
/// the pipeline, within the SuperPod's 1,024 chips.
std::vector<int64_t> otherSizes(Chooser &C, const GenStep &G) {
  int64_t D = pick<int64_t>(C, {1, 2, 3, 4, 8, 16});
  int64_t P = G.Pipeline ? pick<int64_t>(C, {1, 2, 3, 4, 6, 8}) : 1;
  int64_t T = pick<int64_t>(C, {1, 2, 3, 4, 8});
  return {D, P, T};
}

TEST(RecostEquivalence, GeneratedStepsOnRandomMeshes) {
  constexpr uint64_t NumPrograms = 320;
  Tally T;
  unsigned Bases = 0, Moe = 0, Pipelined = 0, Interleaved = 0;
  for (uint64_t Seed = 0; Seed < NumPrograms; ++Seed) {
    SplitMix64 C(Seed * 0x9E3779B97F4A7C15ull + 19);
    GenStep G = generateStep(C);
    std::string Source = G.render();
    auto Original = compile(Source);
    ASSERT_TRUE(Original->InternalError.empty())
        << Source << Original->InternalError;
    if (!Original->Compiled)
      continue;
    ++Bases;
    Moe += G.Block == "moe";
    Pipelined += G.Pipeline;
    Interleaved += G.Pipeline && G.Schedule == "interleaved";
    for (int K = 0; K < 2; ++K) {
      MeshSpec M = resized(*Original, otherSizes(C, G));
      T.add(expectEquivalent(*Original, M, Source,
                             "seed " + std::to_string(Seed) + " on " +
                                 withSizes("\nmesh M = C[];", M) + "\n" +
                                 Source));
    }
    if (HasFailure())
      return;
  }
  EXPECT_GE(Bases, NumPrograms * 3 / 4);
  EXPECT_GE(Moe, 40u);
  EXPECT_GE(Pipelined, 80u);
  EXPECT_GE(Interleaved, 20u);
  EXPECT_GE(T.of(Outcome::Compiled), 150u);
  EXPECT_GE(T.of(Outcome::PassError), 20u);
  EXPECT_GE(T.of(Outcome::CheckError), 20u);
  fmt::print("{} programs compiled on their mesh ({} MoE, {} pipelined, {} "
             "interleaved); on other meshes: {} compiled, {} refused by a "
             "pass, {} by the checks\n",
             Bases, Moe, Pipelined, Interleaved, T.of(Outcome::Compiled),
             T.of(Outcome::PassError), T.of(Outcome::CheckError));
}

} // namespace

//===----------------------------------------------------------------------===//
// Layouts that rebind dims
//===----------------------------------------------------------------------===//

namespace {

DimId dimNamed(const InProcessResult &R, llvm::StringRef Name) {
  const auto &Dims = R.P.IR->names().Dims;
  for (DimId I = 0; I < Dims.size(); ++I)
    if (Dims[I] == Name)
      return I;
  ADD_FAILURE() << "no dim " << Name.str();
  return 0;
}

struct DimCase {
  const char *File, *Dim, *Written, *Rebound;
  int64_t Size;
};

/// compile() with a dim rebound equals a fresh compile of the file with
/// that size written: a smaller batch, a microbatch of a pipelined step,
/// and a MoE's tokens (whose capacity slots follow).
TEST(RecostEquivalence, ALayoutsDimsAreTheFileWithThoseSizes) {
  const std::vector<DimCase> Cases = {
      {"mlp.shard", "B", "dim B = 1Mi;", "dim B = 512Ki;", 512 * 1024},
      {"train_mlp.shard", "B", "dim B = 64Ki;", "dim B = 16Ki;", 16 * 1024},
      {"llama3_70b_train.shard", "B", "dim B = 32;", "dim B = 64;", 64},
      {"moe_train.shard", "B", "dim B = 128;", "dim B = 384;", 384},
  };
  for (const DimCase &Case : Cases) {
    std::string Source = readExample(Case.File);
    auto Original = compile(Source);
    ASSERT_TRUE(Original->Compiled) << Case.File;
    std::string Edited = Source;
    size_t At = Edited.find(Case.Written);
    ASSERT_NE(At, std::string::npos) << Case.File;
    Edited.replace(At, strlen(Case.Written), Case.Rebound);
    auto Fresh = compile(Edited);
    DiagnosticEngine Engine(Original->SM);
    Layout L{Original->P.IR->mesh(), DimSizeMap(), std::nullopt, nullptr};
    L.Dims[dimNamed(*Original, Case.Dim)] = Case.Size;
    auto Re = shardc::compile(*Original->P.IR, L, Engine);
    ASSERT_TRUE(bool(Re)) << Case.File << llvm::toString(Re.takeError());
    EXPECT_EQ(Engine.hasErrors(), !Fresh->Compiled) << Case.File;
    if (!Fresh->Compiled)
      continue;
    std::string T1, T2, J1, J2;
    llvm::raw_string_ostream TO1(T1), TO2(T2), JO1(J1), JO2(J2);
    printTextReport(**Re, TO1);
    printTextReport(*Fresh->Compile, TO2);
    printJsonReport(**Re, JO1);
    printJsonReport(*Fresh->Compile, JO2);
    EXPECT_EQ(T1, T2) << Case.File;
    EXPECT_EQ(J1, J2) << Case.File;
  }
}

/// Compiles \p Source with dim \p Dim rebound to \p Size and with the
/// declaration \p Written edited to \p Rebound; expects the same reports,
/// or the same first error.
void expectRebindIsEdit(const std::string &Source, const char *Dim,
                        int64_t Size, const char *Written,
                        const char *Rebound) {
  auto Original = compile(Source);
  ASSERT_TRUE(Original->Compiled) << llvm::join(Original->Diagnostics, "\n");
  std::string Edited = Source;
  size_t At = Edited.find(Written);
  ASSERT_NE(At, std::string::npos) << Written;
  Edited.replace(At, strlen(Written), Rebound);
  auto Fresh = compile(Edited);
  std::vector<std::string> Messages;
  DiagnosticEngine Engine(Original->SM);
  Engine.setHandler(
      [&](const Diagnostic &D) { Messages.push_back(D.Message); });
  Layout L{Original->P.IR->mesh(), DimSizeMap(), std::nullopt, nullptr};
  L.Dims[dimNamed(*Original, Dim)] = Size;
  auto Re = shardc::compile(*Original->P.IR, L, Engine);
  if (!Fresh->Compiled) {
    ASSERT_FALSE(Fresh->Diagnostics.empty());
    ASSERT_FALSE(Messages.empty())
        << "no error where a fresh compile has " << Fresh->Diagnostics.front();
    // The same message (a rebound size is reported at the op).
    EXPECT_NE(Fresh->Diagnostics.front().find(Messages.front()),
              std::string::npos)
        << Fresh->Diagnostics.front() << " vs " << Messages.front();
    if (!Re)
      llvm::consumeError(Re.takeError());
    return;
  }
  ASSERT_TRUE(bool(Re)) << llvm::toString(Re.takeError());
  std::string T1, T2;
  llvm::raw_string_ostream TO1(T1), TO2(T2);
  printTextReport(**Re, TO1);
  printTextReport(*Fresh->Compile, TO2);
  EXPECT_EQ(T1, T2);
}

std::string readLitTest(const std::string &Name) {
  auto B = llvm::MemoryBuffer::getFile(std::string(SHARDC_LIT_TEST_DIR) + "/" +
                                       Name);
  EXPECT_TRUE(bool(B)) << Name;
  return B ? (*B)->getBuffer().str() : "";
}

/// A MoE whose token dim is rebound where the slots round to the same
/// count: 2 x 1.25 x 8 x 4095 / 64 = 1279.7, 1280 slots as with S = 4096,
/// but 1279.7 / 1280 of them now hold tokens (MFU counts those).
TEST(RecostEquivalence, ARebindKeepingTheSlotsStillMovesTheUsedShare) {
  expectRebindIsEdit(readLitTest("model/moe-expert-parallel.shard"), "S", 4095,
                     "S = 4096", "S = 4095");
}

/// KV heads rebound from 8 to 4 under T = 8 with padding: the query heads'
/// sharding (8 ways) no longer divides them, an error as in a fresh compile.
TEST(RecostEquivalence, ARebindOfTheKvHeadsIsCheckedAtTheNewSize) {
  expectRebindIsEdit("import \"nvidia.shard\";\n"
                     "mesh M = DGX_H100_Node[T: 8];\n"
                     "config { allow_padding = true; }\n"
                     "dim B = 1, S = 4096, N = 64, K = 8, H = 128;\n"
                     "tensor q : bf16[B, S, N_T, H];\n"
                     "tensor k : bf16[B, S, K_T, H];\n"
                     "tensor v : bf16[B, S, K_T, H];\n"
                     "o[B, S, N_T, H] = attention(q, k, v);\n",
                     "K", 4, "K = 8", "K = 4");
}

/// A dim another declaration computes from cannot be rebound alone.
TEST(RecostEquivalence, ADimAnExpressionReadsIsNotRebound) {
  auto Original = compile("import \"nvidia.shard\";\n"
                          "mesh M = DGX_H100_Node[X: 8];\n"
                          "dim B = 64, E = 128, F = 4 * E;\n"
                          "tensor x : bf16[B_X, E];\ntensor w : bf16[E, F];\n"
                          "y[B_X, F] = x * w;\n");
  ASSERT_TRUE(Original->Compiled) << llvm::join(Original->Diagnostics, "\n");
  DiagnosticEngine Engine(Original->SM);
  Layout L{Original->P.IR->mesh(), DimSizeMap(), std::nullopt, nullptr};
  L.Dims[dimNamed(*Original, "E")] = 256;
  auto Re = shardc::compile(*Original->P.IR, L, Engine);
  ASSERT_FALSE(bool(Re));
  EXPECT_EQ(llvm::toString(Re.takeError()),
            "dim 'E' is read by an expression of the program (another dim, a "
            "let, a count): a layout cannot rebind it");
  L.Dims.clear();
  L.Dims[dimNamed(*Original, "B")] = 128; // B is free
  auto Ok = shardc::compile(*Original->P.IR, L, Engine);
  ASSERT_TRUE(bool(Ok)) << llvm::toString(Ok.takeError());
  EXPECT_FALSE(Engine.hasErrors());
}

} // namespace
