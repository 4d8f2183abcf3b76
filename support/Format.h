//===- Format.h - Human units for times and amounts -------------*- C++ -*-===//
//
// Shared by the report, the IR's cost comments and the remarks passes write,
// so a number reads the same everywhere: 4 significant figures, trailing
// zeros kept (`1.300 ms`).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_SUPPORT_FORMAT_H
#define SHARDC_SUPPORT_FORMAT_H

#include "llvm/ADT/StringRef.h"
#include <string>

namespace shardc {

/// 4 significant figures, trailing zeros kept: `295.2`, `50.00`.
std::string formatSig4(double V);
/// `1.213 ms`, `65.24 µs`: the largest unit that keeps the number >= 1.
std::string formatTime(double Seconds);
/// `33.55 MB`, `1.200 TFLOP`: decimal prefixes.
std::string formatAmount(double Value, llvm::StringRef Unit);

} // namespace shardc

#endif
