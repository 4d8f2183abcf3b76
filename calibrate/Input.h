//===- Input.h - What a calibration input measures --------------*- C++ -*-===//
//
// `shardc calibrate` reads component benchmark outputs, and only those. This
// says which kind a buffer is, from its content: nccl-tests output as printed,
// or one of the sweep CSVs scripts/measure_kernels.py writes. A buffer that
// is a training step's time (a Megatron-LM iteration log, a CSV of step times
// or MFU) is refused with the reason: constants fitted to the step times they
// are to predict would predict them by construction. Anything else is an
// error that lists what is read.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_CALIBRATE_INPUT_H
#define SHARDC_CALIBRATE_INPUT_H

#include "llvm/ADT/StringRef.h"
#include <optional>

namespace shardc {
class DiagnosticEngine;
} // namespace shardc

namespace shardc::calibrate {

enum class InputKind { NcclTests, GemmSweep, ElementwiseSweep, AttentionSweep };

/// The formats calibrate reads, for messages.
llvm::StringRef acceptedFormats();

/// The kind of buffer \p Buffer of \p Diags's SourceMgr; nothing after
/// reporting why it is not one calibrate reads.
std::optional<InputKind> classifyInput(unsigned Buffer,
                                       DiagnosticEngine &Diags);

} // namespace shardc::calibrate

#endif // SHARDC_CALIBRATE_INPUT_H
