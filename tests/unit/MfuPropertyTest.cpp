//===- MfuPropertyTest.cpp - MFU of attention-heavy steps, generated ------===//
//
// Seeded training steps whose FLOPs are mostly attention's: a stack of
// `repeat L` layers (q, k, v projections, attention, an output projection
// and a residual add) on DGX_H100_Node [D: d, T: t], or pipelined over P on
// 64 chips of DGX_H100_SuperPod, with grouped-query heads sharded over T,
// sequences up to 131,072 tokens, causal or not, fused or not (with
// dropout), and a random `train { }` block (recompute, optimizer,
// microbatches). Properties of the step summary (docs/training.md):
//  - MFU counts causal attention at the half it computes, so it is at most
//    HFU (the backward executes at least 2x the forward's contraction FLOPs
//    and 2.5x its attention's) and at most 100%; checkCostsSane agrees;
//  - the full count ("MFU, causal in full") is MFU plus exactly the masked
//    half of the causal attention's forward, 3 x m x L x 2·B·S²·N·H, over
//    the same chips x peak x T_step; without causal attention the two are
//    equal, and the text prints the second line only with it.
//
//===----------------------------------------------------------------------===//
#include "shardc/Config.h"
#include "tests/support/CompileInProcess.h"
#include "tests/support/ProgramGenerator.h"
#include "gtest/gtest.h"
#include <fmt/format.h>
#include <map>

using namespace shardc;
using namespace shardc::testgen;

namespace {

constexpr uint64_t NumSeeds = 120;

struct AttentionProgram {
  bool Pipelined = false; ///< [D, P: 2, T] on 64 chips, else one node
  int64_t D = 1, T = 1, L = 1, M = 1;
  int64_t B = 1, S = 1024, E = 1024, N = 8, K = 8, H = 128;
  bool Causal = true, Fused = true, Dropout = false;
  std::string Recompute = "none", Optimizer = "sgd";

  std::string render() const {
    std::string Src = "import \"nvidia.shard\";\n";
    Src += Pipelined
               ? fmt::format(
                     "mesh M = DGX_H100_SuperPod[D: {}, P: 2, T: {}];\n", D, T)
               : fmt::format("mesh M = DGX_H100_Node[D: {}, T: {}];\n", D, T);
    Src += fmt::format("dim B = {}, S = {}, E = {}, N = {}, K = {}, H = {};\n",
                       B, S, E, N, K, H);
    Src += "tensor x : bf16[B_D, S, E];\n";
    Src += fmt::format("repeat {}{} {{\n", Pipelined ? 2 * L : L,
                       Pipelined ? " over P" : "");
    Src += "  param Wq : bf16[E, N_T, H];\n"
           "  param Wk : bf16[E, K_T, H];\n"
           "  param Wv : bf16[E, K_T, H];\n"
           "  param Wo : bf16[N_T, H, E];\n"
           "  q[B_D, S, N_T, H] = x * Wq;\n"
           "  k[B_D, S, K_T, H] = x * Wk;\n"
           "  v[B_D, S, K_T, H] = x * Wv;\n";
    Src += fmt::format("  c[B_D, S, N_T, H] = attention(q, k, v; causal = {}, "
                       "fused = {}, dropout = {});\n",
                       Causal, Fused, Dropout);
    Src += "  o[B_D, S, E] = c * Wo;\n"
           "  x[B_D, S, E] = x + o;\n"
           "}\n";
    Src += fmt::format("train {{ microbatches = {}; recompute = {}; "
                       "optimizer = {}; }}\n",
                       M, Recompute, Optimizer);
    return Src;
  }

  int64_t layers() const { return Pipelined ? 2 * L : L; }
};

AttentionProgram program(uint64_t Seed) {
  SplitMix64 C(Seed);
  AttentionProgram G;
  G.Pipelined = C.percent(25);
  uint64_t TBits = C.between(0, 3);
  G.T = int64_t(1) << TBits;                   // 1 .. 8
  G.D = int64_t(1) << C.between(0, 3 - TBits); // D x T <= 8
  G.Fused = C.percent(80);
  G.Dropout = !G.Fused && C.percent(50);
  G.Causal = C.percent(75);
  // Unfused attention stores the S x S scores: keep them in HBM.
  G.S = int64_t(1) << C.between(10, G.Fused ? 17 : 12);
  G.B = G.D << (G.S <= 8192 ? C.between(0, 1) : 0);
  G.H = C.percent(50) ? 64 : 128;
  G.K = G.T << C.between(0, 2);
  G.N = G.K << C.between(0, 3);
  G.E = int64_t(512) << C.between(0, 3);
  G.L = int64_t(C.between(1, 3));
  G.M = int64_t(C.between(1, 4));
  static const char *Recompute[] = {"none", "selective", "full", "attention"};
  G.Recompute = Recompute[C.index(4)];
  static const char *Optimizer[] = {"none", "sgd", "adam"};
  G.Optimizer = Optimizer[C.index(3)];
  return G;
}

const InProcessResult &compiled(uint64_t Seed) {
  static std::map<uint64_t, std::unique_ptr<InProcessResult>> Cache;
  std::unique_ptr<InProcessResult> &R = Cache[Seed];
  if (!R) {
    InProcessOptions O;
    O.StdlibDir = SHARDC_SOURCE_STDLIB_DIR;
    R = compileInProcess(program(Seed).render(), O);
  }
  return *R;
}

TEST(MfuProperty, MostProgramsCompile) {
  unsigned Compiled = 0;
  for (uint64_t Seed = 0; Seed < NumSeeds; ++Seed) {
    const InProcessResult &R = compiled(Seed);
    ASSERT_EQ(R.InternalError, "") << program(Seed).render();
    Compiled += R.Compiled;
  }
  // A few are over HBM (long sequences, many heads, recompute = none).
  EXPECT_GE(Compiled, NumSeeds * 3 / 4);
}

TEST(MfuProperty, MfuAtMostHfuAndOne) {
  for (uint64_t Seed = 0; Seed < NumSeeds; ++Seed) {
    const InProcessResult &R = compiled(Seed);
    if (!R.Compile || !R.Compile->Tables.Step)
      continue;
    std::string Src = program(Seed).render();
    const StepSummary &S = *R.Compile->Tables.Step;
    EXPECT_GT(S.Mfu, 0) << Src;
    EXPECT_LE(S.Mfu, S.Hfu * (1 + 1e-9)) << Src;
    EXPECT_LE(S.Hfu, 1 + 1e-9) << Src;
    EXPECT_LE(S.Mfu, S.MfuCausalFull * (1 + 1e-12)) << Src;
    EXPECT_EQ(checkCostsSane(*R.Compile), "") << Src;
  }
}

TEST(MfuProperty, CausalInFullAddsTheMaskedHalf) {
  for (uint64_t Seed = 0; Seed < NumSeeds; ++Seed) {
    const InProcessResult &R = compiled(Seed);
    if (!R.Compile || !R.Compile->Tables.Step)
      continue;
    AttentionProgram G = program(Seed);
    std::string Src = G.render();
    const StepSummary &S = *R.Compile->Tables.Step;
    // The forward's masked half, whole program: 4·B·S²·N·H / 2 per layer.
    double Masked = G.Causal
                        ? 3.0 * double(G.M * G.layers()) * 2 * double(G.B) *
                              double(G.S) * double(G.S) * double(G.N * G.H)
                        : 0;
    EXPECT_NEAR(S.ModelFlopsCausalFull - S.ModelFlops, Masked,
                1e-9 * S.ModelFlopsCausalFull)
        << Src;
    double Chips = double(R.Compile->mesh().numChips());
    double Peak = R.Compile->mesh().Cluster->Chip.matmulPeak(DType::bf16);
    EXPECT_NEAR(S.MfuCausalFull - S.Mfu, Masked / (Chips * Peak * S.TStep),
                1e-9 * S.MfuCausalFull)
        << Src;
    if (R.Compiled) {
      bool Printed =
          llvm::StringRef(R.Text).contains("\n  MFU, causal in full  ");
      EXPECT_EQ(Printed, G.Causal) << Src;
    }
  }
}

} // namespace
