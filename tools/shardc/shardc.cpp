//===- shardc.cpp - The shardc driver -------------------------------------===//
//
// Owns option parsing and the run over the input files, nothing else: read
// each input (each chunk of it), hand it to compileBuffer (Emit.cpp: load
// and check the program, run the passes, print what --emit asks for), and
// write the outputs.
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
#include "Driver.h"
#include "Output.h"
#include "SplitInput.h"
#include "StdlibDir.h"
#include "Version.h"
#include "frontend/Compiler.h"
#include "passes/Pipeline.h"
#include "report/Report.h"
#include "report/Summary.h"
#include "shardc/Config.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/thread.h"
#include <algorithm>
#include <exception>
#include <thread>

using namespace shardc;
namespace cl = llvm::cl;

namespace {

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
               clEnumValN(EmitKind::Costs, "costs", "the IR with its costs"),
               clEnumValN(EmitKind::Best, "best",
                          "a search's best layout as a file (see --row)")),
    cl::cat(ShardcCategory));
cl::opt<unsigned> RowOpt("row", cl::init(1),
                         cl::desc("With --emit=best: print row N of the "
                                  "search's top rows (default 1)"),
                         cl::value_desc("N"), cl::cat(ShardcCategory));
enum class ProgressMode { Auto, Always, Never };
cl::opt<ProgressMode>
    ProgressOpt("progress", cl::init(ProgressMode::Auto),
                cl::desc("A search's progress line on stderr"),
                cl::values(clEnumValN(ProgressMode::Auto, "auto",
                                      "when stderr is a terminal (default)"),
                           clEnumValN(ProgressMode::Always, "always", "always"),
                           clEnumValN(ProgressMode::Never, "never", "never")),
                cl::cat(ShardcCategory));
cl::opt<unsigned> JobsOpt(
    "j", cl::init(0),
    cl::desc("A search's threads (default: the hardware's); the output is "
             "the same for every N"),
    cl::value_desc("N"), cl::Prefix, cl::cat(ShardcCategory));
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
cl::list<std::string> Defines(
    "D", cl::Prefix,
    cl::desc("Compile as if the main file set NAME (a dim, a let, a train "
             "or config setting) to VALUE"),
    cl::value_desc("NAME=VALUE"), cl::cat(ShardcCategory));
// A list, so that a second --mesh gets shardc's own message (checkUsage),
// not the option parser's.
cl::list<std::string>
    MeshSizes("mesh",
              cl::desc("Compile as if the program's mesh had these sizes "
                       "(the axes not named keep theirs)"),
              cl::value_desc("'AXIS: SIZE, ...'"), cl::cat(ShardcCategory));
cl::opt<bool> SummaryTable(
    "summary",
    cl::desc("After the reports, a line per program (per chunk with "
             "--split-input-file): mesh, step time, MFU, memory, fits"),
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

DriverOptions readOptions(const std::string &StdlibDir) {
  DriverOptions O;
  O.Inputs.assign(InputFiles.begin(), InputFiles.end());
  O.OutputPath = OutputFile;
  O.Emit = Emit;
  O.Row = RowOpt;
  O.Progress =
      ProgressOpt == ProgressMode::Always ||
      (ProgressOpt == ProgressMode::Auto && llvm::errs().is_displayed());
  O.Jobs = JobsOpt ? unsigned(JobsOpt)
                   : std::max(1u, std::thread::hardware_concurrency());
  O.Format = Format;
  O.SplitInputFile = SplitInputFile;
  O.Summary = SummaryTable;
  O.VerifyDiagnostics = VerifyDiagnostics;
  O.VerifyEach = VerifyEach;
  O.Colors = llvm::errs().colors_enabled();
  O.ErrorLimit = ErrorLimit;
  O.PrintIRAfter.assign(PrintIRAfter.begin(), PrintIRAfter.end());
  O.Compile.StdlibDir = StdlibDir;
  O.Compile.IncludeDirs.assign(IncludeDirs.begin(), IncludeDirs.end());
  O.Edits.Defines.assign(Defines.begin(), Defines.end());
  if (!MeshSizes.empty())
    O.Edits.Mesh = MeshSizes.front();
  return O;
}

/// Compiles input file \p File (each chunk of it, with --split-input-file)
/// and writes what each chunk prints to \p Out. Returns the worst exit code.
/// With --summary, appends each chunk's line to \p Summary.
int runFile(size_t File, const DriverOptions &O, OutputWriter &Out,
            std::vector<SummaryRow> &Summary) {
  const std::string &Path = O.Inputs[File];
  auto BufferOrErr = readSourceFile(Path, O.Compile.Limits.MaxFileBytes);
  if (!BufferOrErr) {
    std::string Msg =
        "cannot read '" + Path + "': " + BufferOrErr.getError().message();
    driverError() << Msg << "\n";
    // Its entry (JSON) or its empty section under its heading (text).
    llvm::raw_ostream &OS = Out.beginChunk(File, 0);
    if (jsonReport(O)) {
      JsonEntry E{Path, 0, {{"error", Msg, "", 0, 0}}, nullptr, true, {}, {},
                  {},   {}};
      printJsonEntry(E, OS);
    }
    Out.endChunk();
    if (O.Summary) {
      Summary.emplace_back();
      Summary.back().Where = Path;
      Summary.back().Status = "unreadable: nothing to cost";
    }
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
    Worst = std::max(Worst, compileBuffer(std::move(Chunks[I]), I, O, OS,
                                          O.Summary ? &Summary : nullptr));
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
  std::vector<SummaryRow> Summary;
  try {
    for (size_t I = 0; I < O.Inputs.size(); ++I)
      Worst = std::max(Worst, runFile(I, O, Writer, Summary));
  } catch (...) {
    // An internal error (main reports it): what was written stays a
    // well-formed document (-o FILE is not written all the same).
    Writer.finish();
    Out.abandon();
    throw;
  }
  Writer.finish();
  if (O.Summary)
    printSummary(Summary, Out.os());
  // Kept even after input errors: it holds what compiled, and an -o file
  // that vanishes on error surprises scripts.
  return Out.commit() ? Worst : ExitUsage;
}

/// What the option parser cannot check on its own. Returns false after
/// reporting a usage error.
bool checkUsage() {
  if (MeshSizes.size() > 1) {
    driverError() << "--mesh is given " << MeshSizes.size()
                  << " times: give it once, naming every axis to change "
                     "('--mesh \"D: 8, T: 8\"')\n";
    return false;
  }
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
  // The summary is a table for people, after the text reports; the JSON
  // entries carry its numbers.
  if (SummaryTable &&
      (Emit != EmitKind::Report || Format != OutputFormat::Text)) {
    driverError() << "--summary follows text reports: it takes neither "
                     "--emit nor --format (the JSON entries carry its "
                     "numbers)\n";
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

llvm::raw_ostream &shardc::driverError() {
  return llvm::WithColor::error(llvm::errs(), "shardc");
}

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
