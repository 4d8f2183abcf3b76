//===- CalibrateTest.cpp - shardc calibrate's parsers and fits ------------===//
//
// The nccl-tests reader on the layouts nccl-tests has printed, the input
// classifier, the port of scripts/fit_protocols.py's grid search (against
// the script's own numbers, and recovering constants it generated), and
// the folds of the cross-validation.
//
//===----------------------------------------------------------------------===//
#include "calibrate/CollectiveFit.h"
#include "calibrate/GemmFit.h"
#include "calibrate/GemmSweep.h"
#include "calibrate/Input.h"
#include "calibrate/NcclTests.h"
#include "calibrate/Preset.h"
#include "diag/Diagnostic.h"
#include "passes/GemmModel.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include <cmath>
#include <functional>

using namespace shardc;
using namespace shardc::calibrate;

namespace {

/// A SourceMgr holding one buffer, with an engine that collects messages.
struct Buffer {
  llvm::SourceMgr SM;
  DiagnosticEngine Diags{SM};
  std::vector<std::string> Messages;
  unsigned Id;
  Buffer(llvm::StringRef Text, llvm::StringRef Name = "run.txt") {
    Id = SM.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(Text, Name),
                               llvm::SMLoc());
    Diags.setHandler(
        [this](const Diagnostic &D) { Messages.push_back(D.Message); });
  }
};

// nccl-tests 2.x as printed today: a 'root' column and '#wrong'.
constexpr const char *Modern =
    "# nccl-tests version 2.18.2 nccl-headers=22907 nccl-library=22907\n"
    "# Collective test starting: all_gather_perf\n"
    "# nThread 1 nGpus 2 minBytes 8 maxBytes 64 step: 2(factor) warmup "
    "iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n"
    "#\n# Using devices\n"
    "#  Rank  0 Group  0 Pid  1 on host device  0 [0x07] NVIDIA H100\n"
    "#  Rank  1 Group  0 Pid  1 on host device  1 [0x0a] NVIDIA H100\n"
    "#\n"
    "#       size  count  type  redop  root  time  algbw  busbw #wrong  time "
    " algbw  busbw #wrong\n"
    "#        (B) (elements)  (us)  (GB/s)  (GB/s)  (us)  (GB/s)  (GB/s)\n"
    "           0     0  float  none  -1   5.50  0.00  0.00  0  5.40  0.00 "
    " 0.00  0\n"
    "          32     4  float  none  -1  12.50  0.00  0.00  0  11.0  0.00 "
    " 0.00  0\n"
    "          64     8  float  none  -1  12.75  0.01  0.00  0  11.0  0.00 "
    " 0.00  0\n"
    "# Out of bounds values : 0 OK\n";

TEST(NcclTests, ReadsTheOutOfPlaceTimeByItsColumnName) {
  Buffer B(Modern);
  std::optional<NcclRun> R = parseNcclTests(B.Id, B.Diags, 0);
  ASSERT_TRUE(R) << ::testing::PrintToString(B.Messages);
  EXPECT_EQ(R->Collective, NcclCollective::AllGather);
  EXPECT_EQ(R->Ranks, 2u);
  // The size-0 row is dropped: no bytes, nothing to fit.
  ASSERT_EQ(R->Rows.size(), 2u);
  EXPECT_EQ(R->Rows[0].Bytes, 32);
  EXPECT_DOUBLE_EQ(R->Rows[0].Seconds, 12.50e-6);
  EXPECT_DOUBLE_EQ(R->Rows[1].Seconds, 12.75e-6);
}

TEST(NcclTests, ReadsTheOlderLayoutWithoutRootAndWithError) {
  // nccl-tests before 2.10: no 'root' column, 'error' for '#wrong', and no
  // 'Collective test starting' line: the file's name says which test.
  Buffer B("# nThread 1 nGpus 4 minBytes 8 maxBytes 16 step: 2(factor)\n"
           "#   Rank  0 Pid 1 on h device  0 [0x00] Tesla V100\n"
           "#   Rank  1 Pid 1 on h device  1 [0x00] Tesla V100\n"
           "#   Rank  2 Pid 1 on h device  2 [0x00] Tesla V100\n"
           "#   Rank  3 Pid 1 on h device  3 [0x00] Tesla V100\n"
           "#       size   count    type   redop     time   algbw   busbw  "
           "error     time   algbw   busbw  error\n"
           "           8       2   float     sum    20.00    0.00    0.00  "
           "0e+00    19.0    0.00    0.00  0e+00\n"
           "          16       4   float     sum    21.00    0.00    0.00  "
           "0e+00    19.0    0.00    0.00  0e+00\n",
           "logs/reduce_scatter.txt");
  std::optional<NcclRun> R = parseNcclTests(B.Id, B.Diags, 0);
  ASSERT_TRUE(R) << ::testing::PrintToString(B.Messages);
  EXPECT_EQ(R->Collective, NcclCollective::ReduceScatter);
  EXPECT_EQ(R->Ranks, 4u);
  ASSERT_EQ(R->Rows.size(), 2u);
  EXPECT_DOUBLE_EQ(R->Rows[1].Seconds, 21e-6);
}

TEST(Input, ClassifiesByContent) {
  Buffer Nccl(Modern);
  EXPECT_EQ(classifyInput(Nccl.Id, Nccl.Diags), InputKind::NcclTests);
  Buffer Gemm("m,n,k,batch,dtype,time_s\n8192,8192,8192,1,bf16,0.0014\n");
  EXPECT_EQ(classifyInput(Gemm.Id, Gemm.Diags), InputKind::GemmSweep);
  Buffer Ew("kernel,rows,cols,elements,bytes,time_s\nadd,1,1,1,6,1e-6\n");
  EXPECT_EQ(classifyInput(Ew.Id, Ew.Diags), InputKind::ElementwiseSweep);
  Buffer Att("seq,head_dim,causal,backend,pass,time_s,flops_executed\n");
  EXPECT_EQ(classifyInput(Att.Id, Att.Diags), InputKind::AttentionSweep);
  Buffer Steps("step,loss,mfu\n1,2.5,0.41\n");
  EXPECT_EQ(classifyInput(Steps.Id, Steps.Diags), std::nullopt);
  ASSERT_EQ(Steps.Messages.size(), 1u);
  EXPECT_THAT(Steps.Messages[0], ::testing::StartsWith("column 'step' is a "
                                                       "whole training"));
  Buffer Other("hello\n");
  EXPECT_EQ(classifyInput(Other.Id, Other.Diags), std::nullopt);
  EXPECT_THAT(Other.Messages[0], ::testing::HasSubstr("cannot tell"));
}

// The A100 curve of data/nccl (8 GPUs, the out-of-place times), and what
// scripts/fit_protocols.py's fit() gives for it with W = 300 GB/s and the
// latency 32.01 us / 14: small_efficiency 0.1378900037, bulk_latency
// 8.090958992 us, efficiency 0.7689704965 (python3, this repository's
// script). The port must find the same grid point.
TEST(CollectiveFit, MatchesFitProtocolsPy) {
  const double Sizes[] = {
      64,         128,        256,        512,       1024,      2048,
      4096,       8192,       16384,      32768,     65536,     131072,
      262144,     524288,     1048576,    2097152,   4194304,   8388608,
      16777216,   33554432,   67108864,   134217728, 268435456, 536870912,
      1073741824, 2147483648, 4294967296, 8589934592};
  const double Us[] = {32.01,  32.01,  31.75,  32.21,  32.03, 31.77, 32.13,
                       32.22,  32.48,  32.02,  35.40,  38.50, 45.21, 58.96,
                       76.71,  112.4,  134.5,  185.8,  245.1, 398.2, 589.5,
                       1191.2, 2121.9, 4208.2, 8166.8, 16232, 32097, 63929};
  std::vector<CollectivePoint> Pts;
  for (size_t I = 0; I < std::size(Sizes); ++I)
    Pts.push_back({2.0 * 7 / 8 * Sizes[I], 14, Us[I] * 1e-6});
  TwoProtocols F = fitTwoProtocols(Pts, 300e9, 32.01e-6 / 14);
  EXPECT_NEAR(F.SmallEfficiency, 0.1378900037, 1e-9);
  EXPECT_NEAR(F.BulkLatency, 8.090958992e-6, 1e-14);
  EXPECT_NEAR(F.Efficiency, 0.7689704965, 1e-9);
}

TEST(CollectiveFit, RecoversTheConstantsItWasGeneratedWith) {
  // Times made by the model itself (an AllGather over 8, W = 450 GB/s):
  // the fit's log loss is near zero and its constants within a grid step.
  TwoProtocols Truth{0.12, 6e-6, 0.8};
  std::vector<CollectivePoint> Pts;
  for (double V = 64; V <= 16e9; V *= 4) {
    CollectivePoint P{V * 7 / 8, 7, 0};
    P.Seconds = twoProtocolTime(P, 450e9, 1e-6, Truth);
    Pts.push_back(P);
  }
  TwoProtocols F = fitTwoProtocols(Pts, 450e9, 1e-6);
  EXPECT_NEAR(F.SmallEfficiency / Truth.SmallEfficiency, 1, 0.01);
  EXPECT_NEAR(F.BulkLatency / Truth.BulkLatency, 1, 0.01);
  EXPECT_NEAR(F.Efficiency / Truth.Efficiency, 1, 0.01);
  // One line, latency free: an in-switch AllReduce.
  OneLine Line{3e-6, 0.6};
  for (CollectivePoint &P : Pts)
    P.Seconds = oneLineTime(P, 450e9, Line);
  OneLine G = fitOneLine(Pts, 450e9, std::nullopt);
  EXPECT_NEAR(G.Latency / Line.Latency, 1, 0.01);
  EXPECT_NEAR(G.Efficiency / Line.Efficiency, 1, 0.01);
  EXPECT_NEAR(fitOneLine(Pts, 450e9, 3e-6).Efficiency, 0.6, 0.006);
}

TEST(CollectiveFit, CrossValidationDealsPointsToFoldsInTurn) {
  // Point i is held out in fold i mod 5: predicting each held-out point
  // by the largest training time shows which points were trained on.
  std::vector<CollectivePoint> Pts;
  for (int I = 1; I <= 7; ++I)
    Pts.push_back({0, 0, double(I)});
  std::vector<double> E =
      crossValidate(Pts, 5, [](llvm::ArrayRef<CollectivePoint> Train) {
        double Max = 0;
        for (const CollectivePoint &P : Train)
          Max = std::max(Max, P.Seconds);
        return std::function<double(const CollectivePoint &)>(
            [Max](const CollectivePoint &) { return Max; });
      });
  // Folds: {1, 6}, {2, 7}, {3}, {4}, {5}. Without fold 1 ({2, 7}) the
  // largest is 6; without any other, 7.
  EXPECT_THAT(E, ::testing::ElementsAre(7.0 / 1 - 1, 6.0 / 2 - 1, 7.0 / 3 - 1,
                                        7.0 / 4 - 1, 7.0 / 5 - 1, 7.0 / 6 - 1,
                                        6.0 / 7 - 1));
  EXPECT_NEAR(meanAbs({-0.1, 0.3}), 0.2, 1e-12);
}

TEST(GemmSweep, ReadsTheColumnsByName) {
  Buffer B("# comment\nsource,time_s,m,n,k,batch,dtype\n"
           "x,0.5,64,32,16,2,bf16\n",
           "gemm.csv");
  std::optional<GemmSweep> S = parseGemmSweep(B.Id, B.Diags);
  ASSERT_TRUE(S) << ::testing::PrintToString(B.Messages);
  ASSERT_EQ(S->Rows.size(), 1u);
  const GemmRow &R = S->Rows[0];
  EXPECT_EQ(R.Point.M, 64);
  EXPECT_EQ(R.Point.N, 32);
  EXPECT_EQ(R.Point.K, 16);
  EXPECT_EQ(R.Point.Batch, 2);
  EXPECT_EQ(R.Point.Seconds, 0.5);
  EXPECT_EQ(R.DType, "bf16");
  EXPECT_EQ(R.Source, "x");
}

TEST(GemmFit, PredictsTheTimesOfTheModelItWasFittedTo) {
  // GEMM times made by passes/GemmModel on a chip of one class (128 x 256
  // at 0.8, 5 us a wave, ceiling 0.87): the fit finds a chip whose gemmTime
  // gives the same times (the classes need not be the same: several sets
  // price a sweep alike).
  ChipSpec Truth;
  Truth.Name = "T";
  Truth.Flops[unsigned(DType::bf16)] = 312e12;
  Truth.MatmulEfficiency = 0.87;
  Truth.Sms = 108;
  Truth.Tiles.push_back({"t128x256", 128, 256, 1, 0.8, {}});
  Truth.WaveOverhead = 5e-6;
  std::vector<GemmPoint> Pts;
  for (double M : {512, 1024, 2048, 3072, 4096, 8192})
    for (double N : {768, 1536, 4096, 6144})
      for (double K : {1024, 4096}) {
        GemmShape S{M, N, K, 1, 0};
        Pts.push_back({M, N, K, 1, gemmTime(S, DType::bf16, Truth).Time});
      }
  GemmChip C{108, 312e12, 0.87};
  GemmFitResult F = fitGemm(Pts, C);
  ChipSpec Fitted = fittedChip(Truth, F, C, DType::bf16);
  double Worst = 0;
  for (const GemmPoint &P : Pts) {
    GemmShape S{P.M, P.N, P.K, 1, 0};
    Worst = std::max(
        Worst,
        std::fabs(gemmTime(S, DType::bf16, Fitted).Time / P.Seconds - 1));
  }
  EXPECT_LT(Worst, 0.01);
}

TEST(Preset, PrintsPlainDecimals) {
  EXPECT_EQ(formatPlain(0.76897), "0.769");
  EXPECT_EQ(formatPlain(0.13789), "0.1379");
  EXPECT_EQ(formatPlain(8.090959), "8.091");
  EXPECT_EQ(formatPlain(0.00004567), "0.00004567");
  EXPECT_EQ(formatPlain(12345.6), "12346");
}

} // namespace
