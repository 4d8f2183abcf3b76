//===- StepReport.cpp - A training step in the text table -----------------===//
//
// The parts of the text report only a training step has: the collectives
// that overlap a GEMM (under the op table), the step's summary (the
// pipeline, t_f and t_b, the syncs, the fixed costs, throughput, MFU and
// HFU, the costliest collective) and the memory per chip.
//
//===----------------------------------------------------------------------===//
#include "report/StepReport.h"
#include "report/Describe.h"
#include "report/Report.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"
#include <fmt/format.h>

using namespace shardc;

namespace {

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

/// `fixed_costs = priced`: their total and each one the step has.
void fixedCostsLine(const StepSummary &S, llvm::raw_ostream &OS) {
  static constexpr const char *Names[NumFixedCosts] = {
      "gradient norm with its AllReduce", "inf check", "master copy",
      "zeroing the gradients"};
  std::vector<std::string> Parts;
  for (unsigned F = 0; F < NumFixedCosts; ++F)
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

/// The step's heading and, with a pipeline, each stage's time and the
/// sends at a stage boundary.
void stepHeading(const MeshCompile &C, const StepSummary &S,
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
}

/// The collective that costs the step most, and why it is where it is.
void costliestLine(const MeshCompile &C, const StepSummary &S,
                   llvm::raw_ostream &OS) {
  if (!S.CostliestComms)
    return;
  const Module &M = *C.lowered();
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

} // namespace

/// docs/cost-model.md §6.6: each statement's collectives that run under a
/// GEMM, what they run under and what they add to the critical path.
void shardc::overlapLines(const MeshCompile &C, size_t NameWidth,
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

/// A training step's summary (COST-MODEL.md §6.5): where the time goes,
/// throughput, MFU and HFU, and the collective that costs most.
void shardc::stepLines(const MeshCompile &C, const StepSummary &S,
                       llvm::raw_ostream &OS) {
  const Module &M = *C.lowered();
  int64_t Mb = S.Microbatches;
  const auto &PI = S.Pipeline;
  stepHeading(C, S, OS);
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
  costliestLine(C, S, OS);
}

/// COST-MODEL.md §7: bytes per chip, and the headroom left.
void shardc::memoryLines(const MeshCompile &C, const MemorySummary &Mem,
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
