//===- Summary.cpp - One line per compiled program ------------------------===//
#include "report/Summary.h"
#include "support/Format.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <fmt/format.h>

using namespace shardc;

SummaryRow shardc::summaryRow(const MeshCompile &C, bool Failed) {
  SummaryRow R;
  const MeshSpec &M = C.mesh();
  std::vector<std::string> Axes;
  for (const MeshAxis &A : M.Axes)
    Axes.push_back(fmt::format("{}: {}", A.Name, A.Size));
  R.Mesh = fmt::format("[{}]", llvm::join(Axes, ", "));
  R.Chips = M.numChips();
  R.StepTime = C.Tables.headlineTime();
  R.Mfu = C.Tables.headlineMfu();
  if (const auto &Mem = C.Tables.Memory) {
    R.Memory = Mem->Total;
    R.Hbm = Mem->Capacity;
  }
  R.Failed = Failed;
  return R;
}

/// `yes`, `no`, or `-` where nothing was counted against the HBM.
static std::string fits(const SummaryRow &R) {
  if (!R.Memory)
    return R.Failed ? "no" : "-";
  return !R.Failed && *R.Memory <= *R.Hbm ? "yes" : "no";
}

void shardc::printSummary(llvm::ArrayRef<SummaryRow> Rows,
                          llvm::raw_ostream &OS) {
  size_t WhereW = 5, MeshW = 4;
  for (const SummaryRow &R : Rows) {
    WhereW = std::max(WhereW, R.Where.size());
    MeshW = std::max(MeshW, R.Mesh.size());
  }
  OS << fmt::format("\nsummary ({} program{}):\n", Rows.size(),
                    Rows.size() == 1 ? "" : "s");
  OS << fmt::format("  {:<{}}  {:<{}}  {:>6}  {:>10}  {:>6}  {:>11}  {}\n",
                    "input", WhereW, "mesh", MeshW, "chips", "step time", "MFU",
                    "memory/chip", "fits");
  for (const SummaryRow &R : Rows) {
    if (!R.Status.empty()) {
      OS << fmt::format("  {:<{}}  {}\n", R.Where, WhereW, R.Status);
      continue;
    }
    OS << fmt::format(
        "  {:<{}}  {:<{}}  {:>6}  {:>10}  {:>5.1f}%  {:>11}  {}\n", R.Where,
        WhereW, R.Mesh, MeshW, R.Chips, formatTime(R.StepTime), 100 * R.Mfu,
        R.Memory ? formatAmount(*R.Memory, "B") : "-", fits(R));
  }
}
