//===- TrainingPropertyTest.cpp - Training-step properties, generated -----===//
//
// A seeded generator of MLP-stack training programs (LANGUAGE.md §7) on
// DGX_H100_Node or DGX_H100_SuperPod (64 chips) with a random [D: a, T: b]
// split: a `repeat L` of two params and two contractions (an optional gelu
// or relu between), each program data-parallel (over D, or D and T),
// tensor-parallel (F_T: Megatron's row-parallel `{U_T}` output written out
// and AllReduced by a reshard, or left to the planner) and/or FSDP (E_D on
// the params), with a random `train { }` block. Each seed's program is
// compiled in a few variants (recompute policies, more microbatches, no
// train block), once for all the tests. Programs that get a diagnostic (a
// step over HBM) would be skipped, but most must compile. Properties
// (COST-MODEL.md §5-§7):
//  - contraction-only, recompute = none: the backward's matmul FLOPs are
//    exactly twice the forward's (useful FLOPs always; per chip when the
//    forward replicates no compute);
//  - recompute = full executes exactly one more forward per microbatch:
//    HFU x T_step grows by the forward's matmul time at peak, x m;
//  - none -> selective -> full: activations never grow, executed FLOPs
//    never shrink;
//  - every memory term is non-negative, the total is their sum, and more
//    microbatches change no term (no pipeline: one microbatch's activations
//    are held at a time);
//  - T_step = T_pipe + exposed sync + optimizer + param gather >= T_pipe
//    >= m x t_f, T_pipe = m x t_f + t_b(first) + (m - 1) x t_b, the exposed
//    sync is at most the sync issued, MFU <= HFU <= 1. (MFU <= HFU holds
//    because every contraction operand gets a gradient, so the backward
//    executes 2x the forward; MfuPropertyTest checks it with causal
//    attention, which MFU counts at the half it computes.)
//  - the text report prints the JSON's step time, MFU and memory terms,
//    and the JSON carries the tables' numbers;
//  - without a `train { }` block, `param` is `tensor`: the same numbers and
//    the same reports.
//
//===----------------------------------------------------------------------===//
#include "shardc/Config.h"
#include "support/Format.h"
#include "tests/support/CompileInProcess.h"
#include "tests/support/ProgramGenerator.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "gtest/gtest.h"
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <map>

using namespace shardc;
using namespace shardc::testgen;

namespace {

constexpr uint64_t NumSeeds = 300;

/// One generated training program, edited by the tests before rendering.
struct TrainingProgram {
  bool SuperPod = false; ///< 64 chips of DGX_H100_SuperPod, else one node
  int64_t D = 8, T = 1;  ///< the mesh's axis sizes
  bool Seq = false;      ///< activations [B, S, E] rather than [B, E]
  int64_t B = 0, S = 0, E = 0, F = 0;
  unsigned Layers = 1;
  bool BatchOverT = false; ///< B_{D,T}: T is data-parallel too (no TP)
  bool TP = false;         ///< F_T on W_in and W_out
  bool Megatron = false;   ///< TP: `o{U_T}` written, then `x = o` reshards
  bool Fsdp = false;       ///< E_D on the params
  enum Act { None, Gelu, Relu } Activation = None;
  bool Param = true; ///< `param` (else `tensor`) for the weights
  bool Train = true;
  int64_t Microbatches = 1;
  std::string Optimizer = "adam", Recompute = "none", Grad = "fp32";
  unsigned Zero = 0;

  std::string render() const;
};

std::string TrainingProgram::render() const {
  std::string Batch = BatchOverT ? "B_{D,T}" : "B_D";
  std::string Lead = Batch + (Seq ? ", S" : "");
  std::string FT = TP ? "F_T" : "F", ED = Fsdp ? "E_D" : "E";
  std::string Act = Activation == Gelu ? "gelu" : "relu";
  std::string W = Param ? "param" : "tensor";
  std::string Out;
  Out += "import \"nvidia.shard\";\n";
  Out += fmt::format("mesh M = {}[D: {}, T: {}];\n",
                     SuperPod ? "DGX_H100_SuperPod" : "DGX_H100_Node", D, T);
  Out += fmt::format("dim B = {}, E = {}, F = {}{};\n", B, E, F,
                     Seq ? fmt::format(", S = {}", S) : "");
  Out += fmt::format("tensor x : bf16[{}, E];\n", Lead);
  Out += fmt::format("repeat {} {{\n", Layers);
  Out += fmt::format("  {} W_in : bf16[{}, {}];\n", W, ED, FT);
  Out += fmt::format("  {} W_out : bf16[{}, {}];\n", W, FT, ED);
  Out += fmt::format("  h[{}, {}] = x * W_in;\n", Lead, FT);
  std::string Hidden = "h";
  if (Activation != None) {
    Out += fmt::format("  a[{}, {}] = {}(h);\n", Lead, FT, Act);
    Hidden = "a";
  }
  if (Megatron) {
    Out += fmt::format("  o[{}, E]{{U_T}} = {} * W_out;\n", Lead, Hidden);
    Out += fmt::format("  x[{}, E] = o;\n", Lead);
  } else {
    Out += fmt::format("  x[{}, E] = {} * W_out;\n", Lead, Hidden);
  }
  Out += "}\n";
  if (Train)
    Out += fmt::format("train {{ microbatches = {}; optimizer = {}; zero = {}; "
                       "recompute = {}; grad = {}; }}\n",
                       Microbatches, Optimizer, Zero, Recompute, Grad);
  return Out;
}

int64_t pow2(Chooser &C, unsigned Lo, unsigned Hi) {
  return int64_t(1) << C.between(Lo, Hi);
}

template <typename T> T pick(Chooser &C, std::initializer_list<T> L) {
  return L.begin()[C.index(L.size())];
}

TrainingProgram generate(uint64_t Seed) {
  SplitMix64 C(Seed * 0x9E3779B97F4A7C15ull + 11);
  TrainingProgram P;
  P.SuperPod = C.percent(40);
  int64_t Chips = P.SuperPod ? 64 : 8;
  P.T = pow2(C, 0, P.SuperPod ? 6 : 3);
  P.D = Chips / P.T;
  P.Seq = C.percent(30);
  P.S = P.Seq ? pow2(C, 6, 9) : 0;
  // Every dim is a power of two at least the chip count, so any axis
  // split divides it.
  int64_t Tokens = pow2(C, 10, 16);
  P.B = std::max<int64_t>(Chips, P.Seq ? Tokens / P.S : Tokens);
  P.E = pow2(C, 9, 13);
  P.F = P.E * pow2(C, 1, 2);
  P.Layers = unsigned(C.between(1, 4));
  P.TP = P.T > 1 && C.percent(60);
  P.BatchOverT = !P.TP && P.T > 1 && C.percent(60);
  P.Megatron = P.TP && C.percent(50);
  P.Fsdp = C.percent(30);
  P.Activation = TrainingProgram::Act(C.between(0, 2));
  P.Microbatches = pick<int64_t>(C, {1, 1, 2, 4, 8});
  P.Optimizer = pick<std::string>(C, {"adam", "sgd", "none"});
  P.Zero = unsigned(C.between(0, 3));
  P.Recompute =
      pick<std::string>(C, {"none", "selective", "full", "attention"});
  P.Grad = pick<std::string>(C, {"fp32", "bf16"});
  return P;
}

/// The program of one seed, edited for one property.
enum class Variant {
  AsDrawn,
  MoreMicrobatches, ///< 4 x the microbatches
  RecomputeNone,
  RecomputeSelective,
  RecomputeFull,
  RecomputeAttention,
  ContractionsOnly, ///< no gelu or relu, recompute = none
  ForwardParam,     ///< no train block
  ForwardTensor,    ///< no train block, `tensor` for `param`
};

TrainingProgram program(uint64_t Seed, Variant V) {
  TrainingProgram P = generate(Seed);
  switch (V) {
  case Variant::AsDrawn:
    break;
  case Variant::MoreMicrobatches:
    P.Microbatches *= 4;
    break;
  case Variant::RecomputeNone:
    P.Recompute = "none";
    break;
  case Variant::RecomputeSelective:
    P.Recompute = "selective";
    break;
  case Variant::RecomputeFull:
    P.Recompute = "full";
    break;
  case Variant::RecomputeAttention:
    P.Recompute = "attention";
    break;
  case Variant::ContractionsOnly:
    P.Activation = TrainingProgram::None;
    P.Recompute = "none";
    break;
  case Variant::ForwardTensor:
    P.Param = false;
    [[fallthrough]];
  case Variant::ForwardParam:
    P.Train = false;
    break;
  }
  return P;
}

/// The compile of \p Seed's \p V; each is compiled once for all the tests
/// (parsing the stdlib's presets is most of the time).
const InProcessResult &compiled(uint64_t Seed, Variant V) {
  static std::map<std::pair<uint64_t, Variant>,
                  std::unique_ptr<InProcessResult>>
      Cache;
  std::unique_ptr<InProcessResult> &R = Cache[{Seed, V}];
  if (!R) {
    InProcessOptions O;
    O.StdlibDir = SHARDC_SOURCE_STDLIB_DIR;
    // Rendering the reports is half a compile's time: only where read.
    O.Reports = V == Variant::AsDrawn || V == Variant::ForwardParam ||
                V == Variant::ForwardTensor;
    std::string Source = program(Seed, V).render();
    R = compileInProcess(Source, O);
    // A broken invariant is a shardc bug, never a reason to skip.
    EXPECT_EQ(R->InternalError, "") << Source;
  }
  return *R;
}

/// Why \p R did not compile, for failure messages.
std::string explain(const InProcessResult &R, const std::string &Source) {
  return "internal error: " + R.InternalError + "\ndiagnostics:\n" +
         llvm::join(R.Diagnostics, "\n") + "\nprogram:\n" + Source;
}

/// Runs \p Check on the seeds whose variants \p Vs all compile (most must:
/// a step over HBM is the diagnostic expected), with their compiles in the
/// order of \p Vs and the first variant's program.
template <typename CheckFn>
void forEachProgram(std::initializer_list<Variant> Vs, CheckFn Check,
                    uint64_t Stride = 1) {
  unsigned Compiled = 0;
  std::vector<std::string> Skipped;
  for (uint64_t Seed = 0; Seed < NumSeeds; Seed += Stride) {
    std::vector<const InProcessResult *> Rs;
    for (Variant V : Vs) {
      const InProcessResult &R = compiled(Seed, V);
      if (!R.Compiled) {
        if (Skipped.size() < 3)
          Skipped.push_back(explain(R, program(Seed, V).render()));
        break;
      }
      Rs.push_back(&R);
    }
    if (Rs.size() != Vs.size())
      continue;
    ++Compiled;
    TrainingProgram P = program(Seed, *Vs.begin());
    SCOPED_TRACE("seed " + std::to_string(Seed) + ":\n" + P.render());
    Check(P, Rs);
  }
  EXPECT_GE(Compiled, NumSeeds / Stride * 9 / 10)
      << "first skipped:\n"
      << llvm::join(Skipped, "\n---\n");
}

void expectRelEq(double A, double B, double Tol, const std::string &What) {
  EXPECT_LE(std::fabs(A - B), Tol * std::max(std::fabs(A), std::fabs(B)))
      << What << ": " << fmt::format("{:.17g} vs {:.17g}", A, B);
}

/// Matmul FLOPs x repeat of the contraction statements of phase \p Ph:
/// per chip (as executed) and useful (whole program).
std::pair<double, double> contractionFlops(const MeshCompile &C, Phase Ph) {
  double PerChip = 0, Useful = 0;
  const ProgramInfo &Info = C.lowered()->info();
  for (size_t I = 0; I < Info.Statements.size(); ++I) {
    const Statement &S = Info.Statements[I];
    const auto &Cost = C.Tables.StatementCosts[I];
    if (!Cost || S.Ph != Ph || S.Kind != OpKind::Contraction)
      continue;
    PerChip += Cost->Flops * double(S.Repeat);
    Useful += Cost->UsefulFlops * double(S.Repeat);
  }
  return {PerChip, Useful};
}

/// The forward's matmul time at peak per chip, for one microbatch.
double forwardHwAtPeak(const MeshCompile &C) {
  double T = 0;
  const ProgramInfo &Info = C.lowered()->info();
  for (size_t I = 0; I < Info.Statements.size(); ++I)
    if (Info.Statements[I].Ph == Phase::Forward && C.Tables.StatementCosts[I])
      T += C.Tables.StatementCosts[I]->HwAtPeak *
           double(Info.Statements[I].Repeat);
  return T;
}

TEST(TrainingProperty, MostGeneratedProgramsCompile) {
  // Also: every generated program is a training step with a summary.
  forEachProgram({Variant::AsDrawn}, [](const TrainingProgram &, auto Rs) {
    EXPECT_TRUE(Rs[0]->Compile->Tables.Step.has_value());
    EXPECT_TRUE(Rs[0]->Compile->Tables.Memory.has_value());
  });
}

TEST(TrainingProperty, BackwardMatmulFlopsAreTwiceTheForward) {
  unsigned PerChip = 0;
  forEachProgram(
      {Variant::ContractionsOnly}, [&](const TrainingProgram &, auto Rs) {
        const MeshCompile &C = *Rs[0]->Compile;
        auto [FwdChip, FwdUseful] = contractionFlops(C, Phase::Forward);
        auto [BwdChip, BwdUseful] = contractionFlops(C, Phase::Backward);
        EXPECT_GT(FwdUseful, 0);
        expectRelEq(BwdUseful, 2 * FwdUseful, 1e-9, "useful FLOPs");
        // Per chip too, when the forward repeats no work on several chips (a
        // mesh axis that shards nothing replicates the forward's compute, and
        // the backward's plans may shard it).
        if (FwdChip * double(C.mesh().numChips()) == FwdUseful) {
          expectRelEq(BwdChip, 2 * FwdChip, 1e-9, "FLOPs per chip");
          ++PerChip;
        }
      });
  EXPECT_GE(PerChip, NumSeeds / 2);
}

TEST(TrainingProperty, FullRecomputeAddsExactlyOneForward) {
  forEachProgram({Variant::RecomputeFull, Variant::RecomputeNone},
                 [](const TrainingProgram &P, auto Rs) {
                   const StepSummary &F = *Rs[0]->Compile->Tables.Step,
                                     &N = *Rs[1]->Compile->Tables.Step;
                   double Fwd = forwardHwAtPeak(*Rs[0]->Compile);
                   EXPECT_EQ(Fwd, forwardHwAtPeak(*Rs[1]->Compile));
                   expectRelEq(F.Hfu * F.TStep,
                               N.Hfu * N.TStep + Fwd * double(P.Microbatches),
                               1e-9, "HFU x T_step");
                   // The model FLOPs do not count recompute.
                   EXPECT_EQ(F.ModelFlops, N.ModelFlops);
                   EXPECT_GE(F.TBwd, N.TBwd);
                 });
}

TEST(TrainingProperty, MemoryTermsAddUpAndDoNotGrowWithMicrobatches) {
  forEachProgram({Variant::AsDrawn, Variant::MoreMicrobatches},
                 [](const TrainingProgram &P, auto Rs) {
                   const MemorySummary &M = *Rs[0]->Compile->Tables.Memory,
                                       &MM = *Rs[1]->Compile->Tables.Memory;
                   double Sum = 0;
                   for (unsigned T = 0; T < NumMemoryTerms; ++T) {
                     EXPECT_GE(M.Bytes[T], 0)
                         << memoryTermName(MemoryTerm(T)).str();
                     Sum += M.Bytes[T];
                   }
                   EXPECT_EQ(M.Total, Sum);
                   // No pipeline: one microbatch's activations are held at a
                   // time, and nothing else depends on m.
                   EXPECT_EQ(M.InFlight, 1);
                   EXPECT_EQ(MM.InFlight, 1);
                   for (unsigned T = 0; T < NumMemoryTerms; ++T)
                     EXPECT_EQ(MM.Bytes[T], M.Bytes[T])
                         << memoryTermName(MemoryTerm(T)).str() << " with "
                         << 4 * P.Microbatches << " microbatches";
                   EXPECT_EQ(MM.Total, M.Total);
                 });
}

TEST(TrainingProperty, RecomputeSavesLessAndExecutesMore) {
  // none saves every activation the backward reads, selective only the
  // contractions' inputs, full only each iteration's carried value; what is
  // not saved is recomputed, so the executed FLOPs go the other way.
  forEachProgram({Variant::RecomputeNone, Variant::RecomputeSelective,
                  Variant::RecomputeFull},
                 [](const TrainingProgram &, auto Rs) {
                   auto Act = [&](size_t I) {
                     return Rs[I]->Compile->Tables.Memory->Bytes[unsigned(
                         MemoryTerm::Activations)];
                   };
                   auto Hw = [&](size_t I) {
                     const StepSummary &S = *Rs[I]->Compile->Tables.Step;
                     return S.Hfu * S.TStep;
                   };
                   EXPECT_GE(Act(0), Act(1));
                   EXPECT_GE(Act(1), Act(2));
                   EXPECT_GT(Act(2), 0);
                   EXPECT_LE(Hw(0), Hw(1) * (1 + 1e-9));
                   EXPECT_LE(Hw(1), Hw(2) * (1 + 1e-9));
                 });
}

TEST(TrainingProperty, AttentionRecomputeIsNoneWithoutUnfusedAttention) {
  // `attention` re-runs only unfused attention, which these programs do not
  // have: it saves and executes exactly what `none` does.
  forEachProgram({Variant::RecomputeNone, Variant::RecomputeAttention},
                 [](const TrainingProgram &, auto Rs) {
                   const MemorySummary &A = *Rs[0]->Compile->Tables.Memory,
                                       &B = *Rs[1]->Compile->Tables.Memory;
                   for (unsigned T = 0; T < NumMemoryTerms; ++T)
                     EXPECT_EQ(A.Bytes[T], B.Bytes[T]) << T;
                   EXPECT_EQ(Rs[0]->Compile->Tables.Step->TStep,
                             Rs[1]->Compile->Tables.Step->TStep);
                 });
}

TEST(TrainingProperty, StepTimeBounds) {
  forEachProgram({Variant::AsDrawn}, [](const TrainingProgram &, auto Rs) {
    const StepSummary &S = *Rs[0]->Compile->Tables.Step;
    double M = double(S.Microbatches);
    EXPECT_GE(S.TStep, S.TPipe);
    EXPECT_GE(S.TPipe, M * S.TFwd * (1 - 1e-12));
    expectRelEq(S.TPipe, M * S.TFwd + S.TBwdFirst + (M - 1) * S.TBwd, 1e-9,
                "T_pipe");
    expectRelEq(S.TStep, S.TPipe + S.TSyncExposed + S.TOpt + S.TParamGather,
                1e-12, "T_step");
    EXPECT_LE(S.TBwdFirst, S.TBwd);
    EXPECT_GE(S.TSyncExposed, 0);
    EXPECT_LE(S.TSyncExposed, S.TSync * (1 + 1e-12));
    EXPECT_GT(S.Mfu, 0);
    EXPECT_LE(S.Mfu, S.Hfu * (1 + 1e-9));
    EXPECT_LE(S.Hfu, 1 + 1e-9);
  });
}

/// The number and unit that follow \p Label on a line of \p Text (a line
/// `  <Label>  <number> <unit>...`), as a value in the base unit.
std::optional<double> printed(llvm::StringRef Text, llvm::StringRef Label) {
  llvm::SmallVector<llvm::StringRef, 64> Lines;
  Text.split(Lines, '\n');
  for (llvm::StringRef L : Lines) {
    llvm::StringRef T = L.ltrim();
    if (!T.consume_front(Label) || !T.startswith(" "))
      continue;
    T = T.ltrim();
    std::string Num = T.take_until([](char C) { return C == ' '; }).str();
    T = T.drop_front(Num.size()).ltrim();
    if (!Num.empty() && Num.back() == '%')
      return std::strtod(Num.c_str(), nullptr) / 100;
    llvm::StringRef Unit = T.take_until([](char C) { return C == ' '; });
    static const std::pair<const char *, double> Units[] = {
        {"s", 1},      {"ms", 1e-3}, {"µs", 1e-6}, {"ns", 1e-9},
        {"ps", 1e-12}, {"B", 1},     {"kB", 1e3},  {"MB", 1e6},
        {"GB", 1e9},   {"TB", 1e12}, {"PB", 1e15}};
    for (auto [Name, Scale] : Units)
      if (Unit == Name)
        return std::strtod(Num.c_str(), nullptr) * Scale;
    return std::nullopt;
  }
  return std::nullopt;
}

/// \p Text's figure after \p Label equals \p Json to the 4 significant
/// figures printed.
void expectPrinted(const std::string &Text, llvm::StringRef Label, double Json,
                   llvm::StringRef Key) {
  std::optional<double> V = printed(Text, Label);
  ASSERT_TRUE(V.has_value()) << "no '" << Label.str() << "' line:\n" << Text;
  double HalfUlp =
      Json == 0
          ? 0
          : 0.5 * std::pow(10.0, std::floor(std::log10(std::fabs(Json))) - 3);
  EXPECT_LE(std::fabs(*V - Json), HalfUlp * (1 + 1e-9))
      << Label.str() << " prints " << *V << ", JSON " << Key.str() << " is "
      << fmt::format("{:.17g}", Json);
}

TEST(TrainingProperty, TextAndJsonAgree) {
  forEachProgram({Variant::AsDrawn}, [](const TrainingProgram &, auto Rs) {
    const InProcessResult &R = *Rs[0];
    llvm::Expected<llvm::json::Value> J = llvm::json::parse(R.Json);
    ASSERT_TRUE(bool(J)) << llvm::toString(J.takeError());
    const llvm::json::Array *Entries = J->getAsArray();
    ASSERT_TRUE(Entries && Entries->size() == 1);
    const llvm::json::Object &Entry = *(*Entries)[0].getAsObject();
    const llvm::json::Object *Step = Entry.getObject("step");
    const llvm::json::Object *Mem = Entry.getObject("memory");
    ASSERT_TRUE(Step && Mem) << R.Json;
    const StepSummary &S = *R.Compile->Tables.Step;
    const MemorySummary &M = *R.Compile->Tables.Memory;
    // The JSON carries the tables' numbers.
    EXPECT_EQ(*Step->getNumber("time_s"), S.TStep);
    EXPECT_EQ(*Step->getNumber("mfu"), S.Mfu);
    EXPECT_EQ(*Mem->getNumber("total_bytes"), M.Total);
    // The text prints them.
    expectPrinted(R.Text, "step time", *Step->getNumber("time_s"),
                  "step.time_s");
    // MFU prints as a percentage with one decimal.
    double Mfu = *Step->getNumber("mfu");
    std::optional<double> Printed = printed(R.Text, "MFU");
    ASSERT_TRUE(Printed.has_value()) << R.Text;
    EXPECT_LE(std::fabs(*Printed - Mfu), 0.0005 * (1 + 1e-9))
        << "MFU prints " << *Printed << ", JSON step.mfu is " << Mfu;
    EXPECT_NE(
        R.Text.find(fmt::format("  MFU                  {:.1f}%", 100 * Mfu)),
        std::string::npos);
    size_t At = R.Text.find("\nmemory per chip");
    ASSERT_NE(At, std::string::npos) << R.Text;
    std::string Table = R.Text.substr(At);
    for (const char *Term : {"weights", "gradients", "optimizer", "activations",
                             "transient", "total"}) {
      std::string Key = std::string(Term) + "_bytes";
      llvm::Optional<double> B = Mem->getNumber(Key);
      ASSERT_TRUE(B.hasValue()) << Key;
      expectPrinted(Table, Term, *B, "memory." + Key);
      EXPECT_NE(Table.find(formatAmount(*B, "B")), std::string::npos) << Key;
    }
    for (unsigned T = 0; T < NumMemoryTerms; ++T)
      EXPECT_EQ(*Mem->getNumber(memoryTermName(MemoryTerm(T)).str() + "_bytes"),
                M.Bytes[T]);
  });
}

TEST(TrainingProperty, ParamOutsideTrainIsATensor) {
  forEachProgram(
      {Variant::ForwardParam, Variant::ForwardTensor},
      [](const TrainingProgram &, auto Rs) {
        const MeshCompile &CP = *Rs[0]->Compile, &CT = *Rs[1]->Compile;
        EXPECT_FALSE(CP.Tables.Step || CP.Tables.Memory);
        const ProgramCost &A = *CP.Tables.Totals, &B = *CT.Tables.Totals;
        EXPECT_EQ(A.Time, B.Time);
        EXPECT_EQ(A.TMath, B.TMath);
        EXPECT_EQ(A.THbm, B.THbm);
        EXPECT_EQ(A.TComms, B.TComms);
        EXPECT_EQ(A.Flops, B.Flops);
        EXPECT_EQ(A.Mfu, B.Mfu);
        EXPECT_EQ(A.LevelBytes, B.LevelBytes);
        const auto &SP = CP.Tables.StatementCosts,
                   &ST = CT.Tables.StatementCosts;
        ASSERT_EQ(SP.size(), ST.size());
        for (size_t I = 0; I < SP.size(); ++I) {
          ASSERT_EQ(SP[I].has_value(), ST[I].has_value());
          if (SP[I]) {
            EXPECT_EQ(SP[I]->Time, ST[I]->Time) << "statement " << I;
          }
        }
        // The reports too: the declarations' keyword is not in them.
        EXPECT_EQ(Rs[0]->Json, Rs[1]->Json);
        EXPECT_EQ(Rs[0]->Text, Rs[1]->Text);
      },
      /*Stride=*/3);
}

} // namespace
