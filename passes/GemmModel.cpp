//===- GemmModel.cpp - A GEMM's time by its shape -------------------------===//
#include "passes/GemmModel.h"
#include <cmath>

using namespace shardc;

namespace {

/// Step 2 for one class: its time, with its tile and wave counts.
double classTime(const GemmShape &S, const TileClass &Tc, double Peak,
                 double WaveOverhead, const ChipSpec &C, double &Tiles,
                 double &Waves) {
  double Sms = double(C.Sms), Ctas = double(Tc.Ctas);
  Tiles =
      std::ceil(S.M / double(Tc.M)) * std::ceil(S.N / double(Tc.N)) * S.Batch;
  Waves = std::ceil(Tiles / (Sms * Ctas));
  // The ctas CTAs resident on one SM share its rate: a wave computes ctas
  // tiles per SM, each at peak / sms / ctas.
  double PerWave = 2 * double(Tc.M) * double(Tc.N) * S.K * Ctas /
                   (Peak / Sms * Tc.Efficiency);
  return Waves * (PerWave + WaveOverhead);
}

} // namespace

GemmTime shardc::gemmTime(const GemmShape &S, DType T, const ChipSpec &C) {
  GemmTime G;
  double Peak = C.matmulPeak(T);
  G.Ceiling = C.matmulCeiling(T);
  double AtCeiling = S.flops() / (Peak * G.Ceiling);
  G.Time = AtCeiling;
  G.Efficiency = G.Ceiling;
  if (C.Tiles.empty())
    return G;
  double Best = INFINITY;
  for (const TileClass &Tc : C.Tiles) {
    if (!C.tilePrices(Tc, T))
      continue;
    double Tiles, Waves;
    double Time = classTime(S, Tc, Peak, C.waveOverhead(T), C, Tiles, Waves);
    // Ties go to the class written first.
    if (Time < Best) {
      Best = Time;
      G.Tile = &Tc;
      G.Tiles = Tiles;
      G.Waves = Waves;
    }
  }
  // A chip whose classes are all another dtype's runs this one at the
  // ceiling.
  if (G.Tile && Best > AtCeiling) {
    G.Time = Best;
  } else {
    G.Tile = nullptr;
    G.Tiles = G.Waves = 0;
  }
  if (C.EpilogueEfficiency > 0 && gemmHasEpilogue(S))
    G.EpilogueTime = S.OutBytes / (C.HbmBw * C.EpilogueEfficiency);
  G.Time += G.EpilogueTime;
  G.Efficiency = S.flops() / (Peak * G.Time);
  return G;
}
