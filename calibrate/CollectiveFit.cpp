//===- CollectiveFit.cpp - A level's constants from collective curves -----===//
#include "calibrate/CollectiveFit.h"
#include <array>
#include <cmath>
#include <functional>

namespace shardc::calibrate {
namespace {

/// scripts/fit_protocols.py's grid: \p Count points from Lo to Hi,
/// log-spaced.
std::vector<double> grid(double Lo, double Hi, unsigned Count) {
  std::vector<double> Out(Count);
  for (unsigned I = 0; I < Count; ++I)
    Out[I] = Lo * std::pow(Hi / Lo, double(I) / (Count - 1));
  return Out;
}

/// The sum of squared log errors of \p Time over \p Points.
template <typename TimeFn>
double logLoss(llvm::ArrayRef<CollectivePoint> Points, TimeFn Time) {
  double L = 0;
  for (const CollectivePoint &P : Points) {
    double E = std::log(Time(P) / P.Seconds);
    L += E * E;
  }
  return L;
}

/// The grid search over N constants: a 40-point grid per range, then three
/// rounds of 21 points one step of the last grid either side of the best.
/// \p Loss gives a candidate's loss (infinite to skip it).
template <size_t N>
std::array<double, N>
gridSearch(std::array<std::pair<double, double>, N> Ranges,
           std::function<double(const std::array<double, N> &)> Loss) {
  std::array<double, N> Best{};
  double BestLoss = INFINITY;
  for (unsigned Round = 0; Round < 4; ++Round) {
    unsigned Count = Round == 0 ? 40 : 21;
    std::array<std::vector<double>, N> Axes;
    for (size_t I = 0; I < N; ++I)
      Axes[I] = grid(Ranges[I].first, Ranges[I].second, Count);
    // Every combination, first axis slowest (the script's nested loops).
    std::array<unsigned, N> Idx{};
    while (true) {
      std::array<double, N> X;
      for (size_t I = 0; I < N; ++I)
        X[I] = Axes[I][Idx[I]];
      double L = Loss(X);
      if (L < BestLoss) {
        BestLoss = L;
        Best = X;
      }
      size_t D = N;
      while (D > 0 && ++Idx[D - 1] == Count)
        Idx[--D] = 0;
      if (D == 0)
        break;
    }
    for (size_t I = 0; I < N; ++I) {
      auto [Lo, Hi] = Ranges[I];
      double Step = std::pow(Hi / Lo, 1.0 / (Count - 1));
      Ranges[I] = {std::max(Best[I] / Step, 1e-12),
                   Hi <= 1.0 ? std::min(Best[I] * Step, 1.0) : Best[I] * Step};
    }
  }
  return Best;
}

} // namespace

double twoProtocolTime(const CollectivePoint &P, double LinkBw, double Latency,
                       const TwoProtocols &F, bool *Small) {
  double S = P.Hops * Latency + P.Moved / (LinkBw * F.SmallEfficiency);
  double B = P.Hops * F.BulkLatency + P.Moved / (LinkBw * F.Efficiency);
  if (Small)
    *Small = S < B;
  return std::min(S, B);
}

TwoProtocols fitTwoProtocols(llvm::ArrayRef<CollectivePoint> Points,
                             double LinkBw, double Latency) {
  auto X =
      gridSearch<3>({{{0.005, 1.0}, {0.1e-6, 100e-6}, {0.05, 1.0}}},
                    [&](const std::array<double, 3> &C) {
                      if (C[0] > 1 || C[2] > 1)
                        return double(INFINITY);
                      TwoProtocols F{C[0], C[1], C[2]};
                      return logLoss(Points, [&](const CollectivePoint &P) {
                        return twoProtocolTime(P, LinkBw, Latency, F);
                      });
                    });
  return {X[0], X[1], X[2]};
}

double oneLineTime(const CollectivePoint &P, double LinkBw, const OneLine &F) {
  return P.Hops * F.Latency + P.Moved / (LinkBw * F.Efficiency);
}

OneLine fitOneLine(llvm::ArrayRef<CollectivePoint> Points, double LinkBw,
                   std::optional<double> FixedLatency) {
  if (FixedLatency) {
    auto X =
        gridSearch<1>({{{0.05, 1.0}}}, [&](const std::array<double, 1> &C) {
          OneLine F{*FixedLatency, C[0]};
          return C[0] > 1 ? double(INFINITY)
                          : logLoss(Points, [&](const CollectivePoint &P) {
                              return oneLineTime(P, LinkBw, F);
                            });
        });
    return {*FixedLatency, X[0]};
  }
  auto X = gridSearch<2>(
      {{{0.1e-6, 100e-6}, {0.05, 1.0}}}, [&](const std::array<double, 2> &C) {
        OneLine F{C[0], C[1]};
        return C[1] > 1 ? double(INFINITY)
                        : logLoss(Points, [&](const CollectivePoint &P) {
                            return oneLineTime(P, LinkBw, F);
                          });
      });
  return {X[0], X[1]};
}

std::vector<double>
crossValidate(llvm::ArrayRef<CollectivePoint> Points, unsigned K,
              llvm::function_ref<std::function<double(const CollectivePoint &)>(
                  llvm::ArrayRef<CollectivePoint>)>
                  Fit) {
  return kFoldErrors(Points, K, [&](llvm::ArrayRef<CollectivePoint> Train) {
    return [Predict = Fit(Train)](const CollectivePoint &P) {
      return Predict(P) / P.Seconds - 1;
    };
  });
}

} // namespace shardc::calibrate
