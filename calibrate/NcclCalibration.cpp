//===- NcclCalibration.cpp - A level's constants from nccl-tests ----------===//
#include "calibrate/NcclCalibration.h"
#include "calibrate/CollectiveFit.h"
#include "diag/Diagnostic.h"
#include "support/Format.h"
#include "llvm/Support/Path.h"
#include <fmt/format.h>
#include <functional>

namespace shardc::calibrate {
namespace {

/// The largest size whose time is taken as latency alone.
constexpr double LatencySizeLimit = 4096;

/// On a level with two protocols, the smallest size an in-switch
/// AllReduce's line is fitted to: NCCL runs its LL ring below about 2 MiB
/// (scripts/fit_protocols.py --in-network's --min-bytes for the H100
/// presets).
constexpr double SwitchLineMinBytes = 4 << 20;

/// Whether \p R is an AllReduce the level reduces in its switches.
bool reducedInSwitches(const NcclRun &R, const LevelTarget &T) {
  return T.InNetworkReduction && R.Collective == NcclCollective::AllReduce;
}

double hops(const NcclRun &R) {
  double N = R.Ranks;
  switch (R.Collective) {
  case NcclCollective::AllReduce:
    return 2 * (N - 1);
  case NcclCollective::AllGather:
  case NcclCollective::ReduceScatter:
    return N - 1;
  case NcclCollective::AllToAll:
    return 1;
  }
  llvm_unreachable("unknown collective");
}

/// Step 1: \p R's points as the level's model sees them.
std::vector<CollectivePoint> points(const NcclRun &R, const LevelTarget &T) {
  double N = R.Ranks;
  double Share = R.Collective == NcclCollective::AllReduce
                     ? (reducedInSwitches(R, T) ? 1 : 2 * (N - 1) / N)
                     : (N - 1) / N;
  std::vector<CollectivePoint> Out;
  for (const NcclRow &Row : R.Rows)
    Out.push_back({Share * Row.Bytes, hops(R), Row.Seconds});
  return Out;
}

std::string fileName(const NcclRun &R) {
  return llvm::sys::path::filename(R.Source).str();
}

std::string percent(double E) { return fmt::format("{:.1f}%", 100 * E); }

/// A line above the preset for run \p R with its points' held-out errors.
std::string runNote(const NcclRun &R, llvm::ArrayRef<double> Errors,
                    llvm::StringRef Fitted) {
  return fmt::format("{}: {}, {} GPUs, {} sizes {}..{}: {}; 5-fold error {}",
                     fileName(R), ncclTestName(R.Collective).str(), R.Ranks,
                     R.Rows.size(), formatAmount(R.Rows.front().Bytes, "B"),
                     formatAmount(R.Rows.back().Bytes, "B"), Fitted.str(),
                     percent(meanAbs(Errors)));
}

bool checkRanks(const NcclRun &R, const LevelTarget &T,
                DiagnosticEngine &Diags) {
  if (R.Ranks < 2) {
    Diags.report(R.TableLoc, diag::CalibOneGpu);
    return false;
  }
  if (R.Ranks > T.Size) {
    Diags.report(R.TableLoc, diag::CalibTooManyGpus, R.Ranks, T.Size,
                 T.Cluster);
    return false;
  }
  return true;
}

bool enoughPoints(size_t Count, unsigned Constants, llvm::SMLoc At,
                  DiagnosticEngine &Diags) {
  if (Count >= minPoints(Constants))
    return true;
  Diags.report(At, diag::CalibTooFewPoints, unsigned(Count), Folds, Constants,
               minPoints(Constants));
  return false;
}

/// Step 2: the latency from the run with the most hops; nothing after an
/// error.
std::optional<Constant> latency(llvm::ArrayRef<const NcclRun *> Runs,
                                DiagnosticEngine &Diags) {
  const NcclRun *Src = Runs.front();
  for (const NcclRun *R : Runs)
    if (hops(*R) > hops(*Src))
      Src = R;
  const NcclRow &First = Src->Rows.front();
  if (First.Bytes > LatencySizeLimit) {
    Diags.report(First.Loc, diag::CalibNoSmallSize,
                 fmt::format("{:.0f}", First.Bytes));
    return std::nullopt;
  }
  unsigned Line = Diags.sourceMgr().getLineAndColumn(First.Loc).first;
  return Constant{"latency", First.Seconds / hops(*Src), true,
                  fmt::format("{}:{}: {} at {} / {:.0f} hops (measured)",
                              fileName(*Src), Line, formatTime(First.Seconds),
                              formatAmount(First.Bytes, "B"), hops(*Src))};
}

/// Step 3, on a level that reduces in its switches and has two protocols:
/// its bulk_latency is the switches' line's, and a ring's bandwidth line
/// keeps `latency` (docs/cost-model.md §3), so the rings fit `efficiency`
/// alone, at the measured latency; the base's small-message line is kept.
bool fitRingsUnderSwitches(llvm::ArrayRef<const NcclRun *> Runs,
                           llvm::ArrayRef<CollectivePoint> All,
                           llvm::ArrayRef<size_t> Begin, const LevelTarget &T,
                           const Constant &Lat, PresetBlock &B) {
  double W = T.LinkBw;
  std::optional<double> L = Lat.Value;
  std::vector<double> Errors =
      crossValidate(All, Folds, [&](llvm::ArrayRef<CollectivePoint> Train) {
        OneLine G = fitOneLine(Train, W, L);
        return std::function<double(const CollectivePoint &)>(
            [=](const CollectivePoint &P) { return oneLineTime(P, W, G); });
      });
  for (size_t I = 0; I < Runs.size(); ++I)
    B.Comments.push_back(runNote(
        *Runs[I],
        llvm::ArrayRef<double>(Errors).slice(Begin[I], Runs[I]->Rows.size()),
        "latency and the rings' efficiency (bulk_latency is the switches')"));
  B.Constants.push_back(Lat);
  B.Constants.push_back({"efficiency", fitOneLine(All, W, L).Efficiency, false,
                         "fitted; 5-fold error " + percent(meanAbs(Errors))});
  return true;
}

/// Step 3: the two protocols over the ring runs; appends to \p B.
bool fitRings(llvm::ArrayRef<const NcclRun *> Runs, const LevelTarget &T,
              PresetBlock &B, DiagnosticEngine &Diags) {
  std::optional<Constant> Lat = latency(Runs, Diags);
  if (!Lat)
    return false;
  std::vector<CollectivePoint> All;
  std::vector<size_t> Begin;
  for (const NcclRun *R : Runs) {
    Begin.push_back(All.size());
    for (const CollectivePoint &P : points(*R, T))
      All.push_back(P);
  }
  if (!enoughPoints(All.size(), 3, Runs.front()->TableLoc, Diags))
    return false;
  double W = T.LinkBw, L = Lat->Value;
  if (T.InNetworkReduction && T.TwoProtocols)
    return fitRingsUnderSwitches(Runs, All, Begin, T, *Lat, B);
  TwoProtocols F = fitTwoProtocols(All, W, L);
  std::vector<double> Errors =
      crossValidate(All, Folds, [&](llvm::ArrayRef<CollectivePoint> Train) {
        TwoProtocols G = fitTwoProtocols(Train, W, L);
        return std::function<double(const CollectivePoint &)>(
            [=](const CollectivePoint &P) {
              return twoProtocolTime(P, W, L, G);
            });
      });
  for (size_t I = 0; I < Runs.size(); ++I)
    B.Comments.push_back(runNote(
        *Runs[I],
        llvm::ArrayRef<double>(Errors).slice(Begin[I], Runs[I]->Rows.size()),
        "latency and the two protocols"));
  std::string Fitted = "fitted; 5-fold error " + percent(meanAbs(Errors));
  B.Constants.push_back(*Lat);
  B.Constants.push_back({"small_efficiency", F.SmallEfficiency, false, Fitted});
  B.Constants.push_back({"bulk_latency", F.BulkLatency, true, Fitted});
  B.Constants.push_back({"efficiency", F.Efficiency, false, Fitted});
  return true;
}

/// Step 4: an in-switch AllReduce's one line; appends to \p B.
bool fitReduced(const NcclRun &R, const LevelTarget &T,
                std::optional<double> FixedLatency, PresetBlock &B,
                DiagnosticEngine &Diags) {
  std::vector<CollectivePoint> Pts = points(R, T);
  std::string Latency = "latency";
  if (T.TwoProtocols) {
    // The switches' line only: the sizes where NCCL runs NVLS.
    std::vector<CollectivePoint> Large;
    for (size_t I = 0; I < Pts.size(); ++I)
      if (R.Rows[I].Bytes >= SwitchLineMinBytes)
        Large.push_back(Pts[I]);
    Pts = std::move(Large);
    FixedLatency.reset();
    Latency = "bulk_latency";
  }
  unsigned Constants = FixedLatency ? 1 : 2;
  if (!enoughPoints(Pts.size(), Constants, R.TableLoc, Diags))
    return false;
  double W = T.LinkBw;
  OneLine F = fitOneLine(Pts, W, FixedLatency);
  std::vector<double> Errors =
      crossValidate(Pts, Folds, [&](llvm::ArrayRef<CollectivePoint> Train) {
        OneLine G = fitOneLine(Train, W, FixedLatency);
        return std::function<double(const CollectivePoint &)>(
            [=](const CollectivePoint &P) { return oneLineTime(P, W, G); });
      });
  std::string What = FixedLatency ? "reduction_efficiency"
                                  : Latency + ", reduction_efficiency";
  if (T.TwoProtocols)
    What += fmt::format(" (the switches' line, its {} sizes of 4 MiB and "
                        "more; the base's LL ring line kept)",
                        Pts.size());
  B.Comments.push_back(runNote(R, Errors, What));
  std::string Fitted = "fitted to " + fileName(R) + " (in-switch AllReduce); " +
                       "5-fold error " + percent(meanAbs(Errors));
  if (!FixedLatency)
    B.Constants.push_back({Latency, F.Latency, true, Fitted});
  B.Constants.push_back({"reduction_efficiency", F.Efficiency, false, Fitted});
  return true;
}

} // namespace

std::optional<PresetBlock> calibrateLevel(llvm::ArrayRef<NcclRun> Runs,
                                          const LevelTarget &T,
                                          DiagnosticEngine &Diags) {
  std::vector<const NcclRun *> Rings, Reduced;
  for (const NcclRun &R : Runs) {
    if (!checkRanks(R, T, Diags))
      return std::nullopt;
    (reducedInSwitches(R, T) ? Reduced : Rings).push_back(&R);
  }
  PresetBlock B;
  B.Level = T.Level;
  B.Comments.push_back(
      fmt::format("Level '{}' of {}: {} GPUs, {} per GPU's link (the base's).",
                  T.Level, T.Cluster, T.Size, formatAmount(T.LinkBw, "B/s")));
  if (!Rings.empty() && !fitRings(Rings, T, B, Diags))
    return std::nullopt;
  std::optional<double> Lat;
  if (!Rings.empty())
    Lat = B.Constants.front().Value;
  if (Reduced.size() > 1) {
    Diags.report(Reduced[1]->TableLoc, diag::CalibSecondSwitchRun);
    return std::nullopt;
  }
  for (const NcclRun *R : Reduced)
    if (!fitReduced(*R, T, Lat, B, Diags))
      return std::nullopt;
  return B;
}

} // namespace shardc::calibrate
