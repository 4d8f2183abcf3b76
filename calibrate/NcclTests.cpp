//===- NcclTests.cpp - nccl-tests output, as printed ----------------------===//
#include "calibrate/NcclTests.h"
#include "calibrate/Lines.h"
#include "diag/Diagnostic.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

namespace shardc::calibrate {
namespace {

constexpr NcclCollective AllCollectives[] = {
    NcclCollective::AllReduce, NcclCollective::AllGather,
    NcclCollective::ReduceScatter, NcclCollective::AllToAll};

/// The column header's layout: where the out-of-place time and #wrong are.
struct Columns {
  unsigned Count = 0;
  unsigned Time = 0;
  std::optional<unsigned> Wrong;
  llvm::SMLoc Loc;
};

/// The '#'-stripped fields of \p L when it is a '#' line.
std::optional<llvm::SmallVector<Field, 16>> commentFields(const Line &L) {
  llvm::StringRef T = L.Text.ltrim();
  if (!T.consume_front("#"))
    return std::nullopt;
  return splitFields(T);
}

std::optional<Columns> columnHeader(llvm::ArrayRef<Field> F, llvm::SMLoc Loc) {
  auto Find = [&F](llvm::StringRef Name) -> std::optional<unsigned> {
    for (unsigned I = 0; I < F.size(); ++I)
      if (F[I].Text == Name)
        return I;
    return std::nullopt;
  };
  std::optional<unsigned> Size = Find("size"), Time = Find("time");
  if (!Size || *Size != 0 || !Time || !Find("algbw") || !Find("busbw"))
    return std::nullopt;
  Columns C{unsigned(F.size()), *Time, Find("#wrong"), Loc};
  if (!C.Wrong)
    C.Wrong = Find("error");
  return C;
}

/// What the rank lines say: how many, and each host's first line.
struct Ranks {
  unsigned Count = 0;
  llvm::SmallVector<std::pair<std::string, llvm::SMLoc>, 4> Hosts;
};

void readRankLine(llvm::ArrayRef<Field> F, llvm::SMLoc Loc, Ranks &R) {
  ++R.Count;
  for (unsigned I = 0; I + 1 < F.size(); ++I)
    if (F[I].Text == "on") {
      std::string Host = F[I + 1].Text.str();
      if (!llvm::any_of(R.Hosts, [&](auto &H) { return H.first == Host; }))
        R.Hosts.push_back({Host, Loc});
      return;
    }
}

/// The collective a run measures: its test's name in the output (the
/// 'Collective test starting' line, an echoed command), else in the file's.
std::optional<NcclCollective> findCollective(llvm::ArrayRef<Line> Lines,
                                             llvm::StringRef Name) {
  for (const Line &L : Lines)
    for (NcclCollective C : AllCollectives)
      if (L.Text.contains(ncclTestName(C)))
        return C;
  llvm::StringRef File = llvm::sys::path::filename(Name);
  for (NcclCollective C : AllCollectives)
    if (File.contains(ncclTestName(C).drop_back(5))) // without "_perf"
      return C;
  return std::nullopt;
}

/// Reads one table row into \p Run; false after an error.
bool readRow(llvm::ArrayRef<Field> F, const Line &L, const Columns &C,
             NcclRun &Run, DiagnosticEngine &Diags) {
  if (F.size() <= C.Time) {
    Diags.report(L.Loc(), diag::CalibShortRow, unsigned(F.size()), C.Count);
    return false;
  }
  std::optional<uint64_t> Size = parseCount(F[0].Text);
  if (!Size) {
    Diags.report(F[0].Loc(), diag::CalibBadNumber, "a size in bytes", "size",
                 F[0].Text.str());
    return false;
  }
  std::optional<double> Us = parseNumber(F[C.Time].Text);
  if (!Us || *Us <= 0) {
    Diags.report(F[C.Time].Loc(), diag::CalibBadNumber,
                 "a positive time in microseconds", "time",
                 F[C.Time].Text.str());
    return false;
  }
  if (*Size == 0) // '-b 0': no bytes, nothing to fit
    return true;
  if (!Run.Rows.empty() && double(*Size) <= Run.Rows.back().Bytes) {
    Diags.report(F[0].Loc(), diag::CalibSizesNotIncreasing,
                 std::to_string(*Size),
                 llvm::utostr(uint64_t(Run.Rows.back().Bytes)));
    return false;
  }
  // nccl-tests prints N/A without validation (-c 0): nothing to check.
  if (C.Wrong && *C.Wrong < F.size())
    if (std::optional<uint64_t> Wrong = parseCount(F[*C.Wrong].Text);
        Wrong && *Wrong > 0) {
      Diags.report(F[*C.Wrong].Loc(), diag::CalibWrongValues,
                   F[*C.Wrong].Text.str());
      return true;
    }
  Run.Rows.push_back({double(*Size), *Us * 1e-6, F[0].Loc()});
  return true;
}

/// The rank count from the rank lines and --gpus; nothing after an error.
std::optional<unsigned> rankCount(const Ranks &R, unsigned Gpus, llvm::SMLoc At,
                                  DiagnosticEngine &Diags) {
  if (R.Hosts.size() > 1) {
    Diags.report(R.Hosts[1].second, diag::CalibSpansHosts,
                 unsigned(R.Hosts.size()), R.Hosts[0].first, R.Hosts[1].first);
    return std::nullopt;
  }
  if (R.Count == 0 && Gpus == 0) {
    Diags.report(At, diag::CalibNoGpuCount);
    return std::nullopt;
  }
  if (R.Count && Gpus && R.Count != Gpus) {
    Diags.report(At, diag::CalibGpuCountMismatch, Gpus, R.Count);
    return std::nullopt;
  }
  return R.Count ? R.Count : Gpus;
}

} // namespace

llvm::StringRef ncclTestName(NcclCollective C) {
  switch (C) {
  case NcclCollective::AllReduce:
    return "all_reduce_perf";
  case NcclCollective::AllGather:
    return "all_gather_perf";
  case NcclCollective::ReduceScatter:
    return "reduce_scatter_perf";
  case NcclCollective::AllToAll:
    return "alltoall_perf";
  }
  llvm_unreachable("unknown collective");
}

std::optional<NcclRun> parseNcclTests(unsigned Buffer, DiagnosticEngine &Diags,
                                      unsigned Gpus) {
  const llvm::MemoryBuffer *Buf = Diags.sourceMgr().getMemoryBuffer(Buffer);
  std::vector<Line> Lines = splitLines(Buf->getBuffer());
  NcclRun Run;
  Run.Source = Buf->getBufferIdentifier().str();
  Ranks R;
  std::optional<Columns> Cols;
  bool Ok = true;
  for (const Line &L : Lines) {
    if (auto F = commentFields(L)) {
      if (!F->empty() && F->front().Text == "Rank")
        readRankLine(*F, L.Loc(), R);
      else if (!Cols)
        Cols = columnHeader(*F, L.Loc());
      continue;
    }
    auto F = splitFields(L.Text);
    // Rows start with their size; other lines (NCCL's INFO log, a shell
    // prompt) are not the table's.
    if (!Cols || F.empty() || !llvm::isDigit(F.front().Text.front()))
      continue;
    if (!(Ok = readRow(F, L, *Cols, Run, Diags)))
      break;
  }
  if (!Ok)
    return std::nullopt;
  llvm::SMLoc Start = llvm::SMLoc::getFromPointer(Buf->getBufferStart());
  if (!Cols) {
    Diags.report(Start, diag::CalibNoTable);
    return std::nullopt;
  }
  Run.TableLoc = Cols->Loc;
  std::optional<NcclCollective> C = findCollective(Lines, Run.Source);
  if (!C) {
    std::vector<std::string> Names;
    for (NcclCollective K : AllCollectives)
      Names.push_back("'" + ncclTestName(K).str() + "'");
    Diags.report(Start, diag::CalibUnknownCollective, llvm::join(Names, ", "));
    return std::nullopt;
  }
  Run.Collective = *C;
  std::optional<unsigned> N = rankCount(R, Gpus, Cols->Loc, Diags);
  if (!N)
    return std::nullopt;
  Run.Ranks = *N;
  return Run;
}

} // namespace shardc::calibrate
