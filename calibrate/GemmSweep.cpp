//===- GemmSweep.cpp - A GEMM sweep CSV and the chip fitted to it ---------===//
#include "calibrate/GemmSweep.h"
#include "calibrate/KFold.h"
#include "calibrate/Lines.h"
#include "calibrate/NcclCalibration.h"
#include "diag/Diagnostic.h"
#include "passes/GemmModel.h"
#include "support/Format.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace shardc::calibrate {
namespace {

/// The constants the fit chooses at most: 4 classes' efficiencies and the
/// wave overhead.
constexpr unsigned GemmConstants = 5;

std::optional<unsigned> column(llvm::ArrayRef<Field> Header,
                               llvm::StringRef Name) {
  for (unsigned I = 0; I < Header.size(); ++I)
    if (Header[I].Text == Name)
      return I;
  return std::nullopt;
}

/// Reads one row; false after an error.
bool readRow(llvm::ArrayRef<Field> F, const Line &L,
             llvm::ArrayRef<unsigned> Cols, std::optional<unsigned> Source,
             unsigned Width, GemmSweep &S, DiagnosticEngine &Diags) {
  if (F.size() != Width) {
    Diags.report(L.Loc(), diag::CalibShortRow, unsigned(F.size()), Width);
    return false;
  }
  static const char *Names[] = {"m", "n", "k", "batch"};
  double Dims[4];
  for (unsigned I = 0; I < 4; ++I) {
    std::optional<uint64_t> V = parseCount(F[Cols[I]].Text);
    if (!V || *V == 0) {
      Diags.report(F[Cols[I]].Loc(), diag::CalibBadNumber,
                   "a positive whole number", Names[I], F[Cols[I]].Text.str());
      return false;
    }
    Dims[I] = double(*V);
  }
  const Field &DType = F[Cols[4]], &Time = F[Cols[5]];
  std::optional<double> T = parseNumber(Time.Text);
  if (!T || *T <= 0) {
    Diags.report(Time.Loc(), diag::CalibBadNumber, "a positive time in seconds",
                 "time_s", Time.Text.str());
    return false;
  }
  if (!parseDType(DType.Text)) {
    Diags.report(DType.Loc(), diag::CalibBadNumber, "a dtype (bf16, fp16, ...)",
                 "dtype", DType.Text.str());
    return false;
  }
  S.Rows.push_back({{Dims[0], Dims[1], Dims[2], Dims[3], *T},
                    DType.Text.str(),
                    Source ? F[*Source].Text.str() : std::string(),
                    F.front().Loc()});
  return true;
}

std::string percent(double E) { return fmt::format("{:.1f}%", 100 * E); }

/// The rows \p Sel picks; nothing after an error (several dtypes).
std::optional<std::vector<const GemmRow *>>
select(llvm::ArrayRef<GemmSweep> Sweeps, const GemmSelection &Sel,
       std::string &DType, DiagnosticEngine &Diags) {
  std::vector<const GemmRow *> Out;
  DType = Sel.DType;
  for (const GemmSweep &S : Sweeps)
    for (const GemmRow &R : S.Rows) {
      if (DType.empty())
        DType = R.DType;
      if (R.DType != DType) {
        if (!Sel.DType.empty())
          continue;
        Diags.report(R.Loc, diag::CalibSeveralDtypes, R.DType, DType);
        return std::nullopt;
      }
      // The epilogue of a batched GEMM is not fitted: unbatched rows only.
      if (R.Point.Batch != 1 || R.Point.Seconds < Sel.MinSeconds ||
          (!Sel.Sources.empty() && !llvm::is_contained(Sel.Sources, R.Source)))
        continue;
      Out.push_back(&R);
    }
  return Out;
}

/// The best GEMM's share of \p Peak over \p Rows, and which row.
std::pair<double, const GemmRow *> best(llvm::ArrayRef<const GemmRow *> Rows,
                                        double Peak) {
  std::pair<double, const GemmRow *> B{0, nullptr};
  for (const GemmRow *R : Rows) {
    const GemmPoint &P = R->Point;
    double E = 2 * P.M * P.N * P.K * P.Batch / (Peak * P.Seconds);
    if (E > B.first)
      B = {E, R};
  }
  return B;
}

/// Each row's held-out relative error, 5-fold (KFold.h: row i in fold
/// i mod 5).
std::vector<double> crossValidateGemm(llvm::ArrayRef<const GemmRow *> Rows,
                                      const ChipSpec &Base, GemmChip C,
                                      const GemmSelection &Sel, DType T) {
  return kFoldErrors(Rows, Folds, [&](llvm::ArrayRef<const GemmRow *> Rest) {
    std::vector<GemmPoint> Train;
    for (const GemmRow *R : Rest)
      Train.push_back(R->Point);
    if (!Sel.Ceiling)
      C.Ceiling = best(Rest, C.Peak).first;
    ChipSpec Chip = fittedChip(Base, fitGemm(Train, C), C, T);
    return [Chip, T](const GemmRow *R) {
      const GemmPoint &P = R->Point;
      GemmShape S{P.M, P.N, P.K, P.Batch, 0};
      return gemmTime(S, T, Chip).Time / P.Seconds - 1;
    };
  });
}

} // namespace

std::optional<GemmSweep> parseGemmSweep(unsigned Buffer,
                                        DiagnosticEngine &Diags) {
  const llvm::MemoryBuffer *Buf = Diags.sourceMgr().getMemoryBuffer(Buffer);
  GemmSweep S;
  S.File = Buf->getBufferIdentifier().str();
  std::optional<llvm::SmallVector<Field, 16>> Header;
  llvm::SmallVector<unsigned, 6> Cols;
  std::optional<unsigned> Source;
  for (const Line &L : splitLines(Buf->getBuffer())) {
    llvm::StringRef T = L.Text.trim();
    if (T.empty() || T.startswith("#"))
      continue;
    auto F = splitCsv(L.Text);
    if (!Header) {
      // The classifier saw the required columns in the first line.
      Header = F;
      S.HeaderLoc = L.Loc();
      for (llvm::StringRef Name : {"m", "n", "k", "batch", "dtype", "time_s"})
        Cols.push_back(column(F, Name).value_or(0));
      Source = column(F, "source");
      continue;
    }
    if (!readRow(F, L, Cols, Source, unsigned(Header->size()), S, Diags))
      return std::nullopt;
  }
  return S;
}

std::optional<PresetBlock> calibrateChip(llvm::ArrayRef<GemmSweep> Sweeps,
                                         const ChipSpec &Base,
                                         const GemmSelection &Sel,
                                         DiagnosticEngine &Diags) {
  std::string Name;
  auto Rows = select(Sweeps, Sel, Name, Diags);
  if (!Rows)
    return std::nullopt;
  if (Rows->size() < minPoints(GemmConstants)) {
    Diags.report(Sweeps.front().HeaderLoc, diag::CalibTooFewPoints,
                 unsigned(Rows->size()), Folds, GemmConstants,
                 minPoints(GemmConstants));
    return std::nullopt;
  }
  DType T = *parseDType(Name);
  GemmChip C{Base.Sms, Base.matmulPeak(T), 1};
  auto [Best, BestRow] = best(*Rows, C.Peak);
  C.Ceiling = Sel.Ceiling.value_or(Best);
  std::vector<GemmPoint> Pts;
  for (const GemmRow *R : *Rows)
    Pts.push_back(R->Point);
  GemmFitResult F = fitGemm(Pts, C);
  std::vector<double> Errors = crossValidateGemm(*Rows, Base, C, Sel, T);
  std::vector<double> Abs;
  for (double E : Errors)
    Abs.push_back(std::fabs(E));
  llvm::sort(Abs);
  std::string Err = "5-fold error " + percent(meanAbs(Errors));
  PresetBlock B;
  B.Base = Base.Name;
  std::string Files;
  for (const GemmSweep &S : Sweeps)
    Files +=
        (Files.empty() ? "" : ", ") + llvm::sys::path::filename(S.File).str();
  B.Comments.push_back(fmt::format(
      "GEMMs by shape: {}: {} {} GEMMs of batch 1{}{}; {} SMs, peak {}; "
      "{} (median {})",
      Files, Rows->size(), Name,
      Sel.Sources.empty() ? "" : ", source " + llvm::join(Sel.Sources, ", "),
      Sel.MinSeconds > 0 ? ", of " + formatTime(Sel.MinSeconds) + " or more"
                         : "",
      Base.Sms, formatAmount(C.Peak, "FLOP/s"), Err,
      percent(Abs[Abs.size() / 2])));
  std::string Ceiling = T == DType::bf16 || T == DType::fp16
                            ? "matmul_efficiency"
                            : "matmul_efficiency." + Name;
  if (Sel.Ceiling) {
    B.Constants.push_back({Ceiling, C.Ceiling, false, "given (--ceiling)"});
  } else {
    const GemmPoint &P = BestRow->Point;
    unsigned Line = Diags.sourceMgr().getLineAndColumn(BestRow->Loc).first;
    B.Constants.push_back(
        {Ceiling, C.Ceiling, false,
         fmt::format("{}:{}: the best GEMM, {:.0f} x {:.0f} x {:.0f}, {} "
                     "(measured)",
                     llvm::sys::path::filename(Sweeps.front().File).str(), Line,
                     P.M, P.N, P.K,
                     formatAmount(C.Peak * C.Ceiling, "FLOP/s"))});
  }
  // A dtype with its own peak (fp8) gets its own classes and wave overhead,
  // so the chip's bf16 GEMMs keep theirs (docs/language.md, GEMM tiles).
  bool OwnDtype = T != DType::bf16 && T != DType::fp16;
  for (const TileClass &Tc : F.Tiles)
    B.Constants.push_back(
        {"", 0, false, "fitted; " + Err,
         fmt::format("tile {}{} {{ m = {}; n = {}; ctas = {}; efficiency = "
                     "{};{} }}",
                     OwnDtype ? Name + "_" : "", Tc.Name, Tc.M, Tc.N, Tc.Ctas,
                     formatPlain(Tc.Efficiency),
                     OwnDtype ? " dtype = " + Name + ";" : "")});
  B.Constants.push_back({OwnDtype ? "wave_overhead." + Name : "wave_overhead",
                         F.WaveOverhead, true, "fitted; " + Err});
  return B;
}

} // namespace shardc::calibrate
