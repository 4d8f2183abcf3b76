//===- Emit.cpp - Compile one buffer and print what --emit asks for ------===//
//
// The driver's compile of one buffer (a file, or a chunk of one under
// --split-input-file): load and check the program, run the passes, then
// print the tokens, the syntax tree, the IR or the report in its format.
//
//===----------------------------------------------------------------------===//
#include "Driver.h"
#include "SplitInput.h"
#include "diag/Diagnostic.h"
#include "diag/DiagnosticVerifier.h"
#include "frontend/AST.h"
#include "frontend/Compiler.h"
#include "frontend/Parser.h"
#include "ir/IR.h"
#include "passes/Pipeline.h"
#include "report/Report.h"
#include "report/Summary.h"
#include "report/Timeline.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include <optional>

using namespace shardc;

namespace {

/// Runs the pass pipeline on a checked module for the mesh its file names.
/// Returns null after reporting an error: a pass found a problem in the
/// input (already reported), or the IR verifier found a broken invariant (a
/// shardc bug, reported here).
std::unique_ptr<MeshCompile> runPasses(const Module &M, DiagnosticEngine &Diags,
                                       const DriverOptions &O,
                                       llvm::raw_ostream &OS) {
  if (O.VerifyEach) {
    std::string Broken = verifyModule(M);
    if (!Broken.empty()) {
      driverError() << "internal error: invalid IR after checking: " << Broken
                    << "\n";
      return nullptr;
    }
  }
  // The JSON report's output is one JSON document: IR dumps go to stderr.
  llvm::raw_ostream &Dumps = jsonReport(O) ? llvm::errs() : OS;
  if (llvm::is_contained(O.PrintIRAfter, CheckStage)) {
    Dumps << "// IR after " << CheckStage << "\n";
    printModule(M, Dumps);
  }
  PipelineOptions P;
  P.VerifyEach = O.VerifyEach;
  P.PrintAfter = O.PrintIRAfter;
  P.PrintIR = [](const MeshCompile &C, llvm::raw_ostream &OS) {
    printAnnotated(C, OS, /*WithCosts=*/true);
  };
  auto C = std::make_unique<MeshCompile>(M, M.mesh());
  if (llvm::Error E = runPipeline(*C, Diags, P, Dumps)) {
    std::string Msg = llvm::toString(std::move(E));
    if (!Diags.hasErrors())
      driverError() << "internal error: " << Msg << "\n";
    return nullptr;
  }
  return C;
}

/// Prints the report --format asks for: \p C's, or what says there is none
/// (no mesh declared); in JSON mode, \p Json's entry.
void emitReport(const MeshCompile *C, DiagnosticEngine &Diags,
                const DriverOptions &O, llvm::raw_ostream &OS,
                JsonEntry *Json) {
  if (Json) {
    // A step over the chip's HBM is an error whose report is still
    // printed (COST-MODEL.md §7): status "error" with the report.
    Json->Compile = C;
    Json->Failed = Diags.hasErrors();
    printJsonEntry(*Json, OS);
    Json->Compile = nullptr;
  } else if (O.Format == OutputFormat::Trace) {
    // A trace is always a trace: no mesh, an empty timeline (and a note,
    // as text and JSON succeed on it too).
    if (!C) {
      llvm::WithColor::note(llvm::errs(), "shardc")
          << "no mesh declared: nothing to trace (the trace is empty)\n";
      printEmptyTraceReport(OS);
      return;
    }
    TraceSummary Drawn = printTraceReport(*C, OS);
    if (Drawn.Aggregated)
      llvm::WithColor::warning(llvm::errs(), "shardc")
          << "the trace would have " << Drawn.FullEvents
          << " events, more than its limit of " << TraceEventLimit
          << ": repeats and microbatches are aggregated (docs/trace.md)\n";
  } else if (O.Format == OutputFormat::Svg) {
    if (C) {
      printRooflineSvg(*C, OS);
      return;
    }
    llvm::WithColor::note(llvm::errs(), "shardc")
        << "no mesh declared: nothing to plot (the picture says so)\n";
    printEmptyRooflineSvg(OS);
  } else if (C) {
    printTextReport(*C, OS);
  } else {
    OS << "no mesh declared: nothing to cost (declare a mesh and "
          "tensors)\n";
  }
}

/// Compiles buffer \p Id as far as --emit needs and prints the result to
/// \p OS; in JSON mode, prints \p Json's entry when the compile got as far
/// as a report. Returns the exit code; input errors are already reported.
int compileAndEmit(unsigned Id, DiagnosticEngine &Diags, const DriverOptions &O,
                   llvm::raw_ostream &OS, JsonEntry *Json, SummaryRow *Row) {
  llvm::SourceMgr &SM = Diags.sourceMgr();
  // Tokens come straight from the lexer, so the lexer can be inspected on a
  // file whose imports or syntax are broken.
  if (O.Emit == EmitKind::Tokens)
    return dumpTokens(Id, Diags, OS, O.Compile.Limits) ? ExitSuccess
                                                       : ExitInputErrors;
  Program P;
  if (!loadProgram(Id, Diags, O.Compile, P))
    return ExitInputErrors;
  if (O.Emit == EmitKind::AST) {
    printAST(*P.Files.back(), SM, OS);
    return ExitSuccess;
  }
  // -D and --mesh edit the syntax trees as if the file said so; the tokens
  // and the syntax tree above are the file's as written.
  if (!applyOverrides(O.Edits, Diags, P) || !checkProgram(Diags, P))
    return ExitInputErrors;
  if (P.Search && P.IR)
    return searchAndEmit(Id, P, Diags, O, OS, Json, Row);
  if (P.Serve && P.IR && O.Emit != EmitKind::Best)
    return serveAndEmit(P, Diags, O, OS, Json, Row);
  if (O.Emit == EmitKind::Best) {
    driverError() << "--emit=best prints a search's best layout; this file "
                     "searches nothing (no '?' size, searched knob or "
                     "'search' block)\n";
    return ExitUsage;
  }
  // The checked module owns all it refers to: the ASTs (a third of a large
  // program's memory) can go before the passes run.
  P.Files.clear();
  std::unique_ptr<MeshCompile> C;
  if (P.IR && !(C = runPasses(*P.IR, Diags, O, OS)))
    return Diags.hasErrors() ? ExitInputErrors : ExitInternal;
  if (Row && C) {
    std::string Where = std::move(Row->Where);
    *Row = summaryRow(*C, Diags.hasErrors());
    Row->Where = std::move(Where);
  } else if (Row)
    Row->Status = "no mesh: nothing to cost";
  emitCompiled(C.get(), Diags, O, OS, Json);
  return ExitSuccess;
}

/// Records each diagnostic for the JSON entry, with its place.
void recordDiagnostics(DiagnosticEngine &Diags, JsonEntry &Json) {
  llvm::SourceMgr &SM = Diags.sourceMgr();
  Diags.setObserver([&SM, &Json](const Diagnostic &D) {
    static const char *Names[] = {"error", "warning", "note", "remark"};
    JsonDiagnostic J{Names[unsigned(D.Sev)], D.Message, "", 0, 0};
    if (unsigned Buf = D.Range.Start.isValid()
                           ? SM.FindBufferContainingLoc(D.Range.Start)
                           : 0) {
      J.File = SM.getMemoryBuffer(Buf)->getBufferIdentifier().str();
      std::tie(J.Line, J.Column) = SM.getLineAndColumn(D.Range.Start, Buf);
    }
    Json.Diagnostics.push_back(std::move(J));
  });
}

} // namespace

void shardc::emitCompiled(const MeshCompile *C, DiagnosticEngine &Diags,
                          const DriverOptions &O, llvm::raw_ostream &OS,
                          JsonEntry *Json) {
  switch (O.Emit) {
  case EmitKind::IR:
  case EmitKind::Costs:
    if (C)
      printAnnotated(*C, OS, O.Emit == EmitKind::Costs);
    break;
  case EmitKind::Report:
    emitReport(C, Diags, O, OS, Json);
    break;
  case EmitKind::Tokens:
  case EmitKind::AST:
  case EmitKind::Best:
    llvm_unreachable("handled before the compile");
  }
}

int shardc::compileBuffer(std::unique_ptr<llvm::MemoryBuffer> Buffer,
                          unsigned Chunk, const DriverOptions &O,
                          llvm::raw_ostream &OS,
                          std::vector<SummaryRow> *Summary) {
  llvm::SourceMgr SM;
  std::string Source = Buffer->getBufferIdentifier().str();
  unsigned Id = SM.AddNewSourceBuffer(std::move(Buffer), llvm::SMLoc());
  DiagnosticEngine Diags(SM);
  Diags.setErrorLimit(O.ErrorLimit);
  Diags.setShowColors(O.Colors);
  std::optional<JsonEntry> Json;
  if (jsonReport(O)) {
    Json.emplace();
    Json->Source = Source;
    Json->Chunk = Chunk;
    for (const std::string &D : O.Edits.Defines)
      Json->Overrides.push_back("-D " + D);
    if (O.Edits.Mesh)
      Json->Overrides.push_back("--mesh " + *O.Edits.Mesh);
    recordDiagnostics(Diags, *Json);
  }
  std::optional<DiagnosticVerifier> Verifier;
  if (O.VerifyDiagnostics) {
    Verifier.emplace(Diags);
    Verifier->addExpectations(Id);
  }
  std::optional<SummaryRow> Row;
  if (Summary) {
    // A chunk keeps its file's line numbers: its first line is the first
    // after the newlines that stand for the lines before it.
    llvm::StringRef Text = SM.getMemoryBuffer(Id)->getBuffer();
    Row.emplace();
    Row->Where = Source;
    if (O.SplitInputFile)
      Row->Where +=
          ":" + std::to_string(Text.size() - Text.ltrim('\n').size() + 1);
    Row->Status = "errors: nothing to cost";
  }
  int Code = compileAndEmit(Id, Diags, O, OS, Json ? &*Json : nullptr,
                            Row ? &*Row : nullptr);
  if (Row)
    Summary->push_back(std::move(*Row));
  if (Code == ExitSuccess && Diags.hasErrors())
    Code = ExitInputErrors;
  // A file of several programs compiled as one fails with redeclarations
  // by the dozen: say what it is (after its errors, where the eye ends).
  if (Code == ExitInputErrors && !O.SplitInputFile && !O.VerifyDiagnostics)
    if (std::optional<unsigned> Line =
            firstSplitMarker(SM.getMemoryBuffer(Id)->getBuffer()))
      llvm::WithColor::note(llvm::errs(), "shardc")
          << Source << ":" << *Line
          << ": this file has '// -----' lines separating programs; pass "
             "--split-input-file to compile each on its own\n";
  if (Json && Code != ExitSuccess && !Json->Failed) {
    // The compile stopped before its report: the entry says what went wrong
    // instead (nothing of it was printed yet: IR dumps go to stderr).
    Json->Compile = nullptr;
    Json->Failed = true;
    printJsonEntry(*Json, OS);
  }
  if (!Verifier || Code > ExitInputErrors)
    return Code;
  return Verifier->verify(llvm::errs(), O.Colors) ? ExitSuccess
                                                  : ExitInputErrors;
}
