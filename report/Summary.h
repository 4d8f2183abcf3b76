//===- Summary.h - One line per compiled program ----------------*- C++ -*-===//
//
// `--summary`: after the reports, a table with a line per input (per chunk
// under --split-input-file): its mesh, step time, MFU, memory per chip and
// whether it fits, so layouts written by hand compare at a glance. The
// numbers are the report's own, read off the same tables.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_REPORT_SUMMARY_H
#define SHARDC_REPORT_SUMMARY_H

#include "passes/Pipeline.h"
#include "llvm/ADT/ArrayRef.h"
#include <optional>
#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace shardc {

/// What one program's line says; a program that did not compile as far as
/// its report (or declares no mesh) has only its Where and Status.
struct SummaryRow {
  std::string Where;  ///< `file:line`, the chunk's first line
  std::string Status; ///< "" when costed; else "errors", "no mesh"
  std::string Mesh;   ///< `[D: 16, T: 8]`
  int64_t Chips = 0;
  double StepTime = 0; ///< the step's time, or the program's without train
  double Mfu = 0;
  /// Bytes per chip and the chip's HBM: none without a memory table (a
  /// forward program).
  std::optional<double> Memory, Hbm;
  bool Failed = false; ///< compiled with errors (a step over HBM)
};

/// \p C's line; \p Failed when its compile reported errors.
SummaryRow summaryRow(const MeshCompile &C, bool Failed);

/// The table, a heading and a line per row.
void printSummary(llvm::ArrayRef<SummaryRow> Rows, llvm::raw_ostream &OS);

} // namespace shardc

#endif
