//===- NcclTests.h - nccl-tests output, as printed --------------*- C++ -*-===//
//
// Reads what all_reduce_perf, all_gather_perf, reduce_scatter_perf and
// alltoall_perf print: the '#' header (the run's parameters, one
// '#  Rank  N ... on HOST device ...' line per rank), the column header
// ('size count type redop root time algbw busbw #wrong' out of place, then
// in place) and one row per size. Only the out-of-place time is kept: it is
// what a framework's collective into a fresh buffer costs. Columns are found
// by name, so the older layouts (no 'root' column, 'error' for '#wrong')
// read too.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_CALIBRATE_NCCLTESTS_H
#define SHARDC_CALIBRATE_NCCLTESTS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"
#include <optional>
#include <string>
#include <vector>

namespace shardc {
class DiagnosticEngine;
} // namespace shardc

namespace shardc::calibrate {

enum class NcclCollective { AllReduce, AllGather, ReduceScatter, AllToAll };

/// nccl-tests' name of \p C's test binary (all_reduce_perf, ...).
llvm::StringRef ncclTestName(NcclCollective C);

/// One size of a run: nccl-tests' 'size' (bytes: the whole buffer of an
/// AllReduce, the gathered result of an AllGather, the scattered operand of
/// a ReduceScatter, one rank's buffer of an AllToAll) and its out-of-place
/// time.
struct NcclRow {
  double Bytes = 0;
  double Seconds = 0;
  llvm::SMLoc Loc; ///< the row's size field
};

struct NcclRun {
  std::string Source; ///< the buffer's name
  NcclCollective Collective = NcclCollective::AllReduce;
  unsigned Ranks = 0;
  /// Sizes above 0, increasing, whose values nccl-tests found right.
  std::vector<NcclRow> Rows;
  llvm::SMLoc TableLoc; ///< the column header
};

/// Parses buffer \p Buffer. \p Gpus is --gpus (0: not given), needed only
/// when the output lists no ranks. Returns nothing after reporting errors.
std::optional<NcclRun> parseNcclTests(unsigned Buffer, DiagnosticEngine &Diags,
                                      unsigned Gpus);

} // namespace shardc::calibrate

#endif // SHARDC_CALIBRATE_NCCLTESTS_H
