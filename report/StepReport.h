//===- StepReport.h - The text table's training-step parts ------*- C++ -*-===//
//
// What printTextReport (TextReport.cpp) prints for a training step only,
// defined in StepReport.cpp, and the chip's label that both files print.
// Internal to report/.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_REPORT_STEPREPORT_H
#define SHARDC_REPORT_STEPREPORT_H

#include "passes/Pipeline.h"
#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace shardc {

/// Whether \p Chip's figures are its datasheet peaks or measured, and which
/// (the MFU is as honest as the times it divides).
std::string peaksLabel(const ChipSpec &Chip);

/// docs/cost-model.md §6.6: each statement's collectives that run under a
/// GEMM, under the op table whose name column is \p NameWidth wide.
void overlapLines(const MeshCompile &C, size_t NameWidth,
                  llvm::raw_ostream &OS);

/// A training step's summary (COST-MODEL.md §6.5).
void stepLines(const MeshCompile &C, const StepSummary &S,
               llvm::raw_ostream &OS);

/// COST-MODEL.md §7: bytes per chip, and the headroom left.
void memoryLines(const MeshCompile &C, const MemorySummary &Mem,
                 llvm::raw_ostream &OS);

} // namespace shardc

#endif // SHARDC_REPORT_STEPREPORT_H
