//===- GemmModelTest.cpp - The GEMM tile/wave model, by hand --------------===//
//
// passes/GemmModel.h on a small chip whose numbers divide evenly: 4 SMs,
// 400 TFLOP/s of bf16 (100 TFLOP/s per SM), a ceiling of 0.8, 1 us per
// wave. Every expected time is derived in the comment above it.
//
//===----------------------------------------------------------------------===//
#include "passes/GemmModel.h"
#include "gtest/gtest.h"

using namespace shardc;

namespace {

ChipSpec smallChip() {
  ChipSpec C;
  C.Name = "Small";
  C.HbmBw = 2e12;
  C.Flops[unsigned(DType::bf16)] = 400e12;
  C.Flops[unsigned(DType::fp8)] = 800e12;
  C.MatmulEfficiency = 0.8;
  C.Sms = 4;
  C.Tiles.push_back({"t128", 128, 128, 1, 0.5, {}});
  C.WaveOverhead = 1e-6;
  return C;
}

GemmShape shape(double M, double N, double K, double Batch = 1) {
  GemmShape S;
  S.M = M, S.N = N, S.K = K, S.Batch = Batch;
  S.OutBytes = M * N * Batch * 2; // bf16
  return S;
}

TEST(GemmModel, OneClass) {
  // tiles = ceil(384/128) x ceil(256/128) = 3 x 2 = 6; waves = ceil(6/4) = 2;
  // a wave: 2 x 128 x 128 x 1024 / (400e12 / 4 x 1 x 0.5) = 33,554,432 /
  // 5e13 = 0.67108864 us, + 1 us; t = 2 x 1.67108864 = 3.34217728 us.
  // FLOPs 2 x 384 x 256 x 1024 = 201,326,592; efficiency = 201,326,592 /
  // (400e12 x 3.34217728e-6) = 0.150595...
  GemmTime G = gemmTime(shape(384, 256, 1024), DType::bf16, smallChip());
  EXPECT_NEAR(G.Time, 3.34217728e-6, 1e-15);
  EXPECT_NEAR(G.Efficiency, 201326592.0 / (400e12 * 3.34217728e-6), 1e-12);
  EXPECT_NEAR(G.Efficiency, 0.150595, 1e-6);
  ASSERT_NE(G.Tile, nullptr);
  EXPECT_EQ(G.Tiles, 6);
  EXPECT_EQ(G.Waves, 2);
  EXPECT_EQ(G.Ceiling, 0.8);
}

TEST(GemmModel, FastestClassWins) {
  // A second class 256 x 128 at 0.6: tiles = ceil(384/256) x 2 = 4, one
  // wave of 2 x 256 x 128 x 1024 / (100e12 x 0.6) = 67,108,864 / 6e13 =
  // 1.11848107 us, + 1 us = 2.11848107 us, below the 128 x 128 class's
  // 3.34217728 us.
  ChipSpec C = smallChip();
  C.Tiles.push_back({"t256", 256, 128, 1, 0.6, {}});
  GemmTime G = gemmTime(shape(384, 256, 1024), DType::bf16, C);
  EXPECT_NEAR(G.Time, 67108864.0 / 6e13 + 1e-6, 1e-15);
  ASSERT_NE(G.Tile, nullptr);
  EXPECT_EQ(G.Tile->Name, "t256");
  EXPECT_EQ(G.Waves, 1);
}

TEST(GemmModel, CeilingBinds) {
  // A class at efficiency 1 and no wave overhead on a GEMM of whole waves
  // (512 x 512: 16 tiles, 4 waves) would run at the full peak: the time is
  // the ceiling's, FLOPs / (peak x 0.8) = 2 x 512 x 512 x 4096 / 320e12 =
  // 2,147,483,648 / 3.2e14 = 6.7108864 us, and the efficiency 0.8.
  ChipSpec C = smallChip();
  C.Tiles = {{"t128", 128, 128, 1, 1.0, {}}};
  C.WaveOverhead = 0;
  GemmTime G = gemmTime(shape(512, 512, 4096), DType::bf16, C);
  EXPECT_NEAR(G.Time, 6.7108864e-6, 1e-15);
  EXPECT_NEAR(G.Efficiency, 0.8, 1e-12);
  EXPECT_EQ(G.Tile, nullptr);
}

TEST(GemmModel, ClassesOfADtype) {
  // An fp8 class, 256 x 128 at 0.7 with 0.5 us a wave (wave_overhead.fp8),
  // prices the fp8 GEMMs alone; bf16 keeps the class without a dtype.
  // fp8 384 x 256 x 1024: tiles 2 x 2 = 4, one wave of 67,108,864 /
  // (800e12 / 4 x 0.7 = 1.4e14) = 0.47934903 us + 0.5 us = 0.97934903 us
  // (above the ceiling's 201,326,592 / (800e12 x 0.8) = 0.31457280 us).
  // bf16: the t128 class's 3.34217728 us (OneClass).
  ChipSpec C = smallChip();
  C.Tiles.push_back({"f8", 256, 128, 1, 0.7, DType::fp8});
  C.WaveOverheadFor[unsigned(DType::fp8)] = 0.5e-6;
  GemmTime F = gemmTime(shape(384, 256, 1024), DType::fp8, C);
  ASSERT_NE(F.Tile, nullptr);
  EXPECT_EQ(F.Tile->Name, "f8");
  EXPECT_NEAR(F.Time, 67108864.0 / 1.4e14 + 0.5e-6, 1e-15);
  GemmTime B = gemmTime(shape(384, 256, 1024), DType::bf16, C);
  ASSERT_NE(B.Tile, nullptr);
  EXPECT_EQ(B.Tile->Name, "t128");
  EXPECT_NEAR(B.Time, 3.34217728e-6, 1e-15);
  // A chip whose only class is fp8's runs bf16 at its ceiling: 201,326,592
  // / (400e12 x 0.8) = 0.62914560 us.
  C.Tiles.erase(C.Tiles.begin());
  GemmTime Alone = gemmTime(shape(384, 256, 1024), DType::bf16, C);
  EXPECT_EQ(Alone.Tile, nullptr);
  EXPECT_NEAR(Alone.Time, 0.6291456e-6, 1e-15);
}

TEST(GemmModel, BatchedEpilogue) {
  // batch 2 of 128 x 128 x 64: tiles = 1 x 1 x 2 = 2, one wave of
  // 2 x 128 x 128 x 64 / (100e12 x 0.5) = 2,097,152 / 5e13 = 41.94304 ns,
  // + 1 us = 1.04194304 us. The epilogue: 128 x 128 x 2 x 2 B = 65,536 B /
  // (2 TB/s x 0.5) = 65.536 ns. t = 1.10747904 us.
  ChipSpec C = smallChip();
  C.EpilogueEfficiency = 0.5;
  GemmTime G = gemmTime(shape(128, 128, 64, 2), DType::bf16, C);
  EXPECT_NEAR(G.EpilogueTime, 65.536e-9, 1e-18);
  EXPECT_NEAR(G.Time, 1.10747904e-6, 1e-15);
  // Unbatched, the same GEMM pays none: 1.04194304 us / 2 = one GEMM's.
  GemmTime One = gemmTime(shape(128, 128, 64), DType::bf16, C);
  EXPECT_EQ(One.EpilogueTime, 0);
  EXPECT_NEAR(One.Time, 1.04194304e-6, 1e-15);
}

TEST(GemmModel, NoTilesRunsAtTheCeiling) {
  // Without tiles: FLOPs / (peak x ceiling) = 201,326,592 / 320e12 =
  // 0.6291456 us, whatever the shape.
  ChipSpec C = smallChip();
  C.Tiles.clear();
  GemmTime G = gemmTime(shape(384, 256, 1024), DType::bf16, C);
  EXPECT_NEAR(G.Time, 0.6291456e-6, 1e-15);
  EXPECT_EQ(G.Efficiency, 0.8);
  // fp8's own ceiling, 0.6: 201,326,592 / (800e12 x 0.6) = 0.4194304 us.
  C.MatmulEfficiencyFor[unsigned(DType::fp8)] = 0.6;
  GemmTime F = gemmTime(shape(384, 256, 1024), DType::fp8, C);
  EXPECT_NEAR(F.Time, 0.4194304e-6, 1e-15);
  EXPECT_EQ(F.Efficiency, 0.6);
}

} // namespace
