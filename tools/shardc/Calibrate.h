//===- Calibrate.h - The `shardc calibrate` subcommand ----------*- C++ -*-===//
//
// `shardc calibrate [options] INPUT...`: reads component benchmark outputs
// and prints a derived preset (docs/calibrate.md). The driver's main hands
// it the arguments after the word `calibrate`.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_TOOLS_CALIBRATE_H
#define SHARDC_TOOLS_CALIBRATE_H

#include "llvm/ADT/ArrayRef.h"
#include <string>

namespace shardc {

/// Runs the subcommand on \p Args (without `calibrate`), with the stdlib
/// folder \p StdlibDir. Returns the exit code: 0, 1 for errors in an input,
/// 2 for usage errors.
int runCalibrate(llvm::ArrayRef<const char *> Args,
                 const std::string &StdlibDir);

} // namespace shardc

#endif // SHARDC_TOOLS_CALIBRATE_H
