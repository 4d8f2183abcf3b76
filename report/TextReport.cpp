//===- TextReport.cpp - The table people read -----------------------------===//
//
// One row per source statement (inputs have no cost and are left out), then
// the totals and one sentence naming the dominant bottleneck; for a training
// step, its summary and memory instead (StepReport.cpp).
//
//===----------------------------------------------------------------------===//
#include "report/Describe.h"
#include "report/Report.h"
#include "report/StepReport.h"
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
                  axisNames(Op.axes(), C.program().names(), ","));
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
    if (Chip.Flops[T] > 0 && (DType(T) == DType::bf16 || Crit.empty())) {
      // A derated chip's matmuls run at its derated rates: say the
      // intensity that decides their bound too.
      double Derating = Chip.MatmulEfficiency / Chip.HbmEfficiency;
      Crit.push_back(fmt::format(
          "{} FLOP/B ({}{})", formatSig4(Chip.Flops[T] / Chip.HbmBw),
          dtypeName(DType(T)).str(),
          Derating == 1
              ? ""
              : "; " + formatSig4(Chip.Flops[T] * Derating / Chip.HbmBw) +
                    " derated"));
    }
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
  const ProgramInfo &Info = C.program().info();
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
  // A param's type is its stored sharding: under ZeRO 3 not what the
  // source wrote, so the row says which setting chose it.
  std::string ParamMark = C.config().Train ? fmt::format("  param (zero = {})",
                                                         C.config().Train->Zero)
                                           : std::string();
  for (const TensorInfo &T : Tensors)
    OS << fmt::format("  {:<12} line {:<5} {:<24} local {:<20} {:>11}  HBM "
                      "read {}{}\n",
                      T.Decl->Name, T.Decl->Location.Line,
                      C.program().typeStr(T.V->type()), T.LocalShape,
                      formatAmount(T.Bytes, "B"), formatTime(T.ReadTime),
                      T.Param ? ParamMark : "");
  OS << "\n";
}

/// The op table's row; its first argument is the name column's width.
constexpr const char *RowFormat =
    "{:<{}} {:>5} {:>5} {:<12} {:>11} {:>11} {:>10} {:>10} {:<28} {:>10} "
    "{:>10} {}\n";
/// The name column fits the longest name up to this, then the row shifts.
constexpr size_t MinNameWidth = 12, MaxNameWidth = 40;

/// `fuse = elementwise`: \p S is a fused kernel's member other than its
/// root, whose row carries the kernel's cost.
bool fusedAway(const MeshCompile &C, const Statement &S) {
  if (!C.Tables.Fusion)
    return false;
  unsigned I = unsigned(&S - C.program().info().Statements.data());
  const FusedKernel *K = C.Tables.Fusion->kernelOf(I);
  return K && K->root() != I;
}

/// `fuse = elementwise`: each fused kernel, its root's row first, with the
/// bytes it moves and what its members moved apart.
void fusionLines(const MeshCompile &C, llvm::ArrayRef<std::string> Names,
                 llvm::raw_ostream &OS) {
  if (!C.Tables.Fusion || C.Tables.Fusion->Kernels.empty()) {
    // Said, so that a setting with no effect is not mistaken for one.
    if (C.config().FuseElementwise)
      OS << "\nfused kernels (fuse = elementwise): none: no elementwise "
            "statement's result is read once, by the next elementwise "
            "statement of its block and phase, and not saved for the "
            "backward\n";
    return;
  }
  const ProgramInfo &Info = C.program().info();
  auto Named = [&](unsigned I) {
    return fmt::format("'{}' (line {})", Names[I],
                       Info.Statements[I].Location.Line);
  };
  OS << "\nfused kernels (fuse = elementwise): one kernel each, priced on "
        "its last statement's row; the others' rows say 'fused'\n";
  for (const FusedKernel &K : C.Tables.Fusion->Kernels) {
    std::vector<std::string> Members;
    for (unsigned I : llvm::makeArrayRef(K.Stmts).drop_back())
      Members.push_back(Named(I));
    OS << fmt::format("  {} with {}: {} per chip, {} run apart\n",
                      Named(K.root()), llvm::join(Members, ", "),
                      formatAmount(K.Bytes, "B"),
                      formatAmount(K.UnfusedBytes, "B"));
  }
}

/// One statement's row, then its further collectives on lines of their
/// own, under the first, so the columns stay aligned.
void statementRow(const MeshCompile &C, const Statement &S,
                  llvm::StringRef Name, const OpCost &Cost,
                  llvm::ArrayRef<const CollectiveOp *> Colls, size_t NameWidth,
                  llvm::raw_ostream &OS) {
  std::vector<std::string> Cs;
  for (const CollectiveOp *Op : Colls)
    Cs.push_back(collectiveText(*Op, C));
  OS << fmt::format(fmt::runtime(RowFormat), Name.str(), NameWidth,
                    S.Location.Line, S.Repeat, opNoun(S.Kind).str(),
                    formatAmount(Cost.Flops, "FLOP"),
                    formatAmount(Cost.HbmBytes, "B"), formatTime(Cost.TMath),
                    formatTime(Cost.THbm),
                    Cs.empty() ? "-" : Cs.front() + (Cs.size() > 1 ? ";" : ""),
                    formatTime(Cost.TComms), formatTime(Cost.Time),
                    fusedAway(C, S) ? "fused" : boundName(Cost.Bounded).str());
  for (size_t K = 1; K < Cs.size(); ++K) {
    std::string Line =
        fmt::format(fmt::runtime(RowFormat), "", NameWidth, "", "", "", "", "",
                    "", "", Cs[K] + (K + 1 < Cs.size() ? ";" : ""), "", "", "");
    OS << llvm::StringRef(Line).rtrim() << "\n";
  }
}

void choiceLines(const MeshCompile &C, llvm::raw_ostream &OS) {
  const ProgramInfo &Info = C.program().info();
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

/// LANGUAGE.md §8: an attention whose key sequence dim is sharded (context
/// parallelism) gathers k and v first; the report says so, once per
/// statement.
void contextParallelNotes(const MeshCompile &C, llvm::raw_ostream &OS) {
  const Module &M = C.forward();
  walk<AttentionOp>(M.body(), [&](const AttentionOp &A) {
    const ShardType &K = A.operand(1)->type();
    const AxisList &Axes = K.Dims[AttentionOp::seqDim(K)].Axes;
    if (Axes.empty())
      return;
    const Statement &St = M.statement(A.stmt());
    // With q's sequence sharded too, every query block adds to every key's
    // gradient: partial sums, reduce-scattered back.
    const ShardType &Q = A.operand(0)->type();
    bool Partial = !Q.Dims[AttentionOp::seqDim(Q)].Axes.empty();
    OS << fmt::format("note: '{}' (line {}) is context-parallel: k and v are "
                      "gathered over {} before its attention (ring "
                      "attention's traffic){}\n",
                      St.Name, St.Location.Line, axisNames(Axes, M.names()),
                      C.config().Train && Partial
                          ? ", and their gradients reduce-scattered back"
                          : "");
  });
}

/// Why a row's time exceeds max(T_math, T_hbm): the ops whose memory-bound
/// kernels run in series with their matmuls (OpWork::SerialBytes: unfused
/// attention's softmax and dropout), each with that serial part.
void serialNotes(const MeshCompile &C, llvm::raw_ostream &OS) {
  const ProgramInfo &Info = C.program().info();
  constexpr size_t Named = 3; // the rest are counted
  std::vector<std::string> Stmts;
  size_t Count = 0;
  for (size_t I = 0; I < Info.Statements.size(); ++I) {
    const auto &Cost = C.Tables.StatementCosts[I];
    if (!Cost || Cost->TSerial <= 0 || ++Count > Named)
      continue;
    Stmts.push_back(fmt::format("'{}' (line {}) {}", Info.Statements[I].Name,
                                Info.Statements[I].Location.Line,
                                formatTime(Cost->TSerial)));
  }
  if (Stmts.empty())
    return;
  std::string Who = llvm::join(Stmts, ", ");
  if (Count > Named)
    Who += fmt::format(" and {} more", Count - Named);
  // Which kernels they are: fp8 GEMMs' casts (CastBytes) and the rest.
  bool Casts = false, Other = false;
  for (const auto &Cost : C.Tables.StatementCosts)
    if (Cost && Cost->TSerial > 0)
      (Cost->CastBytes > 0 ? Casts : Other) = true;
  const char *Kernels =
      !Casts  ? "unfused attention's softmax and dropout"
      : Other ? "unfused attention's softmax and dropout, fp8 GEMMs' casts"
              : "fp8 GEMMs' casts of their operands";
  OS << fmt::format("\nnote: memory-bound kernels in series with the matmuls "
                    "({}) make a row's "
                    "time max(T_math, T_hbm - T_serial) + T_serial; T_serial: "
                    "{}\n",
                    Kernels, Who);
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

/// The GEMM model's verdicts worth reading: on a chip with tile classes,
/// each contraction whose shape runs it more than 5% below the chip's
/// ceiling (docs/cost-model.md §1), with its shape and share of the peak.
/// Without tiles every GEMM runs at the ceiling and nothing is said.
void gemmNotes(const MeshCompile &C, llvm::raw_ostream &OS) {
  const ChipSpec &Chip = C.mesh().Cluster->Chip;
  if (Chip.Tiles.empty())
    return;
  const ProgramInfo &Info = C.program().info();
  std::string Lines;
  for (size_t I = 0; I < Info.Statements.size(); ++I) {
    const auto &Cost = C.Tables.StatementCosts[I];
    if (!Cost || !Cost->Gemm.valid() ||
        Cost->GemmEfficiency >= 0.95 * Cost->GemmCeiling)
      continue;
    const GemmShape &G = Cost->Gemm;
    std::string Shape = fmt::format("{:.0f} x {:.0f} x {:.0f}", G.M, G.N, G.K);
    if (G.Batch > 1)
      Shape = fmt::format("{:.0f} x ", G.Batch) + Shape;
    Lines += fmt::format(
        "  '{}' (line {}) {} {}: {:.1f}% of peak\n", Info.Statements[I].Name,
        Info.Statements[I].Location.Line, Shape, dtypeName(Cost->GemmElt).str(),
        100.0 * Cost->GemmEfficiency);
  }
  if (Lines.empty())
    return;
  OS << fmt::format("\nnote: chip '{}' prices GEMMs by shape; these run more "
                    "than 5% below its ceiling (batch x M x N x K per chip):\n",
                    Chip.Name)
     << Lines;
}

llvm::StringRef phaseTitle(Phase P) {
  switch (P) {
  case Phase::Forward:
    return "forward (one microbatch)";
  case Phase::Backward:
    return "backward (one microbatch, derived)";
  case Phase::Sync:
    return "gradient sync";
  case Phase::Optimizer:
    return "optimizer";
  }
  llvm_unreachable("every phase has a title");
}

/// The book presets price a hop at zero: say so where that makes small
/// collectives nearly free (LatencyBoundSmallTime), with the fix.
void latencyFreeLine(const MeshCompile &C, llvm::raw_ostream &OS) {
  LatencyFreeCollectives L = latencyFreeCollectives(C);
  if (L.Count <= 0)
    return;
  OS << fmt::format(
      "note: {:g} collective{} per step {} priced under {} each on levels "
      "with zero latency ({} per step in all), where a measured hop latency "
      "would dominate: the book presets have zero latency; import "
      "\"measured.shard\" and use the _measured cluster, or set `latency` on "
      "the level\n",
      L.Count, L.Count == 1 ? "" : "s", L.Count == 1 ? "is" : "are",
      formatTime(LatencyBoundSmallTime), formatTime(L.Time));
}

} // namespace

/// Whether \p Chip's figures are its datasheet peaks or measured, and which
/// (the MFU is as honest as the times it divides).
std::string shardc::peaksLabel(const ChipSpec &Chip) {
  if (Chip.atDatasheetPeaks())
    return "at datasheet peaks";
  // Each figure the chip writes that is not 1 (a kernel rate left unset
  // follows matmul_efficiency or hbm_efficiency, named already).
  std::vector<std::string> Measured;
  auto Figure = [&](llvm::StringRef Name, std::optional<double> V) {
    if (V && *V != 1)
      Measured.push_back(fmt::format("{} {:g}", Name.str(), *V));
  };
  Figure("matmul_efficiency", Chip.MatmulEfficiency);
  Figure("hbm_efficiency", Chip.HbmEfficiency);
  Figure("elementwise_efficiency", Chip.ElementwiseEfficiency);
  Figure("attention_efficiency", Chip.AttentionEfficiency);
  Figure("attention_backward_efficiency", Chip.AttentionBackwardEfficiency);
  Figure("matmul_hbm_efficiency", Chip.MatmulHbmEfficiency);
  if (Chip.KernelLatency > 0 || Chip.matmulLatency() > 0)
    Measured.push_back(fmt::format("kernel latency {} (matmuls {})",
                                   formatTime(Chip.KernelLatency),
                                   formatTime(Chip.matmulLatency())));
  // GEMMs priced by shape: the tile classes stand for a fitted sweep.
  if (!Chip.Tiles.empty())
    Measured.push_back(fmt::format("{} GEMM tile class{}", Chip.Tiles.size(),
                                   Chip.Tiles.size() == 1 ? "" : "es"));
  return "measured chip: " + llvm::join(Measured, ", ");
}

void shardc::printTextReport(const MeshCompile &C, llvm::raw_ostream &OS) {
  OS << headerLine(C) << "\n";
  tensorLines(C, OS);
  auto Colls = collectivesByStatement(*C.lowered());
  const ProgramInfo &Info = C.program().info();
  auto Listed = [&](size_t I) {
    const Statement &S = Info.Statements[I];
    return C.Tables.StatementCosts[I] && S.Kind != OpKind::Input &&
           S.Kind != OpKind::Param;
  };
  std::vector<std::string> Names = rowNames(C);
  size_t NameWidth = MinNameWidth;
  for (size_t I = 0; I < Info.Statements.size(); ++I)
    if (Listed(I))
      NameWidth = std::max(NameWidth, std::min(MaxNameWidth, Names[I].size()));
  OS << fmt::format(fmt::runtime(RowFormat), "op", NameWidth, "line", "x",
                    "kind", "FLOPs/chip", "bytes/chip", "T_math", "T_hbm",
                    "collectives", "T_comms", "time", "bound");
  // A training step's statements by phase, each under its title.
  bool Training = C.Tables.Step.has_value();
  for (Phase P :
       {Phase::Forward, Phase::Backward, Phase::Sync, Phase::Optimizer}) {
    bool Titled = false;
    for (size_t I = 0; I < Info.Statements.size(); ++I) {
      const Statement &S = Info.Statements[I];
      if (!Listed(I) || S.Ph != P)
        continue;
      if (Training && !Titled)
        OS << "-- " << phaseTitle(P) << "\n";
      Titled = true;
      statementRow(C, S, Names[I], *C.Tables.StatementCosts[I], Colls[I],
                   NameWidth, OS);
    }
  }
  if (Training)
    overlapLines(C, NameWidth, OS);
  fusionLines(C, Names, OS);
  choiceLines(C, OS);
  fallbackNotes(C, OS);
  serialNotes(C, OS);
  gemmNotes(C, OS);
  contextParallelNotes(C, OS);
  if (Training) {
    stepLines(C, *C.Tables.Step, OS);
    latencyFreeLine(C, OS);
    if (C.Tables.Memory)
      memoryLines(C, *C.Tables.Memory, OS);
    return;
  }
  const ProgramCost &T = *C.Tables.Totals;
  OS << "\n"
     << fmt::format("total: time {}, T_math {}, T_hbm {}, T_comms {} "
                    "(repeats applied)\n",
                    formatTime(T.Time), formatTime(T.TMath), formatTime(T.THbm),
                    formatTime(T.TComms));
  OS << fmt::format("useful FLOPs {}, MFU {:.1f}% ({})\n",
                    formatAmount(T.Flops, "FLOP"), 100.0 * T.Mfu,
                    peaksLabel(C.mesh().Cluster->Chip));
  OS << bottleneck(C) << "\n";
  latencyFreeLine(C, OS);
}
