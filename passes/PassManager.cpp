//===- PassManager.cpp - The pipeline -------------------------------------===//
#include "diag/Diagnostic.h"
#include "passes/Pass.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace shardc;

std::vector<std::string> shardc::passNames() {
  return {
#define PASS(Name, Flag, Factory) Flag,
#include "passes/Passes.def"
  };
}

bool shardc::runPipeline(Module &M, DiagnosticEngine &Diags,
                         const llvm::SourceMgr &SM, const PipelineOptions &Opts,
                         llvm::raw_ostream &OS) {
  std::vector<std::unique_ptr<Pass>> Passes;
#define PASS(Name, Flag, Factory) Passes.push_back(Factory());
#include "passes/Passes.def"
  PassContext Ctx(Diags, *M.Mesh);
  for (auto &P : Passes) {
    if (!P->run(M, Ctx))
      return false;
    if (Opts.VerifyEach) {
      std::string Err = verifyModule(M);
      if (!Err.empty()) {
        llvm::errs() << "shardc: internal error: IR verification failed after "
                     << P->name() << ": " << Err << "\n";
        return false;
      }
    }
    if (llvm::is_contained(Opts.PrintAfter, "all") ||
        llvm::is_contained(Opts.PrintAfter, P->name())) {
      OS << "// IR after " << P->name() << "\n";
      printModule(M, SM, OS, /*WithCosts=*/true);
    }
    if (Opts.StopAfter == P->name())
      break;
  }
  return true;
}
