//===- TextReport.cpp - The table people read -----------------------------===//
//
// One row per source statement (inputs have no cost and are left out), then
// the totals and one sentence naming the dominant bottleneck.
//
//===----------------------------------------------------------------------===//
#include "report/Describe.h"
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

/// One statement's row, then its further collectives on lines of their
/// own, under the first, so the columns stay aligned.
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
  if (!C.Tables.Fusion || C.Tables.Fusion->Kernels.empty())
    return;
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

/// 65536 as `65,536`; rounded to a whole number.
std::string wholeNumber(double V) {
  if (!(V < 1e18))
    return formatSig4(V);
  std::string Digits = std::to_string(int64_t(V + 0.5)), Out;
  for (size_t I = 0; I < Digits.size(); ++I) {
    if (I && (Digits.size() - I) % 3 == 0)
      Out += ',';
    Out += Digits[I];
  }
  return Out;
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

/// docs/cost-model.md §6.6: each statement's collectives that run under a
/// GEMM, what they run under and what they add to the critical path.
void overlapLines(const MeshCompile &C, size_t NameWidth,
                  llvm::raw_ostream &OS) {
  const Module &M = *C.lowered();
  bool Titled = false;
  for (size_t I = 0; I < C.Tables.Overlaps.size(); ++I) {
    const std::optional<OverlapCost> &O = C.Tables.Overlaps[I];
    if (!O)
      continue;
    if (!Titled)
      OS << "-- overlapped collectives\n";
    Titled = true;
    std::vector<std::string> Under;
    for (unsigned P : O->Partners)
      Under.push_back(M.statement(P).Name);
    OS << fmt::format(
        "{:<{}} {:>5} {} under {} ({}), SM share {:.3g}: adds "
        "{}\n",
        M.statement(unsigned(I)).Name, NameWidth,
        M.statement(unsigned(I)).Location.Line, formatTime(O->TComms),
        llvm::join(Under, ", "), formatTime(O->Under),
        O->TComms > 0 ? O->Contention / O->TComms : 0.0, formatTime(O->Charge));
  }
}

/// Whether \p Chip's figures are its datasheet peaks or measured, and which
/// (the MFU is as honest as the times it divides).
std::string peaksLabel(const ChipSpec &Chip) {
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
  // GEMMs priced by shape: the tile classes stand for a fitted sweep.
  if (!Chip.Tiles.empty())
    Measured.push_back(fmt::format("{} GEMM tile class{}", Chip.Tiles.size(),
                                   Chip.Tiles.size() == 1 ? "" : "es"));
  return "measured chip: " + llvm::join(Measured, ", ");
}

/// `fixed_costs = priced`: their total and each one the step has.
void fixedCostsLine(const StepSummary &S, llvm::raw_ostream &OS) {
  static constexpr const char *Names[StepSummary::NumFixedParts] = {
      "gradient norm with its AllReduce", "inf check", "master copy",
      "zeroing the gradients"};
  std::vector<std::string> Parts;
  for (unsigned F = 0; F < StepSummary::NumFixedParts; ++F)
    if (S.TFixedPart[F] > 0)
      Parts.push_back(
          fmt::format("{} {}", Names[F], formatTime(S.TFixedPart[F])));
  OS << fmt::format("  fixed costs          {}  ({})\n", formatTime(S.TFixed),
                    Parts.empty() ? std::string("none in this step")
                                  : llvm::join(Parts, ", "));
}

/// The MFU and, with causal attention, the full count beside it: MFU
/// counts causal attention at the unmasked half it computes, so it never
/// passes 100%; published MFUs (Korthikanti et al.'s eq. 7, PaLM) count it
/// in full, which can.
void mfuLines(const ChipSpec &Chip, const StepSummary &S,
              llvm::raw_ostream &OS) {
  bool Causal = S.ModelFlopsCausalFull != S.ModelFlops;
  OS << fmt::format("  MFU                  {:.1f}%  ({}; model FLOPs = 3 x "
                    "forward x m = {}, {})\n",
                    100.0 * S.Mfu, peaksLabel(Chip),
                    formatAmount(S.ModelFlops, "FLOP"),
                    Causal ? "causal attention at the unmasked half it "
                             "computes"
                           : "the convention of Korthikanti et al. and PaLM");
  if (Causal)
    OS << fmt::format("  MFU, causal in full  {:.1f}%  (model FLOPs {}, "
                      "the count of Korthikanti et al. and PaLM that "
                      "published MFUs use)\n",
                      100.0 * S.MfuCausalFull,
                      formatAmount(S.ModelFlopsCausalFull, "FLOP"));
}

/// `fp8` (docs/training.md): which GEMMs ran in fp8, in whose recipe, and
/// what their casts cost one microbatch.
void fp8Line(const MeshCompile &C, const StepSummary &S,
             llvm::raw_ostream &OS) {
  Fp8Recipe R = C.config().Train->Fp8;
  if (R == Fp8Recipe::None)
    return;
  const Module &M = *C.lowered();
  unsigned Gemms = 0, Fp8 = 0;
  for (size_t I = 0; I < C.Tables.StatementCosts.size(); ++I) {
    const auto &Cost = C.Tables.StatementCosts[I];
    if (!Cost || !Cost->Gemm.valid() ||
        M.statement(unsigned(I)).Kind != OpKind::Contraction)
      continue;
    ++Gemms;
    Fp8 += Cost->GemmElt == DType::fp8;
  }
  const ChipSpec &Chip = C.mesh().Cluster->Chip;
  OS << fmt::format(
      "  GEMMs                fp8 (Transformer Engine, {} recipe: {}) in {} "
      "of {} contractions, the rest as declared; casts {} a microbatch{}, "
      "{} at the memory-bound kernels' rate\n",
      fp8RecipeName(R).str(),
      R == Fp8Recipe::Hybrid ? "E4M3 activations and weights, E5M2 gradients"
                             : "E4M3 throughout",
      Fp8, Gemms, formatAmount(S.CastBytes, "B"),
      S.Pipeline ? " over all stages" : "",
      formatTime(S.CastBytes / (Chip.HbmBw * Chip.elementwiseEfficiency())));
}

/// A training step's summary (COST-MODEL.md §6.5): where the time goes,
/// throughput, MFU and HFU, and the collective that costs most.
void stepLines(const MeshCompile &C, const StepSummary &S,
               llvm::raw_ostream &OS) {
  const Module &M = *C.lowered();
  int64_t Mb = S.Microbatches;
  const auto &PI = S.Pipeline;
  std::string Pipe = "no pipeline";
  if (PI)
    Pipe = fmt::format(
        "{} stage{} over {}, {}{}", S.Stages, S.Stages == 1 ? "" : "s",
        M.names().Axes[PI->Axis], scheduleName(PI->Schedule).str(),
        PI->Chunks > 1 ? fmt::format(" with {} chunks", PI->Chunks) : "");
  OS << fmt::format("\nstep ({} microbatch{}, {}):\n", Mb, Mb == 1 ? "" : "es",
                    Pipe);
  if (PI) {
    std::string Stages;
    for (size_t I = 0; I < PI->StageFwd.size(); ++I)
      Stages +=
          (I ? " / " : "") + formatTime(PI->StageFwd[I] + PI->StageBwd[I]);
    OS << fmt::format("  stages t_f + t_b     {}\n", Stages);
    std::string Split;
    for (AxisId A : PI->SendGatherAxes.list())
      Split += (Split.empty() ? "" : ",") + C.mesh().Axes[A].Name;
    bool P2p = C.config().Train->P2pOverlap;
    std::string Where =
        P2p ? fmt::format("beside the next slice, which they slow by {} "
                          "forward, {} backward (p2p_overlap)",
                          formatTime(PI->SendFwdContention),
                          formatTime(PI->SendBwdContention))
            : std::string("on the critical path");
    OS << fmt::format("  sends                {} forward, {} backward per "
                      "stage boundary ({}{})\n",
                      formatTime(PI->SendFwd), formatTime(PI->SendBwd), Where,
                      Split.empty() ? ""
                                    : "; scattered over " + Split +
                                          " and gathered on arrival");
  }
  OS << fmt::format("  forward t_f          {}{}\n", formatTime(S.TFwd),
                    PI ? "  (the slowest stage's)" : "");
  OS << fmt::format("  backward t_b         {}{}\n", formatTime(S.TBwd),
                    S.TBwdFirst != S.TBwd
                        ? fmt::format(" ({} in the first microbatch, before "
                                      "the gradient buffers are read)",
                                      formatTime(S.TBwdFirst))
                        : "");
  std::string PipeWhy =
      PI ? fmt::format("the simulated schedule's makespan; bubble {:.1f}% of "
                       "stage {}",
                       100.0 * PI->Bubble, PI->SlowestStage)
      : Mb == 1 ? std::string("t_f + t_b")
                : std::string("m x t_f + the first t_b + (m - 1) x t_b");
  OS << fmt::format("  T_pipe               {}  ({})\n", formatTime(S.TPipe),
                    PipeWhy);
  OS << fmt::format("  gradient sync        {} exposed of {} issued\n",
                    formatTime(S.TSyncExposed), formatTime(S.TSync));
  if (!S.TiedParams.empty()) {
    std::vector<std::string> Names;
    for (unsigned St : S.TiedParams)
      Names.push_back("'" + M.statement(St).Name + "'");
    OS << fmt::format("  tied params sync     {}  (in the exposed sync: {} "
                      "on the first and the last stage exchange {} of "
                      "gradients each way)\n",
                      formatTime(S.TTiedSync), llvm::join(Names, ", "),
                      formatAmount(S.TiedSyncBytes, "B"));
  }
  OS << fmt::format("  optimizer            {}\n", formatTime(S.TOpt));
  bool Fixed = C.config().Train->FixedCosts;
  if (Fixed)
    fixedCostsLine(S, OS);
  if (C.config().Train->ParamGatherOverlapped)
    OS << fmt::format("  param gather         {}  ({} beside the next "
                      "step's forward t_f, SM share {:.3g}: "
                      "param_gather = overlapped)\n",
                      formatTime(S.TParamGather),
                      formatTime(S.TParamGatherIssued),
                      S.TParamGatherIssued > 0
                          ? S.ParamGatherContention / S.TParamGatherIssued
                          : 0.0);
  else
    OS << fmt::format("  param gather         {}\n",
                      formatTime(S.TParamGather));
  OS << fmt::format("  step time            {}  (T_pipe + exposed sync + "
                    "{}optimizer + param gather)\n",
                    formatTime(S.TStep), Fixed ? "fixed costs + " : "");
  OS << fmt::format("  global batch         {}  ({} x {})\n",
                    wholeNumber(S.GlobalBatch), Mb,
                    wholeNumber(S.GlobalBatch / double(Mb)));
  OS << fmt::format("  tokens               {} per step, {} per second\n",
                    wholeNumber(S.Tokens), wholeNumber(S.TokensPerSecond));
  fp8Line(C, S, OS);
  mfuLines(C.mesh().Cluster->Chip, S, OS);
  OS << fmt::format("  HFU                  {:.1f}%  (every matmul FLOP "
                    "executed, recompute included)\n",
                    100.0 * S.Hfu);
  if (S.CostliestComms) {
    const Statement &St = M.statement(*S.CostliestComms);
    std::string What =
        St.From ? describeProvenance(*St.From, M.statement(St.From->Stmt))
                : opNoun(St.Kind).str();
    std::string Why;
    bool Overlap = C.config().Overlap;
    if (St.Ph == Phase::Sync && C.config().Train->SyncAfterBackward)
      Why = "after the backward, exposed (sync = after_backward)";
    else if (St.Ph == Phase::Sync)
      Why = S.TSyncExposed > 0
                ? fmt::format("asynchronous; {} of all syncs runs past the "
                              "last backward",
                              formatTime(S.TSyncExposed))
                : "asynchronous, hidden under the backward";
    else if (St.Ph == Phase::Optimizer)
      Why = "after the optimizer, exposed";
    else if (St.Kind == OpKind::Reshard)
      // A reshard is only its collectives: there is no compute of its own
      // for overlap to hide them behind.
      Why = "on the compute stream's critical path, fully exposed (a "
            "reshard has no compute of its own to hide it)";
    else if (Overlap)
      Why = "on the compute stream's critical path (under overlap, hidden "
            "only behind its own statement's compute)";
    else
      Why = "on the compute stream's critical path, after its statement's "
            "compute (overlap is off)";
    OS << fmt::format("  costliest collective '{}' (line {}, {}): {} per "
                      "step; {}\n",
                      St.Name, St.Location.Line, What,
                      formatTime(S.CostliestCommsTime), Why);
  }
}

/// COST-MODEL.md §7: bytes per chip, and the headroom left.
void memoryLines(const MeshCompile &C, const MemorySummary &Mem,
                 llvm::raw_ostream &OS) {
  const ChipSpec &Chip = C.mesh().Cluster->Chip;
  OS << fmt::format("\nmemory per chip ({}, {} HBM):\n", Chip.Name,
                    formatAmount(Mem.Capacity, "B"));
  for (unsigned T = 0; T < NumMemoryTerms; ++T) {
    std::string Extra;
    if (MemoryTerm(T) == MemoryTerm::Activations)
      Extra = fmt::format("  ({:.4g} microbatch{} in flight{})", Mem.InFlight,
                          Mem.InFlight == 1 ? "" : "es",
                          Mem.Stages == 1  ? ""
                          : Mem.Stage == 0 ? ", on the first stage"
                          : Mem.Stage + 1 == Mem.Stages
                              ? ", on the last stage"
                              : fmt::format(", on stage {}", Mem.Stage));
    if (MemoryTerm(T) == MemoryTerm::Transient && Mem.TransientStmt) {
      const Statement &St = C.lowered()->statement(*Mem.TransientStmt);
      bool Gathered = Mem.TransientWorkspace < Mem.Bytes[T];
      Extra = fmt::format("  ({} '{}', line {})",
                          Mem.TransientWorkspace == 0 ? "gathered by"
                          : Gathered ? "gathered by and workspace of"
                                     : "workspace of",
                          St.Name, St.Location.Line);
    }
    OS << fmt::format("  {:<12} {:>11}{}\n",
                      memoryTermName(MemoryTerm(T)).str(),
                      formatAmount(Mem.Bytes[T], "B"), Extra);
  }
  OS << fmt::format("  {:<12} {:>11}  ", "total", formatAmount(Mem.Total, "B"));
  if (Mem.Capacity <= 0)
    OS << "(the chip gives no hbm)\n";
  else if (Mem.Total <= Mem.Capacity)
    OS << fmt::format("headroom {} ({:.1f}%)\n",
                      formatAmount(Mem.Capacity - Mem.Total, "B"),
                      100.0 * (Mem.Capacity - Mem.Total) / Mem.Capacity);
  else
    OS << fmt::format("OVER by {}\n",
                      formatAmount(Mem.Total - Mem.Capacity, "B"));
  // With a pipeline the table is the heavier end's (COST-MODEL.md §7 names
  // the first stage): say so, with the other end's total. With uneven
  // stages a middle stage can be the heaviest.
  bool Middle = Mem.Stage != 0 && Mem.Stage + 1 != Mem.Stages;
  if (Middle)
    OS << fmt::format("  (stage {} of 0-{} is the heaviest: the first stage, "
                      "0, needs {})\n",
                      Mem.Stage, Mem.Stages - 1,
                      formatAmount(Mem.OtherEndTotal, "B"));
  else if (Mem.Stages > 1)
    OS << fmt::format("  (the {} stage, {}, is the heavier end: the {} "
                      "stage, {}, needs {})\n",
                      Mem.Stage == 0 ? "first" : "last", Mem.Stage,
                      Mem.Stage == 0 ? "last" : "first",
                      Mem.Stage == 0 ? Mem.Stages - 1 : 0,
                      formatAmount(Mem.OtherEndTotal, "B"));
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
