//===- MetamorphicPropertyTest.cpp - What a change of input may not do ----===//
//
// Metamorphic properties (issue 25): an input changed in a direction that
// can only help must not make shardc's answer worse. Run over the shipped
// examples and every chunk of the validation files (real training steps:
// pipelines, sequence parallelism, interleaving, ZeRO, fixed costs, MoE),
// over generated forward programs and generated training steps
// (tests/support/StepGenerator):
//  - twice the HBM bandwidth never increases T_hbm, a total's time or a
//    step's time;
//  - twice every FLOP/s peak never increases T_math, a total's time or a
//    step's time;
//  - twice every link's bandwidth never increases T_comms, a total's time
//    or a step's time;
//  - overlap switched off (config overlap = false, tp_overlap = none,
//    param_gather = exposed, p2p_overlap = false) never makes a step
//    faster than the file as written or with tp_overlap = all;
//  - recompute = full is never faster than recompute = none;
//  - zero = 3 never holds more memory per chip than zero = 0;
//  - MFU <= HFU <= 1, and every number of the JSON report is finite.
// The hardware is changed on the checked module's mesh (a re-cost, which
// equals a fresh compile by construction: RecostTest); train settings by
// editing the file's text, so each variant is what a user would write.
//
//===----------------------------------------------------------------------===//
#include "passes/Pipeline.h"
#include "report/Describe.h"
#include "shardc/Config.h"
#include "tests/support/CompileInProcess.h"
#include "tests/support/JsonCheck.h"
#include "tests/support/ProgramGenerator.h"
#include "tests/support/StepGenerator.h"
#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"
#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>

using namespace shardc;
using namespace shardc::testgen;

namespace {

constexpr double Slack = 1e-9; ///< relative: sums in another order

std::unique_ptr<InProcessResult> compile(const std::string &Source) {
  InProcessOptions O;
  O.StdlibDir = SHARDC_SOURCE_STDLIB_DIR;
  return compileInProcess(Source, O);
}

std::string readFile(const std::string &Path) {
  auto B = llvm::MemoryBuffer::getFile(Path);
  EXPECT_TRUE(bool(B)) << Path;
  return B ? (*B)->getBuffer().str() : "";
}

/// One input: a name for messages and its text.
struct Input {
  std::string Name, Source;
};

/// The shipped examples and each `// -----` chunk of the validation files.
std::vector<Input> shippedInputs() {
  const std::string Dir = SHARDC_EXAMPLES_DIR;
  const char *Files[] = {"allgather_node.shard",
                         "b200_roofline.shard",
                         "gather_or_slice.shard",
                         "gpt3_175b_train.shard",
                         "llama3_70b_train.shard",
                         "llama3_8b_fp8_train.shard",
                         "mlp.shard",
                         "moe_train.shard",
                         "tp_dp.shard",
                         "train_mlp.shard",
                         "validation/korthikanti_175b.shard",
                         "validation/korthikanti_1t.shard",
                         "validation/korthikanti_22b.shard",
                         "validation/korthikanti_22b_layer.shard",
                         "validation/korthikanti_530b.shard",
                         "validation/korthikanti_530b_dp8.shard",
                         "validation/narayanan.shard",
                         "validation/nccl_allreduce.shard"};
  std::vector<Input> Out;
  for (const char *F : Files) {
    std::string Text = readFile(Dir + "/" + F);
    const std::string Sep = "\n// -----";
    size_t Begin = 0;
    for (unsigned Chunk = 0;; ++Chunk) {
      size_t End = Text.find(Sep, Begin);
      std::string Part = Text.substr(Begin, End - Begin);
      // Keep the chunk's lines where they were, as --split-input-file does.
      std::string Pad(
          size_t(std::count(Text.begin(), Text.begin() + Begin, '\n')), '\n');
      Out.push_back(
          {std::string(F) + " chunk " + std::to_string(Chunk), Pad + Part});
      if (End == std::string::npos)
        break;
      Begin = Text.find('\n', End + 1);
      if (Begin == std::string::npos)
        break;
    }
  }
  return Out;
}

std::vector<Input> generatedInputs(unsigned N) {
  std::vector<Input> Out;
  for (uint64_t Seed = 0; Seed < N; ++Seed) {
    GeneratorOptions O;
    O.WrongPercent = 0;
    O.Divisible = true;
    SplitMix64 C(Seed);
    Out.push_back({"generated seed " + std::to_string(Seed),
                   generateStructure(C, O).render()});
  }
  for (uint64_t Seed = 0; Seed < N; ++Seed) {
    SplitMix64 C(Seed * 0x9E3779B97F4A7C15ull + 3);
    Out.push_back(
        {"generated step " + std::to_string(Seed), generateStep(C).render()});
  }
  return Out;
}

/// \p Source with `Name = Value;` in its \p Block (`train` or `config`)
/// block: the value replaced where the block sets Name, else the setting
/// added; a missing config block is added before the train block. Empty
/// without a (single) train block.
std::string withSetting(const std::string &Source, const std::string &Block,
                        const std::string &Name, const std::string &Value) {
  const std::string Head = "\n" + Block + " {";
  size_t At = Source.rfind(Head);
  if (At == std::string::npos && Block == "config") {
    size_t Train = Source.rfind("\ntrain {");
    if (Train == std::string::npos)
      return "";
    return Source.substr(0, Train) + "\nconfig { " + Name + " = " + Value +
           "; }" + Source.substr(Train);
  }
  if (At == std::string::npos || Source.find(Head) != At)
    return "";
  size_t Open = At + Head.size();
  size_t Close = Source.find('}', Open);
  if (Close == std::string::npos)
    return "";
  std::string Body = Source.substr(Open, Close - Open);
  for (size_t P = Body.find(Name); P != std::string::npos;
       P = Body.find(Name, P + 1)) {
    bool Starts = P == 0 || std::isspace((unsigned char)Body[P - 1]) ||
                  Body[P - 1] == ';';
    size_t Eq = Body.find_first_not_of(' ', P + Name.size());
    if (!Starts || Eq == std::string::npos || Body[Eq] != '=')
      continue;
    size_t Semi = Body.find(';', Eq);
    if (Semi == std::string::npos)
      return "";
    Body = Body.substr(0, Eq + 1) + " " + Value + Body.substr(Semi);
    return Source.substr(0, Open) + Body + Source.substr(Close);
  }
  return Source.substr(0, Open) + " " + Name + " = " + Value + ";" +
         Source.substr(Open);
}

/// The inputs that compile cleanly, compiled once for every test.
struct Compiled {
  Input In;
  std::unique_ptr<InProcessResult> R;
};

const std::vector<Compiled> &corpus() {
  static const std::vector<Compiled> All = [] {
    std::vector<Compiled> Out;
    std::vector<Input> Ins = shippedInputs();
    for (Input &G : generatedInputs(40))
      Ins.push_back(std::move(G));
    for (Input &In : Ins) {
      auto R = compile(In.Source);
      // A broken invariant is a failure, not an input left out.
      EXPECT_EQ(R->InternalError, "") << In.Name;
      if (R->Compiled)
        Out.push_back({std::move(In), std::move(R)});
    }
    return Out;
  }();
  return All;
}

TEST(MetamorphicProperty, MostInputsCompile) {
  // Every validation chunk is a clean compile; the corpus must not shrink
  // to nothing by a change elsewhere.
  EXPECT_GE(corpus().size(), 90u);
  unsigned Steps = 0;
  for (const Compiled &C : corpus())
    Steps += C.R->Compile->Tables.Step.has_value();
  EXPECT_GE(Steps, 20u);
}

/// Re-costs \p C on its mesh with its cluster changed by \p Edit.
std::unique_ptr<MeshCompile>
recostWith(const Compiled &C, const std::function<void(ClusterSpec &)> &Edit) {
  MeshSpec Mesh = C.R->P.IR->mesh();
  auto Cluster = std::make_shared<ClusterSpec>(*Mesh.Cluster);
  Edit(*Cluster);
  Mesh.Cluster = Cluster;
  DiagnosticEngine Engine(const_cast<llvm::SourceMgr &>(C.R->SM));
  std::vector<std::string> Diags;
  Engine.setHandler([&](const Diagnostic &D) { Diags.push_back(D.Message); });
  auto Out = compileForMesh(*C.R->P.IR, Mesh, Engine);
  if (!Out) {
    ADD_FAILURE() << C.In.Name << ": " << llvm::toString(Out.takeError());
    return nullptr;
  }
  EXPECT_EQ(Engine.errorCount(), 0u) << C.In.Name;
  return std::move(*Out);
}

void expectNoWorse(double Faster, double Base, const std::string &What,
                   const std::string &Name) {
  EXPECT_LE(Faster, Base * (1 + Slack) + 1e-18)
      << What << " grew from " << Base << " to " << Faster << " (" << Name
      << ")";
}

/// True when every statement of \p A and \p B took the same plan.
bool samePlans(const MeshCompile &A, const MeshCompile &B) {
  const Analyses &Ta = A.Tables, &Tb = B.Tables;
  if (Ta.Choices.size() != Tb.Choices.size())
    return false;
  const TypeNames &N = A.checked().names();
  for (size_t I = 0; I < Ta.Choices.size(); ++I)
    if (bool(Ta.Choices[I]) != bool(Tb.Choices[I]) ||
        (Ta.Choices[I] && describePlan(Ta.Choices[I]->Chosen, N) !=
                              describePlan(Tb.Choices[I]->Chosen, N)))
      return false;
  return true;
}

/// The hardware edit helps: no total and no step time grows, and where
/// every statement keeps its plan \p Term (T_hbm, T_math or T_comms of the
/// totals) does not grow either. (A faster resource may make the planner
/// trade it for another: gather_or_slice.shard slices, computing twice the
/// FLOPs, once FLOPs are cheap enough; the time still falls.)
void checkHelps(const std::function<void(ClusterSpec &)> &Edit,
                double ProgramCost::*Term, const char *TermName) {
  size_t SamePlans = 0;
  for (const Compiled &C : corpus()) {
    auto Fast = recostWith(C, Edit);
    if (!Fast)
      continue;
    const Analyses &A = C.R->Compile->Tables, &B = Fast->Tables;
    ASSERT_TRUE(A.Totals && B.Totals) << C.In.Name;
    if (samePlans(*C.R->Compile, *Fast)) {
      ++SamePlans;
      expectNoWorse((*B.Totals).*Term, (*A.Totals).*Term, TermName, C.In.Name);
    }
    expectNoWorse(B.Totals->Time, A.Totals->Time, "the total time", C.In.Name);
    if (A.Step) {
      ASSERT_TRUE(B.Step) << C.In.Name;
      expectNoWorse(B.Step->TStep, A.Step->TStep, "the step time", C.In.Name);
    }
  }
  EXPECT_GE(SamePlans, corpus().size() / 2) << TermName;
}

TEST(MetamorphicProperty, MoreHbmBandwidthNeverSlower) {
  checkHelps([](ClusterSpec &S) { S.Chip.HbmBw *= 2; }, &ProgramCost::THbm,
             "T_hbm");
}

TEST(MetamorphicProperty, MoreFlopsNeverSlower) {
  checkHelps(
      [](ClusterSpec &S) {
        for (double &F : S.Chip.Flops)
          F *= 2;
        for (double &F : S.Chip.VectorFlops)
          F *= 2;
      },
      &ProgramCost::TMath, "T_math");
}

TEST(MetamorphicProperty, MoreLinkBandwidthNeverSlower) {
  checkHelps(
      [](ClusterSpec &S) {
        for (LevelSpec &L : S.Levels) {
          L.UplinkBw *= 2;
          L.Bw *= 2;
        }
      },
      &ProgramCost::TComms, "T_comms");
}

struct Setting {
  std::string Block, Name, Value;
};

/// For every training input: compiles it with each of \p Edits applied to
/// its text and hands the clean compiles (all of them, or the input is
/// skipped) to \p Check. Returns how many inputs were checked.
unsigned forEachStepVariant(
    const std::vector<std::vector<Setting>> &Edits,
    const std::function<void(
        const Compiled &, const std::vector<const MeshCompile *> &)> &Check) {
  unsigned Checked = 0;
  for (const Compiled &C : corpus()) {
    if (!C.R->Compile->Tables.Step)
      continue;
    std::vector<std::unique_ptr<InProcessResult>> Rs;
    std::vector<const MeshCompile *> Cs;
    for (const auto &Knobs : Edits) {
      std::string Text = C.In.Source;
      for (const Setting &S : Knobs)
        if (!Text.empty())
          Text = withSetting(Text, S.Block, S.Name, S.Value);
      if (Text.empty())
        break;
      Rs.push_back(compile(Text));
      if (!Rs.back()->Compiled)
        break;
      Cs.push_back(Rs.back()->Compile.get());
    }
    if (Cs.size() != Edits.size())
      continue;
    Check(C, Cs);
    ++Checked;
  }
  return Checked;
}

TEST(MetamorphicProperty, OverlapOffNeverFaster) {
  // Off: every collective on the compute stream (`overlap = false`, which
  // under `overlap = true` would hide each under its statement's compute at
  // no cost) and none of the train block's overlaps.
  const std::vector<Setting> Off = {{"config", "overlap", "false"},
                                    {"train", "tp_overlap", "none"},
                                    {"train", "param_gather", "exposed"},
                                    {"train", "p2p_overlap", "false"}};
  unsigned N = forEachStepVariant(
      {{}, Off, {{"train", "tp_overlap", "all"}}},
      [](const Compiled &C, const std::vector<const MeshCompile *> &Cs) {
        double AsWritten = Cs[0]->Tables.Step->TStep,
               None = Cs[1]->Tables.Step->TStep,
               All = Cs[2]->Tables.Step->TStep;
        EXPECT_GE(None * (1 + Slack), AsWritten) << C.In.Name;
        // `all` overlaps the forward's collectives too: a preset's SM share
        // (at most 0.2 of the chip) costs less than the collective it hides.
        EXPECT_GE(None * (1 + Slack), All) << C.In.Name;
      });
  EXPECT_GE(N, 15u);
}

TEST(MetamorphicProperty, FullRecomputeNeverFaster) {
  unsigned N = forEachStepVariant(
      {{{"train", "recompute", "none"}}, {{"train", "recompute", "full"}}},
      [](const Compiled &C, const std::vector<const MeshCompile *> &Cs) {
        EXPECT_GE(Cs[1]->Tables.Step->TStep * (1 + Slack),
                  Cs[0]->Tables.Step->TStep)
            << C.In.Name;
        EXPECT_LE(
            Cs[1]->Tables.Memory->Bytes[unsigned(MemoryTerm::Activations)],
            Cs[0]->Tables.Memory->Bytes[unsigned(MemoryTerm::Activations)] *
                (1 + Slack))
            << C.In.Name;
      });
  // recompute = none does not fit most validation runs' memory (an error).
  EXPECT_GE(N, 6u);
}

TEST(MetamorphicProperty, ZeroThreeNeverMoreMemory) {
  unsigned N = forEachStepVariant(
      {{{"train", "zero", "0"}}, {{"train", "zero", "3"}}},
      [](const Compiled &C, const std::vector<const MeshCompile *> &Cs) {
        EXPECT_LE(Cs[1]->Tables.Memory->Total,
                  Cs[0]->Tables.Memory->Total * (1 + Slack))
            << C.In.Name;
      });
  EXPECT_GE(N, 5u);
}

TEST(MetamorphicProperty, MfuAtMostHfuAtMostOneAndJsonFinite) {
  for (const Compiled &C : corpus()) {
    if (const auto &S = C.R->Compile->Tables.Step) {
      EXPECT_GT(S->Mfu, 0) << C.In.Name;
      EXPECT_LE(S->Mfu, S->Hfu * (1 + Slack)) << C.In.Name;
      EXPECT_LE(S->Hfu, 1 + Slack) << C.In.Name;
    }
    // compileInProcess's oracle (checkJsonSane) parsed the JSON report
    // and found every number finite, or said why in InternalError.
    EXPECT_EQ(C.R->InternalError, "") << C.In.Name;
  }
}

TEST(JsonOracle, ValidJsonWithFiniteNumbersPasses) {
  EXPECT_EQ(checkJsonText(R"([{"a": [1, -2.5e-3, 0, true, null],
                              "b": "x\"\u00e9"}, {}, []])"),
            "");
}

TEST(JsonOracle, WhatAPrinterGetsWrongIsCaught) {
  // What a report printed with a number that is not finite looks like, and
  // the syntax slips a hand-written writer makes.
  EXPECT_EQ(checkJsonText(R"({"time_s": inf})"), "offset 11: not a JSON value");
  EXPECT_EQ(checkJsonText(R"({"mfu": -nan})"), "offset 9: not a JSON value");
  EXPECT_EQ(checkJsonText(R"({"dur": 1e999})"),
            "offset 8: the number 1e999 is not a finite double");
  EXPECT_EQ(checkJsonText(R"([1, 2,])"), "offset 6: not a JSON value");
  EXPECT_EQ(checkJsonText(R"({"a": 1} {"b": 2})"),
            "offset 9: text after the value");
  EXPECT_EQ(checkJsonText("[\"a\nb\"]"),
            "offset 3: a control character in a string");
  EXPECT_EQ(checkJsonText(R"({"a" 1})"),
            "offset 5: no ':' after an object key");
  EXPECT_EQ(checkJsonText(""), "offset 0: not a JSON value");
}

} // namespace
