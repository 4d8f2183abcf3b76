//===- TextReport.cpp - The table people read -----------------------------===//
//
// One row per source statement (inputs have no cost and are left out), then
// the totals and one sentence naming the dominant bottleneck.
//
//===----------------------------------------------------------------------===//
#include "report/Report.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <fmt/format.h>

using namespace shardc;

namespace {

/// `AllReduce[Y] node` — the levels it crosses, the binding one first.
std::string collectiveText(const Operation &Op, const MeshSpec &Mesh) {
  std::vector<std::string> Axes, Levels;
  for (unsigned A : Op.Axes)
    Axes.push_back(Mesh.Axes[A].Name);
  if (Op.CommCost) {
    const LevelCost *Worst = nullptr;
    for (const LevelCost &L : Op.CommCost->Levels)
      if (!Worst || L.Time > Worst->Time)
        Worst = &L;
    for (const LevelCost &L : Op.CommCost->Levels)
      if (&L != Worst)
        Levels.push_back(Mesh.Cluster->Levels[L.Level].Name);
    if (Worst)
      Levels.insert(Levels.begin(), Mesh.Cluster->Levels[Worst->Level].Name);
  }
  std::string S =
      fmt::format("{}[{}]", collectiveName(collectiveKindOf(Op.Kind)).str(),
                  llvm::join(Axes, ","));
  return Levels.empty() ? S + " local" : S + " " + llvm::join(Levels, ",");
}

std::string headerLine(const Module &M) {
  const MeshSpec &Mesh = *M.Mesh;
  std::vector<std::string> Axes;
  for (const MeshAxis &A : Mesh.Axes)
    Axes.push_back(fmt::format("{}: {}", A.Name, A.Size));
  const ChipSpec &C = Mesh.Cluster->Chip;
  std::vector<std::string> Crit;
  for (unsigned T = 0; T < NumDTypes; ++T)
    if (C.Flops[T] > 0 && (DType(T) == DType::bf16 || Crit.empty()))
      Crit.push_back(fmt::format("{} FLOP/B ({})",
                                 formatSig4(C.Flops[T] / C.HbmBw),
                                 dtypeName(DType(T)).str()));
  return fmt::format(
      "mesh {} = {}[{}]: {} x {}, critical intensity {}, overlap {}\n",
      Mesh.Name, Mesh.Cluster->Name, llvm::join(Axes, ", "), Mesh.numChips(),
      C.Name, Crit.empty() ? "n/a" : Crit.back(),
      M.Config.Overlap ? "on" : "off");
}

/// The sentence under the totals: which term dominates, and where.
std::string bottleneck(const Module &M) {
  const ProgramCost &T = *M.Totals;
  if (T.Time == 0)
    return "nothing to run: the program has no ops with a cost";
  const Statement *Worst = nullptr;
  for (const Statement &S : M.Statements)
    if (S.Cost && (!Worst || S.Cost->Time * double(S.Repeat) >
                                 Worst->Cost->Time * double(Worst->Repeat)))
      Worst = &S;
  const char *What = "compute (matmul and vector FLOPs)";
  double Term = T.TMath;
  if (T.THbm > Term)
    What = "memory bandwidth (HBM traffic)", Term = T.THbm;
  if (T.TComms > Term)
    What = "communication (collectives)", Term = T.TComms;
  return fmt::format(
      "bottleneck: {} — {:.1f}% of the summed op time; the "
      "costliest op is '{}' at line {} ({} bound, {:.1f}% of "
      "the total)",
      What, 100.0 * Term / (T.TMath + T.THbm + T.TComms), Worst->Name,
      Worst->Line, boundName(Worst->Cost->Bounded).str(),
      100.0 * Worst->Cost->Time * double(Worst->Repeat) / T.Time);
}

} // namespace

void shardc::printTextReport(const Module &M, const llvm::SourceMgr &SM,
                             llvm::raw_ostream &OS) {
  OS << headerLine(M) << "\n";
  std::vector<TensorInfo> Tensors = inputTensors(M);
  if (!Tensors.empty())
    OS << "tensors (per chip):\n";
  for (const TensorInfo &T : Tensors)
    OS << fmt::format("  {:<12} line {:<5} {:<24} local {:<20} {:>11}  HBM "
                      "read {}\n",
                      T.Decl->Name, T.Decl->Line, T.V->Type.str(*M.Mesh),
                      T.LocalShape, formatAmount(T.Bytes, "B"),
                      formatTime(T.ReadTime));
  if (!Tensors.empty())
    OS << "\n";
  auto Colls = collectivesByStatement(M);
  std::string Fmt = "{:<12} {:>5} {:>5} {:<12} {:>11} {:>11} {:>10} {:>10} "
                    "{:<28} {:>10} {:>10} {}\n";
  OS << fmt::format(fmt::runtime(Fmt), "op", "line", "x", "kind", "FLOPs/chip",
                    "bytes/chip", "T_math", "T_hbm", "collectives", "T_comms",
                    "time", "bound");
  for (size_t I = 0; I < M.Statements.size(); ++I) {
    const Statement &S = M.Statements[I];
    if (!S.Cost || S.KindName == "input")
      continue;
    std::vector<std::string> Cs;
    for (const Operation *Op : Colls[I])
      Cs.push_back(collectiveText(*Op, *M.Mesh));
    const OpCost &C = *S.Cost;
    OS << fmt::format(
        fmt::runtime(Fmt), S.Name, S.Line, S.Repeat, S.KindName,
        formatAmount(C.Flops, "FLOP"), formatAmount(C.HbmBytes, "B"),
        formatTime(C.TMath), formatTime(C.THbm),
        Cs.empty() ? "-" : Cs.front() + (Cs.size() > 1 ? ";" : ""),
        formatTime(C.TComms), formatTime(C.Time), boundName(C.Bounded).str());
    // Further collectives go on lines of their own, under the first, so
    // the columns stay aligned.
    for (size_t K = 1; K < Cs.size(); ++K) {
      std::string Line =
          fmt::format(fmt::runtime(Fmt), "", "", "", "", "", "", "", "",
                      Cs[K] + (K + 1 < Cs.size() ? ";" : ""), "", "", "");
      OS << llvm::StringRef(Line).rtrim() << "\n";
    }
  }
  bool Any = false;
  for (const Statement &S : M.Statements) {
    if (!S.RejectedTime)
      continue;
    OS << (Any ? "" : "\nchoices:\n");
    Any = true;
    OS << fmt::format("  '{}' (line {}): {} (op time {}) rather than {} (op "
                      "time {})\n",
                      S.Name, S.Line, S.Choice, formatTime(S.Cost->Time),
                      S.Rejected, formatTime(*S.RejectedTime));
  }
  const ProgramCost &T = *M.Totals;
  OS << "\n"
     << fmt::format("total: time {}, T_math {}, T_hbm {}, T_comms {} "
                    "(repeats applied)\n",
                    formatTime(T.Time), formatTime(T.TMath), formatTime(T.THbm),
                    formatTime(T.TComms));
  OS << fmt::format("useful FLOPs {}, MFU {:.1f}%\n",
                    formatAmount(T.Flops, "FLOP"), 100.0 * T.Mfu);
  OS << bottleneck(M) << "\n";
}
