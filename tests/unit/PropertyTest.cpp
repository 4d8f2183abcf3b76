//===- PropertyTest.cpp - Cost-model properties over generated programs ---===//
//
// Each property runs over 200 seeds of tests/support/ProgramGenerator (all
// choices correct, every dim divisible even after an axis doubles), which
// compile cleanly; Placement properties run on random meshes directly:
//  - every cost is a finite non-negative number (MFU at most 1);
//  - a collective over a group of one chip costs nothing;
//  - doubling every network bandwidth halves every collective's time
//    (latency 0);
//  - more chips on an axis never increase an op's T_math (same plan);
//  - AllReduce never costs less than AllGather of the same bytes without
//    in-network reduction (twice its bandwidth term);
//  - the text and JSON reports print the module's numbers;
//  - the output is byte-identical across runs of the same input.
//
//===----------------------------------------------------------------------===//
#include "passes/Placement.h"
#include "report/Describe.h"
#include "shardc/Config.h"
#include "support/Format.h"
#include "tests/support/CompileInProcess.h"
#include "tests/support/ProgramGenerator.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "gtest/gtest.h"
#include <cmath>
#include <map>

using namespace shardc;
using namespace shardc::testgen;

namespace {

constexpr uint64_t NumSeeds = 200;

GenProgram programFor(uint64_t Seed) {
  GeneratorOptions O;
  O.WrongPercent = 0;
  O.Divisible = true;
  SplitMix64 C(Seed);
  return generateStructure(C, O);
}

std::unique_ptr<InProcessResult> compile(const std::string &Source) {
  InProcessOptions O;
  O.StdlibDir = SHARDC_SOURCE_STDLIB_DIR;
  return compileInProcess(Source, O);
}

/// Why \p R is not a clean compile, for failure messages.
std::string explain(const InProcessResult &R, const std::string &Source) {
  return "internal error: " + R.InternalError + "\ndiagnostics:\n" +
         llvm::join(R.Diagnostics, "\n") + "\nprogram:\n" + Source;
}

/// The statements that the reports print (inputs have no row).
std::vector<unsigned> reportedStatements(const MeshCompile &C) {
  std::vector<unsigned> Out;
  const auto &Stmts = C.checked().info().Statements;
  for (unsigned I = 0; I < Stmts.size(); ++I)
    if (C.Tables.StatementCosts[I] && Stmts[I].Kind != OpKind::Input)
      Out.push_back(I);
  return Out;
}

struct CollectiveSeen {
  OpKind Kind;
  AxisList Axes;
  double Bytes, Time, Latency;
};

/// Every collective of \p C, grouped by the statement it realises.
std::vector<std::vector<CollectiveSeen>> collectives(const MeshCompile &C) {
  std::vector<std::vector<CollectiveSeen>> Out(
      C.checked().info().Statements.size());
  walk<CollectiveOp>(C.lowered()->body(), [&](const CollectiveOp &O) {
    const CollectiveCost &Cost = *C.Tables.Collectives[O.id()];
    Out[O.stmt()].push_back({O.kind(),
                             AxisList(O.axes().begin(), O.axes().end()),
                             Cost.GroupBytes, Cost.Time, Cost.LatencyTime});
  });
  return Out;
}

/// One row of the text report's op table, its times as printed.
struct TextRow {
  std::string TMath, THbm, TComms, Time;
};

/// Reads the op table: a row is `name line x kind FLOPs unit bytes unit
/// T_math unit T_hbm unit collectives... T_comms unit time unit bound`;
/// lines that start with a space continue the collectives column.
std::map<std::pair<std::string, unsigned>, TextRow>
textRows(llvm::StringRef Text) {
  std::map<std::pair<std::string, unsigned>, TextRow> Rows;
  bool InTable = false;
  llvm::SmallVector<llvm::StringRef, 32> Lines, Tok;
  Text.split(Lines, '\n');
  for (llvm::StringRef L : Lines) {
    if (L.startswith("op ")) {
      InTable = true;
      continue;
    }
    if (!InTable || L.startswith(" "))
      continue;
    if (L.empty())
      break;
    Tok.clear();
    L.split(Tok, ' ', -1, /*KeepEmpty=*/false);
    unsigned Line = 0;
    if (Tok.size() < 17 || Tok[1].getAsInteger(10, Line))
      continue;
    size_t N = Tok.size();
    auto Time = [&](size_t I) { return (Tok[I] + " " + Tok[I + 1]).str(); };
    Rows[{Tok[0].str(), Line}] = {Time(8), Time(10), Time(N - 5), Time(N - 3)};
  }
  return Rows;
}

/// Every number in \p V must be finite and non-negative.
void expectNumbersSane(const llvm::json::Value &V, const std::string &Path) {
  if (auto N = V.getAsNumber()) {
    EXPECT_TRUE(std::isfinite(*N) && *N >= 0) << Path << " = " << *N;
  } else if (const auto *A = V.getAsArray()) {
    for (size_t I = 0; I < A->size(); ++I)
      expectNumbersSane((*A)[I], Path + "[" + std::to_string(I) + "]");
  } else if (const auto *O = V.getAsObject()) {
    for (const auto &KV : *O)
      expectNumbersSane(KV.second, Path + "." + KV.first.str());
  }
}

class PropertyTest : public ::testing::TestWithParam<uint64_t> {
protected:
  void SetUp() override {
    Source = programFor(GetParam()).render();
    R = compile(Source);
    ASSERT_TRUE(R->Compiled) << explain(*R, Source);
  }
  std::string Source;
  std::unique_ptr<InProcessResult> R;
};

TEST_P(PropertyTest, EveryCostIsFiniteAndNonNegative) {
  EXPECT_EQ(checkCostsSane(*R->Compile), "");
  llvm::Expected<llvm::json::Value> J = llvm::json::parse(R->Json);
  ASSERT_TRUE(bool(J)) << llvm::toString(J.takeError());
  expectNumbersSane(*J, "$");
}

TEST_P(PropertyTest, CollectiveOverOneChipCostsNothing) {
  const MeshCompile &C = *R->Compile;
  walk<CollectiveOp>(C.lowered()->body(), [&](const CollectiveOp &O) {
    if (axesProduct(O.axes(), C.mesh()) != 1)
      return;
    const auto &Cost = C.Tables.Collectives[O.id()];
    ASSERT_TRUE(Cost != nullptr);
    EXPECT_EQ(Cost->Time, 0.0) << Source;
    EXPECT_TRUE(Cost->Levels.empty()) << Source;
  });
}

TEST_P(PropertyTest, DoublingBandwidthHalvesCollectiveTimes) {
  GenProgram Slow = programFor(GetParam());
  // Without latency (a second protocol's included) every time is bytes
  // over bandwidth.
  for (GenLevel &L : Slow.Levels)
    L.LatencyNs = L.BulkLatencyNs = L.SmallEfficiencyPct = 0;
  GenProgram Fast = Slow;
  for (GenLevel &L : Fast.Levels) {
    L.Uplink.Value *= 2;
    L.Bw.Value *= 2;
  }
  auto A = compile(Slow.render()), B = compile(Fast.render());
  ASSERT_TRUE(A->Compiled && B->Compiled) << Slow.render();
  auto Ca = collectives(*A->Compile), Cb = collectives(*B->Compile);
  ASSERT_EQ(Ca.size(), Cb.size());
  for (size_t S = 0; S < Ca.size(); ++S) {
    // Faster links can change a contraction's plan; compare equal plans.
    bool Same = Ca[S].size() == Cb[S].size();
    for (size_t K = 0; Same && K < Ca[S].size(); ++K)
      Same = Ca[S][K].Kind == Cb[S][K].Kind && Ca[S][K].Axes == Cb[S][K].Axes &&
             Ca[S][K].Bytes == Cb[S][K].Bytes;
    for (size_t K = 0; Same && K < Ca[S].size(); ++K) {
      EXPECT_EQ(Ca[S][K].Latency, 0.0);
      EXPECT_DOUBLE_EQ(Cb[S][K].Time, Ca[S][K].Time / 2)
          << "statement " << A->P.IR->statement(S).Name << "\n"
          << Slow.render();
    }
  }
}

TEST_P(PropertyTest, MoreChipsOnAnAxisNeverIncreaseTMath) {
  GenProgram Few = programFor(GetParam());
  GenProgram Many = Few;
  Many.Axes[GetParam() % Many.Axes.size()].Size *= 2;
  Many.Levels.back().Size *= 2; // room for the larger mesh
  auto A = compile(Few.render()), B = compile(Many.render());
  ASSERT_TRUE(A->Compiled) << explain(*A, Few.render());
  ASSERT_TRUE(B->Compiled) << explain(*B, Many.render());
  const Analyses &Ta = A->Compile->Tables, &Tb = B->Compile->Tables;
  const auto &Sa = A->P.IR->info().Statements;
  ASSERT_EQ(Ta.StatementCosts.size(), Tb.StatementCosts.size());
  const TypeNames &N = A->P.IR->names();
  auto Plan = [&](const Analyses &T, size_t I) {
    return T.Choices[I] ? describePlan(T.Choices[I]->Chosen, N) : "";
  };
  for (size_t I = 0; I < Sa.size(); ++I) {
    if (!Ta.StatementCosts[I] || !Tb.StatementCosts[I] ||
        Plan(Ta, I) != Plan(Tb, I))
      continue; // a different plan may trade compute for communication
    EXPECT_LE(Tb.StatementCosts[I]->TMath,
              Ta.StatementCosts[I]->TMath * (1 + 1e-12))
        << "statement '" << Sa[I].Name << "' at line " << Sa[I].Location.Line
        << "\n"
        << Few.render() << "\nwith axis "
        << Many.Axes[GetParam() % Many.Axes.size()].Name << " doubled";
  }
}

TEST_P(PropertyTest, TextAndJsonReportsAgree) {
  const MeshCompile &C = *R->Compile;
  llvm::Expected<llvm::json::Value> J = llvm::json::parse(R->Json);
  ASSERT_TRUE(bool(J)) << llvm::toString(J.takeError());
  // The output is an array with this input's one entry.
  const llvm::json::Array *Entries = J->getAsArray();
  ASSERT_TRUE(Entries && Entries->size() == 1);
  const llvm::json::Object &Entry = *(*Entries)[0].getAsObject();
  EXPECT_EQ(*Entry.getString("status"), "ok");
  const llvm::json::Array *Ops = Entry.getArray("ops");
  ASSERT_NE(Ops, nullptr);
  std::vector<unsigned> Stmts = reportedStatements(C);
  auto Rows = textRows(R->Text);
  ASSERT_EQ(Ops->size(), Stmts.size());
  ASSERT_EQ(Rows.size(), Stmts.size()) << R->Text;
  for (size_t I = 0; I < Stmts.size(); ++I) {
    const Statement &S = C.checked().statement(Stmts[I]);
    const OpCost &Cost = *C.Tables.StatementCosts[Stmts[I]];
    const llvm::json::Object &Op = *(*Ops)[I].getAsObject();
    EXPECT_EQ(*Op.getString("name"), S.Name);
    EXPECT_EQ(*Op.getInteger("line"), S.Location.Line);
    EXPECT_EQ(*Op.getNumber("time_s"), Cost.Time);
    EXPECT_EQ(*Op.getNumber("t_math_s"), Cost.TMath);
    EXPECT_EQ(*Op.getNumber("t_hbm_s"), Cost.THbm);
    EXPECT_EQ(*Op.getNumber("t_comms_s"), Cost.TComms);
    const TextRow &Row = Rows[{S.Name, S.Location.Line}];
    EXPECT_EQ(Row.Time, formatTime(*Op.getNumber("time_s"))) << R->Text;
    EXPECT_EQ(Row.TMath, formatTime(*Op.getNumber("t_math_s")));
    EXPECT_EQ(Row.THbm, formatTime(*Op.getNumber("t_hbm_s")));
    EXPECT_EQ(Row.TComms, formatTime(*Op.getNumber("t_comms_s")));
  }
  const llvm::json::Object &Total = *Entry.getObject("total");
  EXPECT_EQ(*Total.getNumber("time_s"), C.Tables.Totals->Time);
  std::string Line = "total: time " + formatTime(C.Tables.Totals->Time) +
                     ", T_math " + formatTime(*Total.getNumber("t_math_s"));
  EXPECT_NE(R->Text.find(Line), std::string::npos) << Line << "\n" << R->Text;
}

TEST_P(PropertyTest, OutputIsByteIdenticalAcrossRuns) {
  auto Other = compile(programFor(GetParam() + NumSeeds).render());
  auto Again = compile(Source);
  EXPECT_EQ(R->Text, Again->Text);
  EXPECT_EQ(R->Json, Again->Json);
  EXPECT_EQ(generateProgram(GetParam()), generateProgram(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Seeds, PropertyTest,
                         ::testing::Range<uint64_t>(0, NumSeeds));

/// A random cluster of 1-3 levels and a mesh of 1-4 axes that fits it.
MeshSpec randomMesh(SplitMix64 &C, bool Reduction) {
  auto Shared = std::make_shared<ClusterSpec>();
  ClusterSpec &Cluster = *Shared;
  Cluster.Chip.Name = "G";
  MeshSpec M;
  M.Cluster = Shared;
  int64_t Chips = 1;
  for (unsigned I = 0, N = C.between(1, 4); I < N; ++I) {
    int64_t S = int64_t(C.between(1, 4));
    Chips *= S;
    M.Axes.push_back({"A" + std::to_string(I), S});
  }
  int64_t Inner = 1;
  for (unsigned I = 0, N = C.between(1, 3); I < N; ++I) {
    LevelSpec L;
    L.Name = "L" + std::to_string(I);
    L.Size =
        I + 1 == N ? (Chips + Inner - 1) / Inner : int64_t(C.between(1, 8));
    L.Size = std::max<int64_t>(L.Size, 1);
    Inner *= L.Size;
    L.UplinkBw = double(C.between(1, 1000)) * 1e9;
    L.Bw = C.percent(50) ? double(C.between(1, 10000)) * 1e9 : 0;
    L.InNetworkReduction = Reduction && C.percent(50);
    L.Calibration.Latency = C.percent(30) ? double(C.between(1, 10)) * 1e-6 : 0;
    Cluster.Levels.push_back(L);
  }
  return M;
}

llvm::SmallVector<unsigned, 4> randomAxes(SplitMix64 &C, const MeshSpec &M) {
  llvm::SmallVector<unsigned, 4> Axes;
  for (unsigned A = 0; A < M.Axes.size(); ++A)
    if (C.percent(50))
      Axes.push_back(A);
  return Axes;
}

TEST(PlacementProperty, AllReduceNeverCheaperThanAllGather) {
  SplitMix64 C(20240601);
  for (unsigned Trial = 0; Trial < 500; ++Trial) {
    MeshSpec M = randomMesh(C, /*Reduction=*/false);
    auto Axes = randomAxes(C, M);
    double V = double(C.between(1, 1u << 30));
    CollectivePlacement AR =
        placeCollective(M, CollectiveKind::AllReduce, Axes, V);
    CollectivePlacement AG =
        placeCollective(M, CollectiveKind::AllGather, Axes, V);
    EXPECT_GE(AR.Time, AG.Time) << "trial " << Trial;
    EXPECT_GE(AR.LatencyTime, AG.LatencyTime) << "trial " << Trial;
    EXPECT_DOUBLE_EQ(AR.BandwidthTime, 2 * AG.BandwidthTime)
        << "trial " << Trial;
  }
}

TEST(PlacementProperty, GroupOfOneCostsNothing) {
  SplitMix64 C(7);
  unsigned Checked = 0;
  for (unsigned Trial = 0; Trial < 500; ++Trial) {
    MeshSpec M = randomMesh(C, /*Reduction=*/true);
    llvm::SmallVector<unsigned, 4> Ones;
    for (unsigned A = 0; A < M.Axes.size(); ++A)
      if (M.Axes[A].Size == 1)
        Ones.push_back(A);
    for (CollectiveKind K :
         {CollectiveKind::AllGather, CollectiveKind::ReduceScatter,
          CollectiveKind::AllReduce, CollectiveKind::AllToAll}) {
      CollectivePlacement P = placeCollective(M, K, Ones, 1e9);
      EXPECT_EQ(P.Time, 0.0) << "trial " << Trial;
      EXPECT_TRUE(P.Levels.empty()) << "trial " << Trial;
      Checked += !Ones.empty();
    }
  }
  EXPECT_GT(Checked, 100u); // the meshes did have axes of size 1
}

} // namespace
