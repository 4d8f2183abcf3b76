//===- Pipeline.h - Compiling a checked module for a mesh -------*- C++ -*-===//
//
// The frontend checks a program once; everything that depends on the mesh's
// sizes or the cluster is a pass over one MeshCompile: bind-mesh (every
// decision a mesh's sizes make: pipeline stages, KV-head shards, MoE slots),
// check-mesh (divisibility, chip peaks), insert-collectives (plan and
// materialise the lowered module), place-collectives and estimate-costs (side
// tables). Passes are created only through the factories of Passes.def; the
// pipeline is assembled in one place (runPipeline). compileForMesh is the
// re-cost call: the same pipeline for another mesh with the same axis names, no
// parsing, no checking.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_PIPELINE_H
#define SHARDC_PASSES_PIPELINE_H

#include "passes/Analyses.h"
#include "passes/Placement.h"
#include "llvm/Support/Error.h"
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace shardc {
class DiagnosticEngine;

/// What one compile of a checked program is for: a mesh (any sizes, any
/// cluster, the program's axis names), sizes for some of its dims (a
/// search's microbatch size, an inference phase's batch) and the `train`
/// settings (a search's knobs: zero, recompute, microbatches, schedule,
/// chunks), as if the file wrote them.
struct Layout {
  MeshSpec Mesh;
  DimSizeMap Dims;
  /// Replaces the checked module's `train { }` settings; only for a module
  /// that has them (compile() refuses it otherwise).
  std::optional<TrainConfig> Train;
  /// Coefficients already computed for this mesh, to share (a layout
  /// search's candidates of one layout do): used only when it is this
  /// mesh's (PlacementCache::isFor), otherwise the compile makes its own.
  std::shared_ptr<PlacementCache> Placements;
};

/// One checked module on one layout: the lowered module and every table.
class MeshCompile {
public:
  MeshCompile(const Module &Checked, MeshSpec Mesh,
              DimSizeMap Dims = DimSizeMap(),
              std::optional<TrainConfig> Train = std::nullopt,
              std::shared_ptr<PlacementCache> Placements = nullptr);
  MeshCompile(const MeshCompile &) = delete;
  MeshCompile &operator=(const MeshCompile &) = delete;

  const Module &checked() const { return Checked; }
  /// The checked module bound to this mesh: itself, or the copy bind-mesh
  /// made where the mesh changes a size it holds (a MoE's slots).
  const Module &forward() const { return Bound ? *Bound : Checked; }
  void setBound(std::unique_ptr<Module> M) { Bound = std::move(M); }
  /// The program the later passes lower: the bound forward module, or with
  /// a `train { }` block the training step derive-backward built from it
  /// (forward, backward, gradient syncs, optimizer).
  const Module &program() const { return Training ? *Training : forward(); }
  void setTraining(std::unique_ptr<Module> M) { Training = std::move(M); }
  const MeshSpec &mesh() const { return Mesh; }
  /// The dims the layout rebinds (bind-mesh applies them).
  const DimSizeMap &dims() const { return Dims; }
  /// The checked module's settings, with the layout's `train` settings
  /// when it has them: every pass and every module built reads these.
  const ModuleConfig &config() const { return Config; }
  /// Null until insert-collectives ran.
  const Module *lowered() const { return Lowered.get(); }
  Module *lowered() { return Lowered.get(); }
  void setLowered(std::unique_ptr<Module> M) { Lowered = std::move(M); }
  /// A cache: filling it changes no result, so a const compile may too.
  PlacementCache &placements() const { return *Cache; }
  /// The schedule and chunks of the train settings: reschedule() only.
  void setSchedule(PipelineSchedule S, int64_t Chunks) {
    Config.Train->Schedule = S;
    Config.Train->Chunks = Chunks;
  }

  Analyses Tables;

private:
  const Module &Checked;
  MeshSpec Mesh;
  DimSizeMap Dims;
  ModuleConfig Config;
  std::unique_ptr<Module> Bound;
  std::unique_ptr<Module> Training;
  std::unique_ptr<Module> Lowered;
  /// Coefficients of Mesh, per (kind, axis set): its own, or the layout's.
  std::shared_ptr<PlacementCache> Cache;
};

class Pass {
public:
  virtual ~Pass() = default;
  virtual llvm::StringRef name() const = 0;
  /// Returns false after reporting an error to \p Diags.
  virtual bool run(MeshCompile &C, DiagnosticEngine &Diags) = 0;
};

#define PASS(Name, Flag, Factory) std::unique_ptr<Pass> Factory();
#include "passes/Passes.def"

/// The names of every pass, in pipeline order (for --print-ir-after).
std::vector<std::string> passNames();

struct PipelineOptions {
  bool VerifyEach = false;
  /// Print the IR after these passes ("all" for every pass), with
  /// \c PrintIR (the report layer's printAnnotated, in the driver).
  std::vector<std::string> PrintAfter;
  std::function<void(const MeshCompile &, llvm::raw_ostream &)> PrintIR;
};

/// Runs the pipeline on \p C. Returns llvm::Error::success() when it ran;
/// an error when a pass reported one to \p Diags (the message says so) or
/// the verifier found a broken invariant (a shardc bug: the message is the
/// broken invariant). IR dumps go to \p OS.
llvm::Error runPipeline(MeshCompile &C, DiagnosticEngine &Diags,
                        const PipelineOptions &Opts, llvm::raw_ostream &OS);

/// The one compile of a checked program: \p Checked (from any file) on
/// \p L, whose mesh must have the checked module's axis names in its order
/// (sizes and cluster may differ) and whose dims must be dims no expression
/// of the source reads (else an llvm::Error: the layout is unusable).
/// Problems of the program on the layout (a dim the mesh does not divide,
/// a pipeline it does not split, a dtype its chip has no peak for) are
/// reported to \p Diags, as data a search can count: a failing pass makes
/// it an error; a step over HBM returns the compile with its error.
llvm::Expected<std::unique_ptr<MeshCompile>>
compile(const Module &Checked, const Layout &L, DiagnosticEngine &Diags);

/// \p C compiled again with schedule \p S and \p Chunks, every other
/// setting of its layout kept: what a layout search does for a candidate
/// that differs from the last only in those. No pass before schedule-step
/// reads them but bind-mesh's pipeline check, so the modules and tables
/// up to estimate-costs stand; that check, schedule-step and check-memory
/// run again. \p C is then compile()'s on the new layout (a test holds it
/// to that, report for report). An error as compile()'s.
llvm::Error reschedule(MeshCompile &C, PipelineSchedule S, int64_t Chunks,
                       DiagnosticEngine &Diags);

/// bind-mesh's pipeline check alone (the stages and chunks split each
/// pipelined count; interleaving has whole groups of microbatches; the
/// slices are bounded): false after reporting.
bool checkPipelineSplits(const MeshCompile &C, DiagnosticEngine &Diags);

/// compile() on \p Mesh, no dim rebound: the re-cost call.
llvm::Expected<std::unique_ptr<MeshCompile>>
compileForMesh(const Module &Checked, const MeshSpec &Mesh,
               DiagnosticEngine &Diags);

} // namespace shardc

#endif // SHARDC_PASSES_PIPELINE_H
