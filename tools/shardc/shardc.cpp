//===- shardc.cpp - The shardc driver -------------------------------------===//
//
// Owns option parsing and pipeline assembly, nothing else: read the input,
// load and check the program, run the passes, print what --emit asks for.
//
// Exit codes:
//   0  success (with --verify-diagnostics: the diagnostics matched)
//   1  errors in the input (with --verify-diagnostics: a mismatch)
//   2  usage or I/O errors: a bad flag, an unreadable FILE, an unwritable -o,
//      a missing or unreadable stdlib folder
//   3  internal error: an exception or a broken IR invariant (a shardc bug)
//
//===----------------------------------------------------------------------===//
#include "Calibrate.h"
#include "Output.h"
#include "SplitInput.h"
#include "StdlibDir.h"
#include "Version.h"
#include "diag/Diagnostic.h"
#include "diag/DiagnosticVerifier.h"
#include "frontend/AST.h"
#include "frontend/Compiler.h"
#include "frontend/Parser.h"
#include "ir/IR.h"
#include "passes/Pipeline.h"
#include "report/Report.h"
#include "report/Timeline.h"
#include "shardc/Config.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/thread.h"
#include <algorithm>
#include <exception>
#include <optional>

using namespace shardc;
namespace cl = llvm::cl;

namespace {

enum ExitCode : int {
  ExitSuccess = 0,
  ExitInputErrors = 1,
  ExitUsage = 2,
  ExitInternal = 3,
};

enum class EmitKind { Tokens, AST, IR, Costs, Report };
enum class OutputFormat { Text, JSON, Trace, Svg };
enum class ColorMode { Auto, Always, Never };

cl::OptionCategory ShardcCategory("shardc options");

// Zero files is a usage error unless --print-stdlib-dir asks for no compile:
// main checks it.
cl::list<std::string> InputFiles(cl::Positional, cl::ZeroOrMore,
                                 cl::desc("<FILE... or - for stdin>"),
                                 cl::cat(ShardcCategory));
cl::list<std::string> IncludeDirs("I", cl::Prefix,
                                  cl::desc("Search DIR for imports"),
                                  cl::value_desc("DIR"),
                                  cl::cat(ShardcCategory));
cl::opt<std::string> OutputFile("o", cl::init("-"),
                                cl::desc("Write output to FILE"),
                                cl::value_desc("FILE"),
                                cl::cat(ShardcCategory));
cl::opt<EmitKind> Emit(
    "emit", cl::init(EmitKind::Report),
    cl::desc("What to print (default: the cost report)"),
    cl::values(clEnumValN(EmitKind::Tokens, "tokens", "the token stream"),
               clEnumValN(EmitKind::AST, "ast", "the main file's syntax tree"),
               clEnumValN(EmitKind::IR, "ir", "the IR after the passes"),
               clEnumValN(EmitKind::Costs, "costs", "the IR with its costs")),
    cl::cat(ShardcCategory));
cl::opt<OutputFormat>
    Format("format", cl::init(OutputFormat::Text),
           cl::desc("Format of the report"),
           cl::values(clEnumValN(OutputFormat::Text, "text", "human-readable"),
                      clEnumValN(OutputFormat::JSON, "json", "JSON"),
                      clEnumValN(OutputFormat::Trace, "trace",
                                 "the step's timeline as Chrome trace "
                                 "events (Perfetto, chrome://tracing)"),
                      clEnumValN(OutputFormat::Svg, "svg",
                                 "the ops under the chip's roofline, as an "
                                 "SVG picture")),
           cl::cat(ShardcCategory));
cl::opt<bool> VerifyDiagnostics(
    "verify-diagnostics",
    cl::desc("Check the diagnostics against the input's 'expected-*' "
             "comments instead of printing them"),
    cl::cat(ShardcCategory));
cl::opt<bool> SplitInputFile(
    "split-input-file",
    cl::desc("Compile each '// -----' separated chunk of FILE on its own"),
    cl::cat(ShardcCategory));
cl::opt<unsigned> ErrorLimit("error-limit", cl::init(20),
                             cl::desc("Stop after N errors (0: no limit)"),
                             cl::value_desc("N"), cl::cat(ShardcCategory));
#ifdef SHARDC_VERIFY_EACH_DEFAULT
constexpr bool VerifyEachDefault = true;
#else
constexpr bool VerifyEachDefault = false;
#endif
// ZeroOrMore: lit's %shardc passes --verify-each, and a test may pass it
// again (the last occurrence wins).
cl::opt<bool> VerifyEach("verify-each", cl::init(VerifyEachDefault),
                         cl::desc("Run the IR verifier after every pass"),
                         cl::ZeroOrMore, cl::cat(ShardcCategory));
cl::list<std::string> PrintIRAfter(
    "print-ir-after", cl::CommaSeparated,
    cl::desc("Print the IR after the named passes ('all' for every pass, "
             "'check' for the IR the frontend built, before any pass)"),
    cl::value_desc("pass"), cl::cat(ShardcCategory));
cl::opt<bool> PrintStdlibDir(
    "print-stdlib-dir",
    cl::desc("Print the folder of the stdlib presets (nvidia.shard) and exit"),
    cl::cat(ShardcCategory));

/// The pseudo-pass of --print-ir-after that names the IR as the frontend
/// lowered it: the only place its `reshard` ops can be seen.
constexpr const char *CheckStage = "check";

/// `--color=auto|always|never`. LLVM's Support library registers a boolean
/// `--color` of its own, which WithColor (and so SourceMgr's diagnostics)
/// consults; ours takes its name on the command line and, once parsed, sets
/// LLVM's, so every colored output obeys the one flag.
cl::opt<ColorMode> *Color = nullptr;
cl::opt<cl::boolOrDefault> *LLVMColor = nullptr;

void registerColorOption() {
  // The lookup registers LLVM's common options first, so ours cannot clash
  // with a later registration.
  if (cl::Option *O = cl::getRegisteredOptions().lookup("color")) {
    // WithColor.cpp declares it as cl::opt<cl::boolOrDefault>.
    LLVMColor = static_cast<cl::opt<cl::boolOrDefault> *>(O);
    O->removeArgument();
  }
  static cl::opt<ColorMode> Opt(
      "color", cl::init(ColorMode::Auto), cl::desc("Color the diagnostics"),
      cl::values(
          clEnumValN(ColorMode::Auto, "auto", "when stderr is a terminal"),
          clEnumValN(ColorMode::Always, "always", "always"),
          clEnumValN(ColorMode::Never, "never", "never")),
      cl::cat(ShardcCategory));
  Color = &Opt;
}

/// Hands the parsed --color to LLVM's streams and WithColor.
void applyColorOption() {
  cl::boolOrDefault B = Color->getValue() == ColorMode::Always  ? cl::BOU_TRUE
                        : Color->getValue() == ColorMode::Never ? cl::BOU_FALSE
                                                                : cl::BOU_UNSET;
  if (LLVMColor)
    LLVMColor->setValue(B);
  llvm::errs().enable_colors(B == cl::BOU_TRUE ||
                             (B == cl::BOU_UNSET && llvm::errs().has_colors()));
}

/// Starts a `shardc: error: ` line on stderr for problems that are not in the
/// user's source (flags, files, internal errors).
llvm::raw_ostream &driverError() {
  return llvm::WithColor::error(llvm::errs(), "shardc");
}

/// Everything the pipeline needs from the command line, read once.
struct DriverOptions {
  std::vector<std::string> Inputs;
  std::string OutputPath = "-";
  EmitKind Emit = EmitKind::Report;
  OutputFormat Format = OutputFormat::Text;
  bool SplitInputFile = false;
  bool VerifyDiagnostics = false;
  bool VerifyEach = false;
  bool Colors = false;
  unsigned ErrorLimit = 20;
  std::vector<std::string> PrintIRAfter;
  CompileOptions Compile;
};

DriverOptions readOptions(const std::string &StdlibDir) {
  DriverOptions O;
  O.Inputs.assign(InputFiles.begin(), InputFiles.end());
  O.OutputPath = OutputFile;
  O.Emit = Emit;
  O.Format = Format;
  O.SplitInputFile = SplitInputFile;
  O.VerifyDiagnostics = VerifyDiagnostics;
  O.VerifyEach = VerifyEach;
  O.Colors = llvm::errs().colors_enabled();
  O.ErrorLimit = ErrorLimit;
  O.PrintIRAfter.assign(PrintIRAfter.begin(), PrintIRAfter.end());
  O.Compile.StdlibDir = StdlibDir;
  O.Compile.IncludeDirs.assign(IncludeDirs.begin(), IncludeDirs.end());
  return O;
}

/// Whether the output is the JSON array of reports (docs/json.md).
bool jsonReport(const DriverOptions &O) {
  return O.Emit == EmitKind::Report && O.Format == OutputFormat::JSON;
}

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

/// Compiles buffer \p Id as far as --emit needs and prints the result to
/// \p OS; in JSON mode, prints \p Json's entry when the compile got as far
/// as a report. Returns the exit code; input errors are already reported.
int compileAndEmit(unsigned Id, DiagnosticEngine &Diags, const DriverOptions &O,
                   llvm::raw_ostream &OS, JsonEntry *Json) {
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
  if (!checkProgram(Diags, P))
    return ExitInputErrors;
  // The checked module owns all it refers to: the ASTs (a third of a large
  // program's memory) can go before the passes run.
  P.Files.clear();
  std::unique_ptr<MeshCompile> C;
  if (P.IR && !(C = runPasses(*P.IR, Diags, O, OS)))
    return Diags.hasErrors() ? ExitInputErrors : ExitInternal;
  switch (O.Emit) {
  case EmitKind::IR:
  case EmitKind::Costs:
    if (C)
      printAnnotated(*C, OS, O.Emit == EmitKind::Costs);
    break;
  case EmitKind::Report:
    if (Json) {
      // A step over the chip's HBM is an error whose report is still
      // printed (COST-MODEL.md §7): status "error" with the report.
      Json->Compile = C.get();
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
        break;
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
        break;
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
    break;
  case EmitKind::Tokens:
  case EmitKind::AST:
    llvm_unreachable("handled above");
  }
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

/// Compiles one buffer with its own SourceMgr and engine, so the chunks of
/// --split-input-file cannot see each other's errors or imports. Chunk
/// \p Chunk of its file, for the JSON entry.
int compileBuffer(std::unique_ptr<llvm::MemoryBuffer> Buffer, unsigned Chunk,
                  const DriverOptions &O, llvm::raw_ostream &OS) {
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
    recordDiagnostics(Diags, *Json);
  }
  std::optional<DiagnosticVerifier> Verifier;
  if (O.VerifyDiagnostics) {
    Verifier.emplace(Diags);
    Verifier->addExpectations(Id);
  }
  int Code = compileAndEmit(Id, Diags, O, OS, Json ? &*Json : nullptr);
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

/// Compiles input file \p File (each chunk of it, with --split-input-file)
/// and writes what each chunk prints to \p Out. Returns the worst exit code.
int runFile(size_t File, const DriverOptions &O, OutputWriter &Out) {
  const std::string &Path = O.Inputs[File];
  auto BufferOrErr = readSourceFile(Path, O.Compile.Limits.MaxFileBytes);
  if (!BufferOrErr) {
    std::string Msg =
        "cannot read '" + Path + "': " + BufferOrErr.getError().message();
    driverError() << Msg << "\n";
    // Its entry (JSON) or its empty section under its heading (text).
    llvm::raw_ostream &OS = Out.beginChunk(File, 0);
    if (jsonReport(O)) {
      JsonEntry E{Path, 0, {{"error", Msg, "", 0, 0}}, nullptr, true};
      printJsonEntry(E, OS);
    }
    Out.endChunk();
    return ExitUsage;
  }
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> Chunks;
  if (O.SplitInputFile)
    Chunks = splitInput(**BufferOrErr);
  else
    Chunks.push_back(std::move(*BufferOrErr));
  int Worst = ExitSuccess;
  for (size_t I = 0; I < Chunks.size(); ++I) {
    llvm::raw_ostream &OS = Out.beginChunk(File, I);
    Worst = std::max(Worst, compileBuffer(std::move(Chunks[I]), I, O, OS));
    Out.endChunk();
  }
  return Worst;
}

/// The whole run: compile every input file, write the outputs.
int runDriver(const DriverOptions &O) {
  OutputTarget Out;
  if (!Out.open(O.OutputPath))
    return ExitUsage;
  int Worst = ExitSuccess;
  OutputWriter Writer(Out.os(), jsonReport(O), O.Inputs);
  try {
    for (size_t I = 0; I < O.Inputs.size(); ++I)
      Worst = std::max(Worst, runFile(I, O, Writer));
  } catch (...) {
    // An internal error (main reports it): what was written stays a
    // well-formed document (-o FILE is not written all the same).
    Writer.finish();
    Out.abandon();
    throw;
  }
  Writer.finish();
  // Kept even after input errors: it holds what compiled, and an -o file
  // that vanishes on error surprises scripts.
  return Out.commit() ? Worst : ExitUsage;
}

/// What the option parser cannot check on its own. Returns false after
/// reporting a usage error.
bool checkUsage() {
  std::vector<std::string> Known = passNames();
  for (const std::string &Name : PrintIRAfter)
    if (Name != "all" && Name != CheckStage &&
        !llvm::is_contained(Known, Name)) {
      driverError() << "unknown pass '" << Name << "' in --print-ir-after "
                    << "(passes: " << llvm::join(Known, ", ") << "; also '"
                    << CheckStage << "' and 'all')\n";
      return false;
    }
  // A trace is one timeline: one program's.
  if (Format == OutputFormat::Trace &&
      (InputFiles.size() > 1 || SplitInputFile)) {
    driverError() << "--format=trace writes one program's timeline: give "
                     "one input file, without --split-input-file\n";
    return false;
  }
  // A picture is one standalone SVG document: one program's.
  if (Format == OutputFormat::Svg &&
      (InputFiles.size() > 1 || SplitInputFile)) {
    driverError() << "--format=svg draws one program's roofline: give one "
                     "input file, without --split-input-file\n";
    return false;
  }
  if (InputFiles.empty() && !PrintStdlibDir) {
    driverError() << "no input file (give FILE, or '-' to read stdin)\n";
    return false;
  }
  // stdin can be read once: a second '-' would be an empty program.
  if (llvm::count(InputFiles, "-") > 1) {
    driverError() << "'-' (stdin) is given more than once; stdin can be "
                     "read only once\n";
    return false;
  }
  // -o opens its file for writing before any input is read: naming an
  // input would empty it, and then cost the empty file.
  if (OutputFile != "-")
    for (const std::string &In : InputFiles)
      if (In != "-" && llvm::sys::fs::equivalent(In, OutputFile)) {
        driverError() << "-o '" << OutputFile << "' is the input file '" << In
                      << "'; write the output elsewhere\n";
        return false;
      }
  return true;
}

/// The values enum option \p O takes.
template <typename T> std::string valuesOf(cl::opt<T> &O) {
  std::vector<std::string> Names;
  for (unsigned I = 0; I < O.getParser().getNumOptions(); ++I)
    Names.push_back(O.getParser().getOption(I).str());
  return llvm::join(Names, ", ");
}

/// After a value an enum option does not take (LLVM's message, printed
/// before, names the option but not its values): the values it does take.
/// The arguments are read again, as LLVM writes that message to stderr
/// itself.
void unknownValueNote(int Argc, char **Argv) {
  auto Check = [&](llvm::StringRef Name, llvm::StringRef Values) {
    for (int I = 1; I < Argc; ++I) {
      llvm::StringRef A(Argv[I]);
      if (!A.consume_front("--") && !A.consume_front("-"))
        continue;
      llvm::StringRef Value, Rest = A;
      if (Rest.consume_front(Name) && Rest.consume_front("="))
        Value = Rest;
      else if (A == Name && I + 1 < Argc)
        Value = Argv[I + 1];
      else
        continue;
      llvm::SmallVector<llvm::StringRef, 8> Known;
      Values.split(Known, ", ");
      if (!llvm::is_contained(Known, Value))
        llvm::WithColor::note(llvm::errs(), "shardc")
            << "--" << Name << " takes: " << Values << "\n";
      return;
    }
  };
  Check("emit", valuesOf(Emit));
  Check("format", valuesOf(Format));
  if (Color)
    Check("color", valuesOf(*Color));
}

constexpr const char *Overview =
    "shardc: a compiler for cluster cost models\n\n"
    "  Exit codes: 0 success, 1 errors in the input (with "
    "--verify-diagnostics:\n  a mismatch), 2 usage or I/O errors, 3 internal "
    "errors.\n\n  shardc calibrate --help: presets from component benchmarks "
    "(docs/calibrate.md).\n";

/// The compile's recursion (parser, AST walks) is bounded by the parse
/// limits, but the bound assumes more stack than a main thread may have.
constexpr unsigned CompileStackBytes = 64u << 20;

/// `shardc calibrate ARGS...`: the subcommand, with the driver's exit codes
/// (an exception is an internal error here too).
int runCalibrateCommand(int Argc, char **Argv) {
  llvm::Expected<std::string> Stdlib = findStdlibDir(Argv[0]);
  if (!Stdlib) {
    driverError() << llvm::toString(Stdlib.takeError()) << "\n";
    return ExitUsage;
  }
  std::vector<const char *> Args(Argv + 2, Argv + Argc);
  try {
    return runCalibrate(Args, *Stdlib);
  } catch (const std::exception &E) {
    driverError() << "internal error: " << E.what() << "\n";
  } catch (...) {
    driverError() << "internal error: unknown exception\n";
  }
  return ExitInternal;
}

} // namespace

int main(int Argc, char **Argv) {
  llvm::InitLLVM X(Argc, Argv);
  // `shardc calibrate ...` is a subcommand with options of its own
  // (docs/calibrate.md); a program file named 'calibrate' is ./calibrate.
  if (Argc > 1 && llvm::StringRef(Argv[1]) == "calibrate")
    return runCalibrateCommand(Argc, Argv);
  registerColorOption();
  cl::HideUnrelatedOptions(ShardcCategory);
  cl::SetVersionPrinter(printVersion);
  // Parse failures return here instead of exiting with 1, which is the code
  // for errors in the input.
  std::string ParseErrors;
  llvm::raw_string_ostream ParseErrorStream(ParseErrors);
  if (!cl::ParseCommandLineOptions(Argc, Argv, Overview, &ParseErrorStream)) {
    llvm::errs() << ParseErrorStream.str();
    unknownValueNote(Argc, Argv);
    return ExitUsage;
  }
  applyColorOption();
  if (!checkUsage())
    return ExitUsage;
  llvm::Expected<std::string> Stdlib = findStdlibDir(Argv[0]);
  if (!Stdlib) {
    driverError() << llvm::toString(Stdlib.takeError()) << "\n";
    return ExitUsage;
  }
  if (PrintStdlibDir) {
    llvm::outs() << *Stdlib << "\n";
    return ExitSuccess;
  }

  int Code = ExitInternal;
  auto Compile = [&Code, &Stdlib] {
    // An exception cannot cross the thread boundary, and none may escape:
    // it is a shardc bug, reported as such.
    try {
      Code = runDriver(readOptions(*Stdlib));
    } catch (const std::exception &E) {
      driverError() << "internal error: " << E.what() << "\n";
      Code = ExitInternal;
    } catch (...) {
      driverError() << "internal error: unknown exception\n";
      Code = ExitInternal;
    }
  };
  llvm::thread Worker(llvm::Optional<unsigned>(CompileStackBytes), Compile);
  Worker.join();
  return Code;
}
