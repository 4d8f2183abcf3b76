//===- ServeDriver.cpp - Running a serving program ------------------------===//
//
// A checked program with a `serve` block (P.Serve) is costed per instance
// by serve/ (docs/inference.md); its report is report/ServeReport's. The
// other outputs read the decode step at the serving batch: --format=trace
// draws it, --emit=ir and --emit=costs print it, --summary summarises it.
//
//===----------------------------------------------------------------------===//
#include "Driver.h"
#include "diag/Diagnostic.h"
#include "report/Report.h"
#include "report/ServeReport.h"
#include "report/Summary.h"
#include "serve/Serve.h"
#include "llvm/Support/raw_ostream.h"

using namespace shardc;

int shardc::serveAndEmit(Program &P, DiagnosticEngine &Diags,
                         const DriverOptions &O, llvm::raw_ostream &OS,
                         JsonEntry *Json, SummaryRow *Summary) {
  auto R = runServe(*P.IR, *P.Serve, P.IR->mesh(), Diags);
  if (!R) {
    driverError() << "internal error: " << llvm::toString(R.takeError())
                  << "\n";
    return ExitInternal;
  }
  if (!*R)
    return ExitInputErrors;
  const ServeResult &S = **R;
  if (Summary) {
    std::string Where = std::move(Summary->Where);
    *Summary = summaryRow(*S.DecodeCompile, Diags.hasErrors());
    Summary->Where = std::move(Where);
  }
  if (O.Emit == EmitKind::Report && O.Format == OutputFormat::Text) {
    printServeReport(S, OS);
    return ExitSuccess;
  }
  if (Json) {
    Json->Serve = [&](JsonWriter &J) { serveJson(J, S); };
    Json->OpPhase = "decode";
  }
  emitCompiled(S.DecodeCompile.get(), Diags, O, OS, Json);
  if (Json) {
    Json->Serve = nullptr;
    Json->OpPhase.clear();
  }
  return ExitSuccess;
}
