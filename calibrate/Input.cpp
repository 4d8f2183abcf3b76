//===- Input.cpp - What a calibration input measures ----------------------===//
#include "calibrate/Input.h"
#include "calibrate/Lines.h"
#include "diag/Diagnostic.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

namespace shardc::calibrate {
namespace {

/// Phrases of training logs that give a whole step's (iteration's) time.
/// Matched case-insensitively anywhere in a line.
constexpr llvm::StringLiteral StepPhrases[] = {
    "elapsed time per iteration", // Megatron-LM
    "time per iteration",
    "iteration time",
    "step time",
    "time/step",
    "tokens per second",
    "tokens/sec",
    "samples/sec",
    "model flops utilization",
};

/// CSV columns that are a step's time or its throughput.
constexpr llvm::StringLiteral StepColumns[] = {
    "step_time",
    "step_time_s",
    "step_time_ms",
    "iteration_time",
    "iter_time",
    "iter_time_ms",
    "time_per_iteration",
    "tokens_per_sec",
    "tokens_per_second",
    "samples_per_sec",
    "throughput",
    "mfu",
    "hfu",
    "step",
    "iteration",
};

/// A CSV's header: its first line that is not blank or a '#' comment, if
/// it has a comma.
const Line *csvHeader(llvm::ArrayRef<Line> Lines) {
  for (const Line &L : Lines) {
    llvm::StringRef T = L.Text.trim();
    if (T.empty() || T.startswith("#"))
      continue;
    return T.contains(',') ? &L : nullptr;
  }
  return nullptr;
}

/// Reports \p Buffer when a line of it is a step time; true if so.
bool refuseStepTimes(llvm::ArrayRef<Line> Lines, DiagnosticEngine &Diags) {
  for (const Line &L : Lines) {
    std::string Lower = L.Text.lower();
    for (llvm::StringRef P : StepPhrases) {
      size_t At = llvm::StringRef(Lower).find(P);
      if (At == llvm::StringRef::npos)
        continue;
      llvm::StringRef Found = L.Text.substr(At, P.size());
      Diags.report(llvm::SMRange(llvm::SMLoc::getFromPointer(Found.data()),
                                 llvm::SMLoc::getFromPointer(Found.data() +
                                                             Found.size())),
                   diag::CalibStepTimes, "'" + Found.str() + "'");
      return true;
    }
  }
  const Line *Header = csvHeader(Lines);
  if (!Header)
    return false;
  for (const Field &F : splitCsv(Header->Text))
    for (llvm::StringRef C : StepColumns)
      if (F.Text.equals_insensitive(C)) {
        Diags.report(F.Loc(), diag::CalibStepTimes,
                     "column '" + F.Text.str() + "'");
        return true;
      }
  return false;
}

/// True for a line nccl-tests prints: its run header or its table header.
bool isNcclLine(llvm::StringRef Text) {
  llvm::StringRef T = Text.ltrim();
  if (!T.consume_front("#"))
    return false;
  T = T.ltrim();
  if (T.startswith("nThread") || T.startswith("Collective test starting"))
    return true;
  auto Fields = splitFields(T);
  auto Has = [&Fields](llvm::StringRef Name) {
    return llvm::any_of(Fields, [&](const Field &F) { return F.Text == Name; });
  };
  return Has("size") && Has("time") && Has("algbw") && Has("busbw");
}

} // namespace

llvm::StringRef acceptedFormats() {
  return "nccl-tests output as printed (all_reduce_perf, all_gather_perf, "
         "reduce_scatter_perf, alltoall_perf) and the sweep CSVs of "
         "scripts/measure_kernels.py: GEMMs (m,n,k,batch,dtype,time_s), "
         "elementwise kernels (kernel,elements,bytes,time_s) and attention "
         "(seq,head_dim,causal,backend,pass,time_s,flops_executed)";
}

std::optional<InputKind> classifyInput(unsigned Buffer,
                                       DiagnosticEngine &Diags) {
  llvm::StringRef Text = Diags.sourceMgr().getMemoryBuffer(Buffer)->getBuffer();
  std::vector<Line> Lines = splitLines(Text);
  if (refuseStepTimes(Lines, Diags))
    return std::nullopt;
  if (llvm::any_of(Lines, [](const Line &L) { return isNcclLine(L.Text); }))
    return InputKind::NcclTests;
  if (const Line *H = csvHeader(Lines)) {
    auto Header = splitCsv(H->Text);
    auto Has = [&Header](llvm::StringRef Name) {
      return llvm::any_of(Header,
                          [&](const Field &F) { return F.Text == Name; });
    };
    if (Has("m") && Has("n") && Has("k") && Has("time_s"))
      return InputKind::GemmSweep;
    if (Has("kernel") && Has("elements") && Has("bytes") && Has("time_s"))
      return InputKind::ElementwiseSweep;
    if (Has("seq") && Has("head_dim") && Has("causal") && Has("backend") &&
        Has("pass") && Has("time_s") && Has("flops_executed"))
      return InputKind::AttentionSweep;
  }
  Diags.report(llvm::SMLoc::getFromPointer(Text.data()),
               diag::CalibUnknownFormat, acceptedFormats().str());
  return std::nullopt;
}

} // namespace shardc::calibrate
