//===- KernelSweep.cpp - Kernel rates from kernel sweeps -----------------===//
#include "calibrate/KernelSweep.h"
#include "calibrate/KFold.h"
#include "calibrate/Lines.h"
#include "calibrate/NcclCalibration.h"
#include "diag/Diagnostic.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Path.h"
#include <cmath>
#include <fmt/format.h>

namespace shardc::calibrate {
namespace {

/// The memory-bound kernels a training step's statements stand for.
constexpr llvm::StringLiteral StepKernels[] = {
    "add",           "gelu_fwd",      "gelu_bwd",    "dropout_fwd",
    "layernorm_fwd", "layernorm_bwd", "rmsnorm_fwd", "rmsnorm_bwd",
    "softmax_fwd",   "silu_mul"};

/// A CSV's rows, the named columns of each, located.
struct Table {
  llvm::SMLoc HeaderLoc;
  std::vector<llvm::SmallVector<Field, 8>> Rows; ///< the named columns only
};

std::optional<Table> readTable(unsigned Buffer,
                               llvm::ArrayRef<llvm::StringRef> Names,
                               DiagnosticEngine &Diags) {
  const llvm::MemoryBuffer *Buf = Diags.sourceMgr().getMemoryBuffer(Buffer);
  Table T;
  std::vector<unsigned> Cols;
  unsigned Width = 0;
  for (const Line &L : splitLines(Buf->getBuffer())) {
    llvm::StringRef S = L.Text.trim();
    if (S.empty() || S.startswith("#"))
      continue;
    auto F = splitCsv(L.Text);
    if (!Width) {
      // The classifier saw every named column in this header.
      Width = unsigned(F.size());
      T.HeaderLoc = L.Loc();
      for (llvm::StringRef N : Names)
        for (unsigned I = 0; I < F.size(); ++I)
          if (F[I].Text == N)
            Cols.push_back(I);
      continue;
    }
    if (F.size() != Width) {
      Diags.report(L.Loc(), diag::CalibShortRow, unsigned(F.size()), Width);
      return std::nullopt;
    }
    T.Rows.emplace_back();
    for (unsigned C : Cols)
      T.Rows.back().push_back(F[C]);
  }
  return T;
}

/// Field \p F as a number (positive when \p Positive, else not negative);
/// nothing after reporting it.
std::optional<double> number(const Field &F, llvm::StringRef Column,
                             bool Positive, DiagnosticEngine &Diags) {
  std::optional<double> V = parseNumber(F.Text);
  if (!V || *V < 0 || (Positive && *V == 0)) {
    Diags.report(F.Loc(), diag::CalibBadNumber,
                 Positive ? "a positive number" : "a number", Column.str(),
                 F.Text.str());
    return std::nullopt;
  }
  return V;
}

bool readElementwise(const Table &T, double HbmBw, KernelSweep &S,
                     DiagnosticEngine &Diags) {
  // kernel, elements, bytes, time_s
  std::vector<std::array<double, 3>> Values;
  double Largest = 0;
  for (auto &R : T.Rows) {
    auto E = number(R[1], "elements", true, Diags);
    auto B = E ? number(R[2], "bytes", true, Diags) : std::nullopt;
    auto Tm = B ? number(R[3], "time_s", true, Diags) : std::nullopt;
    if (!Tm)
      return false;
    Values.push_back({*E, *B, *Tm});
    Largest = std::max(Largest, *E);
  }
  for (size_t I = 0; I < T.Rows.size(); ++I) {
    if (Values[I][0] != Largest)
      continue;
    KernelRate K{T.Rows[I][0].Text.str(), Values[I][1] / Values[I][2] / HbmBw,
                 T.Rows[I][0].Loc()};
    if (K.Name == "copy")
      S.Copy = K;
    else if (llvm::is_contained(StepKernels, K.Name))
      S.Rates.push_back(K);
  }
  return true;
}

bool readAttention(const Table &T, double Peak, KernelSweep &S,
                   DiagnosticEngine &Diags) {
  // seq, head_dim, causal, backend, pass, time_s, flops_executed
  bool HasCudnn =
      llvm::any_of(T.Rows, [](auto &R) { return R[3].Text == "cudnn"; });
  for (auto &R : T.Rows) {
    auto Seq = number(R[0], "seq", true, Diags);
    auto Hd = Seq ? number(R[1], "head_dim", true, Diags) : std::nullopt;
    auto Causal = Hd ? number(R[2], "causal", false, Diags) : std::nullopt;
    auto Tm = Causal ? number(R[5], "time_s", true, Diags) : std::nullopt;
    auto Fl = Tm ? number(R[6], "flops_executed", true, Diags) : std::nullopt;
    if (!Fl)
      return false;
    if (R[3].Text != (HasCudnn ? "cudnn" : "flash") || *Hd != 128 ||
        *Causal != 1 || *Seq < 2048)
      continue;
    KernelRate K{"s" + std::to_string(int64_t(*Seq)), *Fl / *Tm / Peak,
                 R[0].Loc()};
    if (R[4].Text == "fwd")
      S.Rates.push_back(K);
    else if (R[4].Text == "bwd")
      S.Backward.push_back(K);
  }
  return true;
}

double geomean(llvm::ArrayRef<KernelRate> Rates) {
  double S = 0;
  for (const KernelRate &R : Rates)
    S += std::log(R.Efficiency);
  return std::exp(S / double(Rates.size()));
}

/// The mean |relative time error| of each kernel predicted by the geometric
/// mean of the others' folds (kernels sorted by name, dealt in turn: KFold.h):
/// a time at efficiency e predicted at e' is off by e / e' - 1.
double kfold(std::vector<KernelRate> Rates) {
  llvm::sort(Rates, [](const KernelRate &A, const KernelRate &B) {
    return A.Name < B.Name;
  });
  // Fewer kernels than folds: each is its own fold (scripts/fit_kernels.py).
  unsigned K = unsigned(std::min<size_t>(Folds, Rates.size()));
  return meanAbs(kFoldErrors(llvm::ArrayRef<KernelRate>(Rates), K,
                             [](llvm::ArrayRef<KernelRate> Rest) {
                               return [C = geomean(Rest)](const KernelRate &R) {
                                 return R.Efficiency / C - 1;
                               };
                             }));
}

/// One geometric-mean constant over \p Rates, appended to \p B.
bool meanConstant(llvm::StringRef Name, const KernelSweep &S,
                  const std::vector<KernelRate> &Rates, llvm::StringRef What,
                  PresetBlock &B, DiagnosticEngine &Diags) {
  // One constant: any two kernels cross-validate it.
  if (Rates.size() < 2) {
    Diags.report(S.HeaderLoc, diag::CalibTooFewPoints, unsigned(Rates.size()),
                 Folds, 1u, 2u);
    return false;
  }
  std::string File = llvm::sys::path::filename(S.File).str();
  B.Constants.push_back(
      {Name.str(), geomean(Rates), false,
       fmt::format("{}: {} {}, geometric mean; 5-fold error {:.1f}%", File,
                   Rates.size(), What.str(), 100 * kfold(Rates))});
  return true;
}

} // namespace

std::optional<KernelSweep> parseKernelSweep(unsigned Buffer, bool Attention,
                                            const ChipSpec &Chip,
                                            DiagnosticEngine &Diags) {
  KernelSweep S;
  S.Which = Attention ? KernelSweep::Attention : KernelSweep::Elementwise;
  S.File = Diags.sourceMgr().getMemoryBuffer(Buffer)->getBufferIdentifier();
  static const llvm::StringRef ElementwiseCols[] = {"kernel", "elements",
                                                    "bytes", "time_s"};
  static const llvm::StringRef AttentionCols[] = {
      "seq",  "head_dim", "causal",        "backend",
      "pass", "time_s",   "flops_executed"};
  std::optional<Table> T = Attention
                               ? readTable(Buffer, AttentionCols, Diags)
                               : readTable(Buffer, ElementwiseCols, Diags);
  if (!T)
    return std::nullopt;
  S.HeaderLoc = T->HeaderLoc;
  bool Ok = Attention
                ? readAttention(*T, Chip.matmulPeak(DType::bf16), S, Diags)
                : readElementwise(*T, Chip.HbmBw, S, Diags);
  if (!Ok)
    return std::nullopt;
  return S;
}

bool calibrateKernels(llvm::ArrayRef<KernelSweep> Sweeps, PresetBlock &B,
                      DiagnosticEngine &Diags) {
  for (const KernelSweep &S : Sweeps) {
    std::string File = llvm::sys::path::filename(S.File).str();
    if (S.Which == KernelSweep::Attention) {
      if (!meanConstant("attention_efficiency", S, S.Rates,
                        "fused attention forwards (head dim 128, causal)", B,
                        Diags) ||
          !meanConstant("attention_backward_efficiency", S, S.Backward,
                        "fused attention backwards", B, Diags))
        return false;
      continue;
    }
    if (S.Copy) {
      unsigned Line = Diags.sourceMgr().getLineAndColumn(S.Copy->Loc).first;
      B.Constants.push_back(
          {"hbm_efficiency", S.Copy->Efficiency, false,
           fmt::format("{}:{}: the copy kernel (measured)", File, Line)});
    }
    if (!meanConstant("elementwise_efficiency", S, S.Rates,
                      "memory-bound kernels of a step", B, Diags))
      return false;
  }
  return true;
}

} // namespace shardc::calibrate
