//===- GemmFit.cpp - The GEMM tile/wave model fitted to a sweep -----------===//
//
// A line-by-line port of scripts/fit_gemm.py's fit() (without its epilogue
// term: the sweep's unbatched GEMMs only), keeping its order of evaluation
// so that it lands on the same constants.
//
//===----------------------------------------------------------------------===//
#include "calibrate/GemmFit.h"
#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <utility>

namespace shardc::calibrate {
namespace {

struct Class {
  int64_t M, N, Ctas;
};

constexpr std::pair<int64_t, int64_t> DefaultTiles[] = {
    {256, 128}, {128, 256}, {128, 128}, {256, 64},
    {64, 256},  {128, 64},  {64, 128},  {64, 64}};

constexpr double InvEtaLo = 1.0, InvEtaHi = 50.0; // efficiency 0.02 .. 1
constexpr double C0Lo = 1e-8, C0Hi = 1e-4;        // 10 ns .. 100 us

/// The chosen classes (candidate index, 1/efficiency), in the order they
/// were chosen, and the wave overhead.
struct Params {
  std::vector<std::pair<unsigned, double>> Classes;
  double C0 = 1e-7;
};

/// The rows of one fit with every candidate's terms: a class's time is
/// A x (1/efficiency) + W x c0 (cost-model.md §1: waves x (2 Tm Tn K x
/// ctas / (peak / sms) / efficiency + wave_overhead): an SM's ctas CTAs
/// share its rate).
struct Problem {
  std::vector<Class> Classes;
  std::vector<std::vector<double>> A, W;
  std::vector<double> Time, Weight, Floor;

  Problem(llvm::ArrayRef<GemmPoint> Pts, const GemmChip &C) {
    for (auto [M, N] : DefaultTiles)
      for (int64_t Ctas : {1, 2})
        Classes.push_back({M, N, Ctas});
    for (const Class &Cl : Classes) {
      std::vector<double> As, Ws;
      double PerCta = C.Peak / double(C.Sms) / double(Cl.Ctas);
      for (const GemmPoint &P : Pts) {
        double Tiles = std::ceil(P.M / double(Cl.M)) *
                       std::ceil(P.N / double(Cl.N)) * P.Batch;
        double Waves = std::ceil(Tiles / (double(C.Sms) * double(Cl.Ctas)));
        Ws.push_back(Waves);
        As.push_back(Waves * 2.0 * double(Cl.M) * double(Cl.N) * P.K / PerCta);
      }
      A.push_back(std::move(As));
      W.push_back(std::move(Ws));
    }
    for (const GemmPoint &P : Pts) {
      Time.push_back(P.Seconds);
      Weight.push_back(1.0 / (double(Pts.size()) * P.Seconds));
      Floor.push_back(2.0 * P.M * P.N * P.K * P.Batch / (C.Peak * C.Ceiling));
    }
  }
  size_t size() const { return Time.size(); }
};

/// The fastest chosen class but \p Skip per row, before the ceiling.
std::vector<double> modelTime(const Problem &P, const Params &X,
                              int Skip = -1) {
  std::vector<double> T(P.size(), INFINITY);
  for (auto [Ci, Inv] : X.Classes) {
    if (int(Ci) == Skip)
      continue;
    for (size_t I = 0; I < P.size(); ++I)
      T[I] = std::min(T[I], P.A[Ci][I] * Inv + P.W[Ci][I] * X.C0);
  }
  return T;
}

double loss(const Problem &P, const Params &X) {
  std::vector<double> T = modelTime(P, X);
  double L = 0;
  for (size_t I = 0; I < P.size(); ++I)
    L += std::fabs(std::max(T[I], P.Floor[I]) - P.Time[I]) * P.Weight[I];
  return L;
}

struct Term {
  double A, B, Lo, Hi, T, W;
};

/// argmin over x in [LoX, HiX] of sum W |clamp(A x + B, Lo, Hi) - T|: each
/// term is piecewise linear in x with breakpoints where A x + B meets Lo, T
/// and Hi; the sweep over the sorted breakpoints with the running slope
/// finds the exact minimum on the interval.
std::pair<double, double> lineSearch(llvm::ArrayRef<Term> Terms, double LoX,
                                     double HiX) {
  std::vector<std::pair<double, double>> Events;
  double Base = 0;
  for (const Term &T : Terms) {
    Base +=
        T.W * std::fabs(std::min(std::max(T.A * LoX + T.B, T.Lo), T.Hi) - T.T);
    if (T.A <= 0 || T.Lo >= T.Hi)
      continue;
    double WA = T.W * T.A;
    double XL = (T.Lo - T.B) / T.A, XH = (T.Hi - T.B) / T.A,
           XT = (T.T - T.B) / T.A;
    if (XT <= XL) {
      Events.push_back({XL, WA});
      Events.push_back({XH, -WA});
    } else if (XT >= XH) {
      Events.push_back({XL, -WA});
      Events.push_back({XH, WA});
    } else {
      Events.push_back({XL, -WA});
      Events.push_back({XT, 2 * WA});
      Events.push_back({XH, -WA});
    }
  }
  double Slope = 0;
  std::vector<std::pair<double, double>> Inside;
  for (auto [X, D] : Events) {
    if (X <= LoX)
      Slope += D;
    else if (X < HiX)
      Inside.push_back({X, D});
  }
  std::sort(Inside.begin(), Inside.end());
  double BestX = LoX, Best = Base, Cur = Base, At = LoX;
  for (auto [X, D] : Inside) {
    Cur += Slope * (X - At);
    At = X;
    Slope += D;
    if (Cur < Best) {
      Best = Cur;
      BestX = X;
    }
  }
  Cur += Slope * (HiX - At);
  if (Cur < Best) {
    Best = Cur;
    BestX = HiX;
  }
  return {BestX, Best};
}

/// The best 1/efficiency of class \p Ci, every other constant fixed.
std::pair<double, double> fitClass(const Problem &P, const Params &X,
                                   unsigned Ci) {
  std::vector<double> Rest = modelTime(P, X, int(Ci));
  std::vector<Term> Terms;
  for (size_t I = 0; I < P.size(); ++I)
    Terms.push_back({P.A[Ci][I], P.W[Ci][I] * X.C0, P.Floor[I],
                     Rest[I] > P.Floor[I] ? Rest[I] : P.Floor[I], P.Time[I],
                     P.Weight[I]});
  return lineSearch(Terms, InvEtaLo, InvEtaHi);
}

/// The best wave overhead: a 16-point log grid, then 20 golden-section
/// steps between the best point's neighbours.
std::pair<double, double> fitC0(const Problem &P, const Params &X) {
  auto At = [&](double C0) {
    Params Y = X;
    Y.C0 = C0;
    return loss(P, Y);
  };
  double Grid[16], Vals[16];
  for (int I = 0; I < 16; ++I) {
    Grid[I] = C0Lo * std::pow(C0Hi / C0Lo, I / 15.0);
    Vals[I] = At(Grid[I]);
  }
  int I = int(std::min_element(Vals, Vals + 16) - Vals);
  double Lo = Grid[std::max(I - 1, 0)], Hi = Grid[std::min(I + 1, 15)];
  const double G = (std::sqrt(5.0) - 1) / 2;
  double X1 = Hi - G * (Hi - Lo), X2 = Lo + G * (Hi - Lo);
  double F1 = At(X1), F2 = At(X2);
  for (int Step = 0; Step < 20; ++Step) {
    if (F1 < F2) {
      Hi = X2, X2 = X1, F2 = F1;
      X1 = Hi - G * (Hi - Lo);
      F1 = At(X1);
    } else {
      Lo = X1, X1 = X2, F1 = F2;
      X2 = Lo + G * (Hi - Lo);
      F2 = At(X2);
    }
  }
  std::pair<double, double> Cands[] = {{Vals[I], Grid[I]}, {F1, X1}, {F2, X2}};
  auto Best = *std::min_element(std::begin(Cands), std::end(Cands));
  return {Best.second, Best.first};
}

/// Coordinate descent over every chosen constant.
double refine(const Problem &P, Params &X, int Rounds) {
  double Cur = loss(P, X);
  for (int R = 0; R < Rounds; ++R) {
    double Before = Cur;
    for (auto &[Ci, Inv] : X.Classes)
      std::tie(Inv, Cur) = fitClass(P, X, Ci);
    std::tie(X.C0, Cur) = fitC0(P, X);
    if (Before - Cur < 1e-7)
      break;
  }
  return Cur;
}

/// Minimises \p F from \p X0 with a first simplex of edge \p Step.
std::vector<double>
nelderMead(const std::function<double(const std::vector<double> &)> &F,
           std::vector<double> X0, double Step, int Evals) {
  size_t N = X0.size();
  std::vector<std::vector<double>> Pts{X0};
  for (size_t I = 0; I < N; ++I) {
    Pts.push_back(X0);
    Pts.back()[I] += Step;
  }
  std::vector<double> Vals;
  for (auto &Pt : Pts)
    Vals.push_back(F(Pt));
  int Used = int(N + 1);
  while (Used < Evals) {
    std::vector<size_t> Order(N + 1);
    std::iota(Order.begin(), Order.end(), 0);
    std::stable_sort(Order.begin(), Order.end(),
                     [&](size_t A, size_t B) { return Vals[A] < Vals[B]; });
    std::vector<std::vector<double>> P2;
    std::vector<double> V2;
    for (size_t I : Order)
      P2.push_back(Pts[I]), V2.push_back(Vals[I]);
    Pts = std::move(P2), Vals = std::move(V2);
    std::vector<double> Centre(N, 0);
    for (size_t J = 0; J < N; ++J) {
      for (size_t I = 0; I < N; ++I)
        Centre[J] += Pts[I][J];
      Centre[J] /= double(N);
    }
    auto Towards = [&](double T) {
      std::vector<double> Out(N);
      for (size_t J = 0; J < N; ++J)
        Out[J] = Centre[J] + T * (Pts[N][J] - Centre[J]);
      return Out;
    };
    std::vector<double> R = Towards(-1.0);
    double FR = F(R);
    ++Used;
    if (FR < Vals[0]) {
      std::vector<double> E = Towards(-2.0);
      double FE = F(E);
      ++Used;
      if (FE < FR)
        Pts[N] = E, Vals[N] = FE;
      else
        Pts[N] = R, Vals[N] = FR;
    } else if (FR < Vals[N - 1]) {
      Pts[N] = R, Vals[N] = FR;
    } else {
      std::vector<double> C = Towards(0.5);
      double FC = F(C);
      ++Used;
      if (FC < Vals[N]) {
        Pts[N] = C, Vals[N] = FC;
      } else {
        for (size_t I = 1; I <= N; ++I) {
          for (size_t J = 0; J < N; ++J)
            Pts[I][J] = (Pts[0][J] + Pts[I][J]) / 2;
          Vals[I] = F(Pts[I]);
        }
        Used += int(N);
      }
    }
  }
  return Pts[std::min_element(Vals.begin(), Vals.end()) - Vals.begin()];
}

/// Nelder-Mead over every constant at once, in log space: coordinate steps
/// on a sum of absolute errors can stop where only a joint move helps.
Params polish(const Problem &P, const Params &X, int Evals) {
  std::vector<double> X0;
  for (auto [Ci, Inv] : X.Classes)
    X0.push_back(std::log(Inv));
  X0.push_back(std::log(X.C0));
  auto Unpack = [&](const std::vector<double> &V) {
    Params Y = X;
    for (size_t I = 0; I < Y.Classes.size(); ++I)
      Y.Classes[I].second =
          std::min(std::max(std::exp(V[I]), InvEtaLo), InvEtaHi);
    Y.C0 = std::min(std::max(std::exp(V.back()), C0Lo), C0Hi);
    return Y;
  };
  return Unpack(nelderMead(
      [&](const std::vector<double> &V) { return loss(P, Unpack(V)); }, X0,
      0.05, Evals));
}

/// Drops the classes the fit does as well without.
double prune(const Problem &P, Params &X, double Cur) {
  std::vector<unsigned> Chosen;
  for (auto [Ci, Inv] : X.Classes)
    Chosen.push_back(Ci);
  for (unsigned Ci : Chosen) {
    if (X.Classes.size() == 1)
      break;
    Params Trial = X;
    llvm::erase_if(Trial.Classes, [&](auto &C) { return C.first == Ci; });
    double L = loss(P, Trial);
    if (L <= Cur + 1e-12)
      X = std::move(Trial), Cur = L;
  }
  return Cur;
}

/// Restarts the efficiencies from each wave overhead of a coarse grid.
double profileC0(const Problem &P, Params &X, double Cur) {
  double Best = Cur;
  Params BestX = X;
  for (int I = 0; I < 8; ++I) {
    Params Trial = X;
    Trial.C0 = C0Lo * 10 * std::pow(C0Hi / C0Lo / 10, I / 7.0);
    double L = INFINITY;
    for (auto &[Ci, Inv] : Trial.Classes)
      std::tie(Inv, L) = fitClass(P, Trial, Ci);
    if (L < Best)
      Best = L, BestX = std::move(Trial);
  }
  X = std::move(BestX);
  return Best;
}

} // namespace

GemmFitResult fitGemm(llvm::ArrayRef<GemmPoint> Points, const GemmChip &C) {
  Problem P(Points, C);
  Params X;
  double Cur = INFINITY;
  // Step 1: greedy forward selection, from a small wave overhead.
  while (X.Classes.size() < 4) {
    double BestL = INFINITY, BestX = 0;
    int BestCi = -1;
    for (unsigned Ci = 0; Ci < P.Classes.size(); ++Ci) {
      if (llvm::any_of(X.Classes, [&](auto &Cl) { return Cl.first == Ci; }))
        continue;
      auto [Inv, L] = fitClass(P, X, Ci);
      if (BestCi < 0 || L < BestL - 1e-12)
        BestL = L, BestCi = int(Ci), BestX = Inv;
    }
    if (BestCi < 0 || BestL > Cur - 1e-4)
      break; // no class lowers the mean error by 0.01 points
    X.Classes.push_back({unsigned(BestCi), BestX});
    Cur = refine(P, X, 2);
  }
  // Steps 2 and 3.
  Cur = profileC0(P, X, Cur);
  Cur = refine(P, X, 10);
  Params Polished = polish(P, X, 150);
  if (loss(P, Polished) < Cur) {
    X = std::move(Polished);
    Cur = refine(P, X, 2);
  }
  prune(P, X, Cur);
  GemmFitResult R;
  R.WaveOverhead = X.C0;
  for (auto [Ci, Inv] : X.Classes) {
    const Class &Cl = P.Classes[Ci];
    std::string Name = "t" + std::to_string(Cl.M) + "x" + std::to_string(Cl.N);
    if (Cl.Ctas != 1)
      Name += "x" + std::to_string(Cl.Ctas);
    R.Tiles.push_back({Name, Cl.M, Cl.N, Cl.Ctas, 1.0 / Inv, {}});
  }
  llvm::sort(R.Tiles, [](const TileClass &A, const TileClass &B) {
    return std::tie(A.M, A.N, A.Ctas) < std::tie(B.M, B.N, B.Ctas);
  });
  return R;
}

ChipSpec fittedChip(const ChipSpec &Base, const GemmFitResult &F,
                    const GemmChip &C, DType T) {
  ChipSpec Out = Base;
  Out.Sms = C.Sms;
  Out.Tiles.assign(F.Tiles.begin(), F.Tiles.end());
  Out.WaveOverhead = F.WaveOverhead;
  Out.MatmulEfficiencyFor[unsigned(T)] = C.Ceiling;
  Out.EpilogueEfficiency = 0;
  return Out;
}

} // namespace shardc::calibrate
