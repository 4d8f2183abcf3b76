//===- TextReport.cpp - The table people read -----------------------------===//
//
// One row per source statement (inputs have no cost and are left out), then
// the totals and one sentence naming the dominant bottleneck.
//
//===----------------------------------------------------------------------===//
#include "passes/Describe.h"
#include "report/Report.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"
#include <fmt/format.h>

using namespace shardc;

namespace {

/// `AllReduce[Y] node` — the levels it crosses, the binding one first.
std::string collectiveText(const CollectiveOp &Op, const MeshCompile &C) {
  const MeshSpec &Mesh = C.mesh();
  std::vector<std::string> Levels;
  const auto &Cost = C.Tables.Collectives[Op.id()];
  if (Cost && Cost->BoundLevel) {
    Levels.push_back(Mesh.Cluster->Levels[*Cost->BoundLevel].Name);
    for (const LevelCost &L : Cost->Levels)
      if (L.Level != *Cost->BoundLevel)
        Levels.push_back(Mesh.Cluster->Levels[L.Level].Name);
  }
  std::string S =
      fmt::format("{}[{}]", collectiveName(Op.collectiveKind()).str(),
                  axisNames(Op.axes(), C.checked().names(), ","));
  return Levels.empty() ? S + " local" : S + " " + llvm::join(Levels, ",");
}

std::string headerLine(const MeshCompile &C) {
  const MeshSpec &Mesh = C.mesh();
  std::vector<std::string> Axes;
  for (const MeshAxis &A : Mesh.Axes)
    Axes.push_back(fmt::format("{}: {}", A.Name, A.Size));
  const ChipSpec &Chip = Mesh.Cluster->Chip;
  std::vector<std::string> Crit;
  for (unsigned T = 0; T < NumDTypes; ++T)
    if (Chip.Flops[T] > 0 && (DType(T) == DType::bf16 || Crit.empty()))
      Crit.push_back(fmt::format("{} FLOP/B ({})",
                                 formatSig4(Chip.Flops[T] / Chip.HbmBw),
                                 dtypeName(DType(T)).str()));
  return fmt::format(
      "mesh {} = {}[{}]: {} x {}, critical intensity {}, overlap {}\n",
      Mesh.Name, Mesh.Cluster->Name, llvm::join(Axes, ", "), Mesh.numChips(),
      Chip.Name, Crit.empty() ? "n/a" : Crit.back(),
      C.config().Overlap ? "on" : "off");
}

/// The sentence under the totals: the largest of the three summed cost
/// terms and its share of their sum (not of the total time: under overlap
/// the terms hide under each other, so they add up to more than it), then
/// the statement that takes the most time.
std::string bottleneck(const MeshCompile &C) {
  const ProgramCost &T = *C.Tables.Totals;
  if (T.Time == 0)
    return "nothing to run: the program has no ops with a cost";
  const auto &Costs = C.Tables.StatementCosts;
  const ProgramInfo &Info = C.checked().info();
  auto Total = [&](size_t I) {
    return Costs[I]->Time * double(Info.Statements[I].Repeat);
  };
  size_t Worst = Costs.size();
  for (size_t I = 0; I < Costs.size(); ++I)
    if (Costs[I] && (Worst == Costs.size() || Total(I) > Total(Worst)))
      Worst = I;
  // Ties go to compute, then memory, as an op's bound does.
  const char *What = "compute", *Name = "T_math";
  double Term = T.TMath;
  if (T.THbm > Term)
    What = "memory bandwidth", Name = "T_hbm", Term = T.THbm;
  if (T.TComms > Term)
    What = "communication", Name = "T_comms", Term = T.TComms;
  const Statement &S = Info.Statements[Worst];
  return fmt::format(
      "bottleneck: {} is the largest cost term: {} of {}, {:.1f}% of T_math "
      "+ T_hbm + T_comms; the costliest op is '{}' at line {} ({} bound, "
      "{:.1f}% of the total time)",
      What, formatTime(Term), Name,
      100.0 * Term / (T.TMath + T.THbm + T.TComms), S.Name, S.Location.Line,
      boundName(Costs[Worst]->Bounded).str(), 100.0 * Total(Worst) / T.Time);
}

void tensorLines(const MeshCompile &C, llvm::raw_ostream &OS) {
  std::vector<TensorInfo> Tensors = inputTensors(C);
  if (Tensors.empty())
    return;
  OS << "tensors (per chip):\n";
  for (const TensorInfo &T : Tensors)
    OS << fmt::format("  {:<12} line {:<5} {:<24} local {:<20} {:>11}  HBM "
                      "read {}\n",
                      T.Decl->Name, T.Decl->Location.Line,
                      C.checked().typeStr(T.V->type()), T.LocalShape,
                      formatAmount(T.Bytes, "B"), formatTime(T.ReadTime));
  OS << "\n";
}

constexpr const char *RowFormat =
    "{:<12} {:>5} {:>5} {:<12} {:>11} {:>11} {:>10} {:>10} {:<28} {:>10} "
    "{:>10} {}\n";

/// One statement's row, then its further collectives on lines of their
/// own, under the first, so the columns stay aligned.
void statementRow(const MeshCompile &C, const Statement &S, const OpCost &Cost,
                  llvm::ArrayRef<const CollectiveOp *> Colls,
                  llvm::raw_ostream &OS) {
  std::vector<std::string> Cs;
  for (const CollectiveOp *Op : Colls)
    Cs.push_back(collectiveText(*Op, C));
  OS << fmt::format(fmt::runtime(RowFormat), S.Name, S.Location.Line, S.Repeat,
                    opNoun(S.Kind).str(), formatAmount(Cost.Flops, "FLOP"),
                    formatAmount(Cost.HbmBytes, "B"), formatTime(Cost.TMath),
                    formatTime(Cost.THbm),
                    Cs.empty() ? "-" : Cs.front() + (Cs.size() > 1 ? ";" : ""),
                    formatTime(Cost.TComms), formatTime(Cost.Time),
                    boundName(Cost.Bounded).str());
  for (size_t K = 1; K < Cs.size(); ++K) {
    std::string Line =
        fmt::format(fmt::runtime(RowFormat), "", "", "", "", "", "", "", "",
                    Cs[K] + (K + 1 < Cs.size() ? ";" : ""), "", "", "");
    OS << llvm::StringRef(Line).rtrim() << "\n";
  }
}

void choiceLines(const MeshCompile &C, llvm::raw_ostream &OS) {
  const ProgramInfo &Info = C.checked().info();
  bool Any = false;
  for (size_t I = 0; I < Info.Statements.size(); ++I) {
    const auto &Choice = C.Tables.Choices[I];
    if (!Choice || !Choice->Rejected)
      continue;
    OS << (Any ? "" : "\nchoices:\n");
    Any = true;
    const Statement &S = Info.Statements[I];
    OS << fmt::format(
        "  '{}' (line {}): {} ({}) rather than {} ({})\n", S.Name,
        S.Location.Line, describePlan(Choice->Chosen, Info.Names),
        planCost(*Choice, Choice->Chosen, C.Tables.StatementCosts[I]->Time),
        describePlan(*Choice->Rejected, Info.Names),
        planCost(*Choice, *Choice->Rejected, Choice->Rejected->Time));
  }
}

/// COST-MODEL.md §1's fallback, said where it happened: per dtype the chip
/// gives no vector peak for, the statements whose vector work ran at the
/// matmul peak instead (which overstates a vector unit several times over).
void fallbackNotes(const MeshCompile &C, llvm::raw_ostream &OS) {
  const ChipSpec &Chip = C.mesh().Cluster->Chip;
  const ProgramInfo &Info = C.checked().info();
  constexpr size_t Named = 3; // the rest are counted
  for (unsigned T = 0; T < NumDTypes; ++T) {
    std::vector<std::string> Stmts;
    size_t Count = 0;
    for (size_t I = 0; I < Info.Statements.size(); ++I) {
      const auto &Cost = C.Tables.StatementCosts[I];
      if (!Cost || !(Cost->VectorFallback >> T & 1) || ++Count > Named)
        continue;
      Stmts.push_back(fmt::format("'{}' (line {})", Info.Statements[I].Name,
                                  Info.Statements[I].Location.Line));
    }
    if (Stmts.empty())
      continue;
    std::string Who = llvm::join(Stmts, ", ");
    if (Count > Named)
      Who += fmt::format(" and {} more", Count - Named);
    llvm::StringRef Name = dtypeName(DType(T));
    OS << fmt::format("\nnote: chip '{}' gives no vector_flops.{}: the vector "
                      "work of {} ran at the matmul peak flops.{} = {}\n",
                      Chip.Name, Name.str(), Who, Name.str(),
                      formatAmount(Chip.Flops[T], "FLOP/s"));
  }
}

} // namespace

void shardc::printTextReport(const MeshCompile &C, llvm::raw_ostream &OS) {
  OS << headerLine(C) << "\n";
  tensorLines(C, OS);
  auto Colls = collectivesByStatement(*C.lowered());
  OS << fmt::format(fmt::runtime(RowFormat), "op", "line", "x", "kind",
                    "FLOPs/chip", "bytes/chip", "T_math", "T_hbm",
                    "collectives", "T_comms", "time", "bound");
  const ProgramInfo &Info = C.checked().info();
  for (size_t I = 0; I < Info.Statements.size(); ++I) {
    const Statement &S = Info.Statements[I];
    if (!C.Tables.StatementCosts[I] || S.Kind == OpKind::Input)
      continue;
    statementRow(C, S, *C.Tables.StatementCosts[I], Colls[I], OS);
  }
  choiceLines(C, OS);
  fallbackNotes(C, OS);
  const ProgramCost &T = *C.Tables.Totals;
  OS << "\n"
     << fmt::format("total: time {}, T_math {}, T_hbm {}, T_comms {} "
                    "(repeats applied)\n",
                    formatTime(T.Time), formatTime(T.TMath), formatTime(T.THbm),
                    formatTime(T.TComms));
  OS << fmt::format("useful FLOPs {}, MFU {:.1f}%\n",
                    formatAmount(T.Flops, "FLOP"), 100.0 * T.Mfu);
  OS << bottleneck(C) << "\n";
}
