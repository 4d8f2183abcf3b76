//===- CompileInProcess.h - The whole compile on a string -------*- C++ -*-===//
//
// What the driver does for one buffer, without files, flags or a process:
// load (imports from the stdlib folder only, when the caller keeps import
// paths inside it), check, run the pipeline with the verifier after every
// pass, and render both reports. Shared by the fuzz targets (fuzz/) and the
// property tests (tests/unit/PropertyTest.cpp), which both need to tell a
// user error (diagnostics) from a shardc bug (a broken invariant).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_TESTS_SUPPORT_COMPILEINPROCESS_H
#define SHARDC_TESTS_SUPPORT_COMPILEINPROCESS_H

#include "diag/Diagnostic.h"
#include "frontend/Compiler.h"
#include "passes/Pipeline.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SourceMgr.h"
#include <memory>
#include <string>
#include <vector>

namespace shardc::testgen {

struct InProcessOptions {
  /// Imports resolve here first; the buffer is named as if it lived here,
  /// so a relative import never leaves this folder.
  std::string StdlibDir;
  /// Render the text and JSON reports (into Text and Json); a JSON report
  /// that does not parse, or holds a number that is not finite, is an
  /// internal error.
  bool Reports = true;
  /// With Reports: render the trace too (into Trace), held to the same,
  /// aggregated past TraceEvents events (a real step's million events take
  /// seconds under the fuzzers' sanitizers; a small limit also runs the
  /// aggregated layout).
  bool Trace = false;
  int64_t TraceEvents = 2000;
  unsigned ErrorLimit = 20;
};

struct InProcessResult {
  llvm::SourceMgr SM;
  Program P;
  /// The checked module on its mesh: the lowered module and the tables.
  std::unique_ptr<MeshCompile> Compile;
  /// Every diagnostic, rendered `line:col: message`; none are printed.
  std::vector<std::string> Diagnostics;
  /// How many of them loading and checking reported: the rest are the
  /// per-mesh pipeline's (what a re-cost on the same mesh reports).
  size_t CheckDiagnostics = 0;
  unsigned Errors = 0;
  /// A broken invariant: the verifier's message, or a cost that is not a
  /// finite non-negative number. Empty when shardc behaved.
  std::string InternalError;
  bool Compiled = false; ///< no errors and a costed module
  std::string Text, Json, Trace;
};

/// Compiles \p Source as the driver would compile a file of that content.
std::unique_ptr<InProcessResult> compileInProcess(llvm::StringRef Source,
                                                  const InProcessOptions &O);

/// \p C's text and JSON reports, as strings (tests compare two compiles').
std::string textReport(const MeshCompile &C);
std::string jsonReport(const MeshCompile &C);

/// Describes the first cost of \p C (an op, a statement, a collective's
/// level or a total) that is NaN, infinite or negative; empty when none is.
std::string checkCostsSane(const MeshCompile &C);

/// Why \p Json (a report shardc printed, named \p What) is not valid JSON
/// with only finite numbers (checkJsonText); empty when it is.
std::string checkJsonSane(llvm::StringRef Json, llvm::StringRef What);

/// True when every string literal in \p Source (the only place an import
/// path can be written) stays inside the folder it is resolved in: no `/`,
/// no `\`, no `..`. The fuzz targets skip other inputs so they never read
/// files outside the stdlib folder.
bool importsStayInFolder(llvm::StringRef Source);

} // namespace shardc::testgen

#endif // SHARDC_TESTS_SUPPORT_COMPILEINPROCESS_H
