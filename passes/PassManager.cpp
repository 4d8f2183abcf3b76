//===- PassManager.cpp - The pipeline and the re-cost call ----------------===//
#include "diag/Diagnostic.h"
#include "passes/Pipeline.h"
#include "support/Format.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"
#include <fmt/format.h>

using namespace shardc;

MeshCompile::MeshCompile(const Module &Checked, MeshSpec M, DimSizeMap D,
                         std::optional<TrainConfig> Train,
                         std::shared_ptr<PlacementCache> Placements)
    : Checked(Checked), Mesh(std::move(M)), Dims(std::move(D)),
      Config(Checked.config()),
      Cache(Placements && Placements->isFor(Mesh)
                ? std::move(Placements)
                : std::make_shared<PlacementCache>(Mesh)) {
  if (Train)
    Config.Train = std::move(Train);
}

std::vector<std::string> shardc::passNames() {
  return {
#define PASS(Name, Flag, Factory) Flag,
#include "passes/Passes.def"
  };
}

/// The verifier on every module the pipeline built so far: the training
/// step (from derive-backward on, when the program trains) and the lowered
/// module (from insert-collectives on). The checked module is the caller's
/// to verify, before the pipeline. Empty when they all hold; a broken
/// invariant of the training step says so (the lowered module's is
/// unmarked, as it always was).
static std::string verifyBuilt(const MeshCompile &C) {
  if (&C.program() != &C.checked())
    if (std::string Err = verifyModule(C.program()); !Err.empty())
      return "in the training module: " + Err;
  return C.lowered() ? verifyModule(*C.lowered()) : "";
}

llvm::Error shardc::runPipeline(MeshCompile &C, DiagnosticEngine &Diags,
                                const PipelineOptions &Opts,
                                llvm::raw_ostream &OS) {
  std::vector<std::unique_ptr<Pass>> Passes;
#define PASS(Name, Flag, Factory) Passes.push_back(Factory());
#include "passes/Passes.def"
  for (auto &P : Passes) {
    if (!P->run(C, Diags))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "the %s pass reported errors",
                                     P->name().str().c_str());
    if (Opts.VerifyEach)
      if (std::string Err = verifyBuilt(C); !Err.empty())
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "IR verification failed after %s: %s",
                                       P->name().str().c_str(), Err.c_str());
    if (llvm::is_contained(Opts.PrintAfter, "all") ||
        llvm::is_contained(Opts.PrintAfter, P->name())) {
      OS << "// IR after " << P->name() << "\n";
      if (Opts.PrintIR)
        Opts.PrintIR(C, OS);
    }
  }
  return llvm::Error::success();
}

/// The mesh must use the checked module's axes by name and position: the
/// types refer to axes by position.
static llvm::Error checkAxes(const Module &Checked, const MeshSpec &Mesh) {
  const std::vector<std::string> &Want = Checked.names().Axes;
  std::vector<std::string> Have;
  for (const MeshAxis &A : Mesh.Axes)
    Have.push_back(A.Name);
  if (Have != Want)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "mesh '%s' has axes [%s]; the program is written for [%s]",
        Mesh.Name.c_str(), llvm::join(Have, ", ").c_str(),
        llvm::join(Want, ", ").c_str());
  if (!Mesh.Cluster || Mesh.numChips() > Mesh.Cluster->numChips())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "mesh '%s' does not fit its cluster",
                                   Mesh.Name.c_str());
  return llvm::Error::success();
}

/// The layout's dims: each a dim of the program, at least 1 and at most
/// 2^62, that no expression reads and that is no MoE's capacity slots
/// (bind-mesh sizes those).
static llvm::Error checkDims(const Module &Checked, const DimSizeMap &Dims) {
  const ProgramInfo &Info = Checked.info();
  llvm::DenseSet<DimId> Slots;
  walk<MoeDispatchOp>(Checked.body(), [&](const MoeDispatchOp &D) {
    Slots.insert(D.result()->type().Dims[1].Id);
  });
  for (const auto &[Id, Size] : Dims) {
    auto Fail = [&](const std::string &Why) {
      return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s",
                                     Why.c_str());
    };
    if (Id >= Info.Names.Dims.size())
      return Fail("the layout names dim #" + std::to_string(Id) +
                  ", which the program does not have");
    const std::string &Name = Info.Names.Dims[Id];
    if (Size < 1 || Size > (int64_t(1) << 62))
      return Fail("the layout's size " + std::to_string(Size) + " for dim '" +
                  Name + "' is not between 1 and 2^62");
    if (Id < Info.DimReadByExpr.size() && Info.DimReadByExpr[Id])
      return Fail("dim '" + Name +
                  "' is read by an expression of the program (another "
                  "dim, a let, a count): a layout cannot rebind it");
    if (Slots.count(Id))
      return Fail("dim '" + Name +
                  "' is a MoE's capacity slots, which "
                  "bind-mesh sizes: a layout cannot rebind it");
  }
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<MeshCompile>>
shardc::compile(const Module &Checked, const Layout &L,
                DiagnosticEngine &Diags) {
  if (llvm::Error E = checkAxes(Checked, L.Mesh))
    return E;
  if (llvm::Error E = checkDims(Checked, L.Dims))
    return E;
  if (L.Train && !Checked.config().Train)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "the layout sets train settings; the program has no train block");
  auto C = std::make_unique<MeshCompile>(Checked, L.Mesh, L.Dims, L.Train,
                                         L.Placements);
  if (llvm::Error E = runPipeline(*C, Diags, {}, llvm::nulls()))
    return E;
  return C;
}

llvm::Error shardc::reschedule(MeshCompile &C, PipelineSchedule S,
                               int64_t Chunks, DiagnosticEngine &Diags) {
  if (!C.config().Train || !C.lowered())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "reschedule needs a compiled training step");
  C.setSchedule(S, Chunks);
  C.Tables.Partition.reset();
  C.Tables.Step.reset();
  C.Tables.Memory.reset();
  if (!checkPipelineSplits(C, Diags))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the bind-mesh pass reported errors");
  for (auto *Factory : {createScheduleStepPass, createCheckMemoryPass}) {
    std::unique_ptr<Pass> P = Factory();
    if (!P->run(C, Diags))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "the %s pass reported errors",
                                     P->name().str().c_str());
  }
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<MeshCompile>>
shardc::compileForMesh(const Module &Checked, const MeshSpec &Mesh,
                       DiagnosticEngine &Diags) {
  return compile(Checked, Layout{Mesh, DimSizeMap(), std::nullopt, nullptr},
                 Diags);
}
