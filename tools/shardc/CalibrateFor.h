//===- CalibrateFor.h - shardc calibrate --for FILE -------------*- C++ -*-===//
//
// Compiles a program (one compile, as the driver does) and warns, at its
// ops, where the calibration inputs do not cover what it runs: a GEMM with
// no measured GEMM within 2x of each of its M, N and K, a collective whose
// size is outside the sizes the nccl-tests runs of that collective measured
// (docs/calibrate.md).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_TOOLS_CALIBRATEFOR_H
#define SHARDC_TOOLS_CALIBRATEFOR_H

#include "calibrate/GemmSweep.h"
#include "calibrate/NcclTests.h"
#include "llvm/ADT/ArrayRef.h"
#include <string>

namespace shardc {
class DiagnosticEngine;

/// Compiles \p Path (imports searched in \p StdlibDir) into \p Diags's
/// SourceMgr and reports what the inputs miss. Returns an exit code: 0
/// (warnings only), 1 (errors in the program), 2 (unreadable).
int checkCoverage(const std::string &Path, const std::string &StdlibDir,
                  llvm::ArrayRef<calibrate::NcclRun> Runs,
                  llvm::ArrayRef<calibrate::GemmSweep> Gemms,
                  DiagnosticEngine &Diags);

} // namespace shardc

#endif // SHARDC_TOOLS_CALIBRATEFOR_H
