//===- Driver.h - What the driver's parts share -----------------*- C++ -*-===//
//
// The options the command line resolves to, read once, and the exit codes:
// shardc.cpp parses the flags into a DriverOptions; Emit.cpp compiles one
// buffer with them and prints what --emit and --format ask for.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_TOOLS_DRIVER_H
#define SHARDC_TOOLS_DRIVER_H

#include "frontend/Compiler.h"
#include "frontend/Overrides.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include <memory>
#include <string>
#include <vector>

namespace shardc {
struct SummaryRow;
struct JsonEntry;
class MeshCompile;
class DiagnosticEngine;

enum ExitCode : int {
  ExitSuccess = 0,
  ExitInputErrors = 1,
  ExitUsage = 2,
  ExitInternal = 3,
};

enum class EmitKind { Tokens, AST, IR, Costs, Report, Best };
enum class OutputFormat { Text, JSON, Trace, Svg };

/// The pseudo-pass of --print-ir-after that names the IR as the frontend
/// lowered it: the only place its `reshard` ops can be seen.
constexpr const char *CheckStage = "check";

/// Everything the pipeline needs from the command line, read once.
struct DriverOptions {
  std::vector<std::string> Inputs;
  std::string OutputPath = "-";
  EmitKind Emit = EmitKind::Report;
  OutputFormat Format = OutputFormat::Text;
  bool SplitInputFile = false;
  bool Summary = false; ///< --summary: a line per program after the reports
  bool VerifyDiagnostics = false;
  bool VerifyEach = false;
  bool Colors = false;
  unsigned ErrorLimit = 20;
  std::vector<std::string> PrintIRAfter;
  CompileOptions Compile;
  /// -D and --mesh, applied to every input (each chunk of it).
  Overrides Edits;
  /// A search's row (1-based) that --emit=best prints, and whose report,
  /// IR or trace the other outputs print; and its threads.
  unsigned Row = 1;
  unsigned Jobs = 1;
  /// A search's progress line on stderr (--progress; auto: stderr is a
  /// terminal).
  bool Progress = false;
};

/// Whether the output is the JSON array of reports (docs/json.md).
inline bool jsonReport(const DriverOptions &O) {
  return O.Emit == EmitKind::Report && O.Format == OutputFormat::JSON;
}

/// Starts a `shardc: error: ` line on stderr for problems that are not in the
/// user's source (flags, files, internal errors).
llvm::raw_ostream &driverError();

/// Compiles one buffer with its own SourceMgr and engine, so the chunks of
/// --split-input-file cannot see each other's errors or imports, and prints
/// what --emit asks for to \p OS. \p Chunk is the chunk's index in its file,
/// for the JSON entry. Returns the exit code; input errors are reported.
/// With \p Summary, appends the buffer's line of --summary.
int compileBuffer(std::unique_ptr<llvm::MemoryBuffer> Buffer, unsigned Chunk,
                  const DriverOptions &O, llvm::raw_ostream &OS,
                  std::vector<SummaryRow> *Summary);

/// Prints what --emit and --format ask for of a compiled program (null:
/// no mesh): its IR, its costs or its report (in JSON mode \p Json's entry).
void emitCompiled(const MeshCompile *C, DiagnosticEngine &Diags,
                  const DriverOptions &O, llvm::raw_ostream &OS,
                  JsonEntry *Json);

/// A checked program that is a search (P.Search): runs it and prints its
/// rows (docs/search.md), or with --emit=best the row's file, or row 1's
/// report in the format asked for. Returns the exit code.
int searchAndEmit(unsigned Id, Program &P, DiagnosticEngine &Diags,
                  const DriverOptions &O, llvm::raw_ostream &OS,
                  JsonEntry *Json, SummaryRow *Summary);

/// A checked program with a `serve` block (P.Serve): costs its instances
/// and prints its report (docs/inference.md); the other outputs read the
/// decode step at the serving batch. Returns the exit code.
int serveAndEmit(Program &P, DiagnosticEngine &Diags, const DriverOptions &O,
                 llvm::raw_ostream &OS, JsonEntry *Json, SummaryRow *Summary);

} // namespace shardc

#endif
