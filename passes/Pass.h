//===- Pass.h - Passes over the IR and the pipeline -------------*- C++ -*-===//
//
// A pass transforms or annotates a Module. Passes are created only through
// the factories of Passes.def; the pipeline is assembled in one place
// (buildPipeline) and can verify and print the IR after each pass.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_PASS_H
#define SHARDC_PASSES_PASS_H

#include "ir/IR.h"
#include "passes/Placement.h"
#include <memory>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
class SourceMgr;
} // namespace llvm

namespace shardc {
class DiagnosticEngine;

/// What passes share: where to report, and the placement cache of the
/// module's mesh (insert-collectives prices plans with it, place-collectives
/// annotates with it).
struct PassContext {
  PassContext(DiagnosticEngine &D, const MeshSpec &M) : Diags(D), Cache(M) {}
  DiagnosticEngine &Diags;
  PlacementCache Cache;
};

class Pass {
public:
  virtual ~Pass() = default;
  virtual llvm::StringRef name() const = 0;
  /// Returns false after reporting an error.
  virtual bool run(Module &M, PassContext &Ctx) = 0;
};

#define PASS(Name, Flag, Factory) std::unique_ptr<Pass> Factory();
#include "passes/Passes.def"

/// The names of every pass, in pipeline order (for --print-ir-after).
std::vector<std::string> passNames();

struct PipelineOptions {
  bool VerifyEach = false;
  /// Print the IR after these passes ("all" for every pass).
  std::vector<std::string> PrintAfter;
  /// Stop after this pass ("" runs the whole pipeline).
  std::string StopAfter;
};

/// Runs the pipeline on \p M. Returns false when a pass reported an error or
/// the verifier found a broken invariant (reported to stderr as an internal
/// error).
bool runPipeline(Module &M, DiagnosticEngine &Diags, const llvm::SourceMgr &SM,
                 const PipelineOptions &Opts, llvm::raw_ostream &OS);

} // namespace shardc

#endif
