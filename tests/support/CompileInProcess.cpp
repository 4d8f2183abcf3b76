//===- CompileInProcess.cpp - The whole compile on a string ---------------===//
//
// The driver's compileAndEmit for one in-memory buffer:
//  1. name the buffer inside the stdlib folder and load it with its imports;
//  2. check it and verify the IR it lowers to;
//  3. run the pipeline with the verifier after every pass; a failure with
//     no new error is a broken invariant, not a user error;
//  4. check every cost is a finite non-negative number and MFU (the
//     program's, and a training step's, which counts causal attention at
//     the half it computes) is at most 1;
//  5. render the text and JSON reports.
//
//===----------------------------------------------------------------------===//
#include "tests/support/CompileInProcess.h"
#include "report/Report.h"
#include "tests/support/JsonCheck.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>
#include <fmt/format.h>
#include <optional>

using namespace shardc;
using namespace shardc::testgen;

namespace {

/// Collects the first bad number it is shown.
struct CostChecker {
  std::string Bad;
  void check(double V, const std::string &What) {
    if (Bad.empty() && !(std::isfinite(V) && V >= 0))
      Bad = fmt::format("{} is {}", What, V);
  }
  void op(const OpCost &C, const std::string &Where) {
    check(C.Flops, Where + " FLOPs");
    check(C.HbmBytes, Where + " HBM bytes");
    check(C.TMath, Where + " T_math");
    check(C.THbm, Where + " T_hbm");
    check(C.TComms, Where + " T_comms");
    check(C.Time, Where + " time");
  }
  void collective(const CollectiveCost &C, const std::string &Where) {
    check(C.GroupBytes, Where + " V");
    check(C.Time, Where + " time");
    check(C.LatencyTime, Where + " latency");
    for (const LevelCost &L : C.Levels) {
      check(L.Bytes, Where + " level bytes");
      check(L.Time, Where + " level time");
    }
  }
};

} // namespace

std::string shardc::testgen::checkCostsSane(const MeshCompile &MC) {
  CostChecker C;
  const Analyses &T = MC.Tables;
  walk(MC.lowered()->body(), [&](const Op &O) {
    std::string Where = fmt::format("op '{}'", opMnemonic(O.kind()).str());
    if (O.id() < T.OpCosts.size() && T.OpCosts[O.id()])
      C.op(*T.OpCosts[O.id()], Where);
    if (O.id() < T.Collectives.size() && T.Collectives[O.id()])
      C.collective(*T.Collectives[O.id()], Where);
  });
  const ProgramInfo &Info = MC.checked().info();
  for (size_t I = 0; I < Info.Statements.size(); ++I) {
    std::string Where = "statement '" + Info.Statements[I].Name + "'";
    if (T.StatementCosts[I])
      C.op(*T.StatementCosts[I], Where);
    if (T.Choices[I] && T.Choices[I]->Rejected)
      C.check(T.Choices[I]->Rejected->Time, Where + " rejected time");
  }
  if (T.Totals) {
    const ProgramCost &P = *T.Totals;
    C.check(P.Time, "total time");
    C.check(P.TMath, "total T_math");
    C.check(P.THbm, "total T_hbm");
    C.check(P.TComms, "total T_comms");
    C.check(P.Flops, "total FLOPs");
    C.check(P.Mfu, "MFU");
    for (double B : P.LevelBytes)
      C.check(B, "level bytes");
    // Useful FLOPs can never take less than the whole mesh at peak.
    if (C.Bad.empty() && P.Mfu > 1 + 1e-9)
      C.Bad = fmt::format("MFU is {} > 1", P.Mfu);
  }
  if (T.Step) {
    const StepSummary &S = *T.Step;
    C.check(S.Mfu, "step MFU");
    C.check(S.Hfu, "step HFU");
    C.check(S.MfuCausalFull, "step MFU, causal in full");
    // The full count may pass 1 (it credits what a causal mask skips); the
    // headline may not.
    if (C.Bad.empty() && S.Mfu > 1 + 1e-9)
      C.Bad = fmt::format("step MFU is {} > 1", S.Mfu);
  }
  return C.Bad;
}

std::string shardc::testgen::checkJsonSane(llvm::StringRef Json,
                                           llvm::StringRef What) {
  std::string Why = checkJsonText(Json);
  return Why.empty() ? "" : What.str() + " is not valid JSON: " + Why;
}

bool shardc::testgen::importsStayInFolder(llvm::StringRef Source) {
  for (size_t I = Source.find('"'); I != llvm::StringRef::npos;) {
    size_t End = Source.find_first_of("\"\r\n", I + 1);
    llvm::StringRef Lit = Source.slice(I + 1, End);
    if (Lit.contains('/') || Lit.contains('\\') || Lit.contains(".."))
      return false;
    if (End == llvm::StringRef::npos)
      break;
    I = Source[End] == '"' ? Source.find('"', End + 1) : Source.find('"', End);
  }
  return true;
}

std::unique_ptr<InProcessResult>
shardc::testgen::compileInProcess(llvm::StringRef Source,
                                  const InProcessOptions &O) {
  auto R = std::make_unique<InProcessResult>();
  llvm::SmallString<256> Name(O.StdlibDir);
  llvm::sys::path::append(Name, "input.shard");
  CompileOptions Opts;
  Opts.StdlibDir = O.StdlibDir;
  // As readSourceFile would give the file: the same line ends, no BOM.
  unsigned Id = R->SM.AddNewSourceBuffer(
      normalizeSource(llvm::MemoryBuffer::getMemBufferCopy(Source, Name),
                      Opts.Limits.MaxFileBytes),
      llvm::SMLoc());
  DiagnosticEngine Diags(R->SM);
  Diags.setErrorLimit(O.ErrorLimit);
  Diags.setHandler([&](const Diagnostic &D) {
    auto LC = D.Range.Start.isValid() ? R->SM.getLineAndColumn(D.Range.Start)
                                      : std::pair<unsigned, unsigned>(0, 0);
    R->Diagnostics.push_back(
        fmt::format("{}:{}: {}", LC.first, LC.second, D.Message));
  });
  auto Finish = [&] {
    R->Errors = Diags.errorCount();
    return std::move(R);
  };
  bool Checked =
      loadProgram(Id, Diags, Opts, R->P) && checkProgram(Diags, R->P);
  R->CheckDiagnostics = R->Diagnostics.size();
  if (!Checked || !R->P.IR)
    return Finish();
  const Module &M = *R->P.IR;
  if (std::string Broken = verifyModule(M); !Broken.empty()) {
    R->InternalError = "invalid IR after checking: " + Broken;
    return Finish();
  }
  PipelineOptions P;
  P.VerifyEach = true;
  R->Compile = std::make_unique<MeshCompile>(M, M.mesh());
  if (llvm::Error E = runPipeline(*R->Compile, Diags, P, llvm::nulls())) {
    std::string Msg = llvm::toString(std::move(E));
    if (!Diags.hasErrors())
      R->InternalError = Msg;
    return Finish();
  }
  if (std::string Bad = checkCostsSane(*R->Compile); !Bad.empty()) {
    R->InternalError = "bad cost: " + Bad;
    return Finish();
  }
  R->Compiled = !Diags.hasErrors();
  if (O.Reports && R->Compiled) {
    llvm::raw_string_ostream Text(R->Text), Json(R->Json);
    printTextReport(*R->Compile, Text);
    printJsonReport(*R->Compile, Json);
    R->InternalError = checkJsonSane(R->Json, "JSON report");
    if (O.Trace && R->InternalError.empty()) {
      llvm::raw_string_ostream Trace(R->Trace);
      printTraceReport(*R->Compile, Trace, O.TraceEvents);
      R->InternalError = checkJsonSane(R->Trace, "trace");
    }
  }
  return Finish();
}

std::string shardc::testgen::textReport(const MeshCompile &C) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  printTextReport(C, OS);
  return S;
}

std::string shardc::testgen::jsonReport(const MeshCompile &C) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  printJsonReport(C, OS);
  return S;
}
