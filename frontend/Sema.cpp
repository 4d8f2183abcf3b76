//===- Sema.cpp - Symbols and the two phases of checking ------------------===//
#include "frontend/Sema.h"
#include "llvm/ADT/StringExtras.h"

using namespace shardc;

llvm::StringRef shardc::symKindName(SymKind K) {
  switch (K) {
  case SymKind::Chip:
    return "chip";
  case SymKind::Cluster:
    return "cluster";
  case SymKind::Mesh:
    return "mesh";
  case SymKind::Dim:
    return "dim";
  case SymKind::Let:
    return "let constant";
  case SymKind::Tensor:
    return "tensor";
  }
  return "name";
}

Sema::Sema(DiagnosticEngine &Diags, Program &P)
    : Diags(Diags), P(P), Info(std::make_shared<ProgramInfo>()) {}

Symbol *Sema::lookup(llvm::StringRef Name) {
  for (auto It = Scopes.rbegin(); It != Scopes.rend(); ++It) {
    auto Found = It->find(Name);
    if (Found != It->end())
      return &Found->second;
  }
  return nullptr;
}

bool Sema::declare(const Ident &Name, Symbol S) {
  auto [It, Inserted] = Scopes.back().try_emplace(Name.Name, S);
  if (Inserted)
    return true;
  Diags.report(Name.Range, diag::Redeclaration, Name.Name);
  Diags.report(It->second.Range, diag::PreviousDeclaration, Name.Name);
  return false;
}

std::vector<std::string> Sema::namesOf(llvm::ArrayRef<SymKind> Kinds) const {
  std::vector<std::string> Out;
  for (const auto &Scope : Scopes)
    for (const auto &Entry : Scope)
      if (llvm::is_contained(Kinds, Entry.second.Kind))
        Out.push_back(Entry.first().str());
  return Out;
}

/// The symbol kind a top-level declaration of kind \p K declares, if any.
static std::optional<SymKind> declaredKind(DeclKind K) {
  switch (K) {
  case DeclKind::Chip:
    return SymKind::Chip;
  case DeclKind::Cluster:
    return SymKind::Cluster;
  case DeclKind::Mesh:
    return SymKind::Mesh;
  case DeclKind::Dim:
    return SymKind::Dim;
  case DeclKind::Let:
    return SymKind::Let;
  // A stdlib file's tensors and statements are not names a user imports.
  case DeclKind::Import:
  case DeclKind::Config:
  case DeclKind::Train:
  case DeclKind::Search:
  case DeclKind::Serve:
  case DeclKind::Tensor:
  case DeclKind::Param:
  case DeclKind::Cache:
  case DeclKind::Repeat:
  case DeclKind::Assign:
    return std::nullopt;
  }
  return std::nullopt;
}

/// The stdlib file that declares \p Name as one of \p Kinds. The stdlib is
/// parsed at the first undefined name, so a correct program never reads it
/// again.
std::optional<std::string>
Sema::stdlibFileDeclaring(llvm::StringRef Name, llvm::ArrayRef<SymKind> Kinds) {
  if (!Stdlib)
    Stdlib = &stdlibIndex(P.StdlibDir);
  const StdlibDecl *D = Stdlib->find(Name);
  std::optional<SymKind> K = D ? declaredKind(D->Kind) : std::nullopt;
  if (!K || !llvm::is_contained(Kinds, *K))
    return std::nullopt;
  return D->File;
}

void Sema::reportUndefined(const Ident &Name, llvm::StringRef What,
                           llvm::ArrayRef<SymKind> Kinds) {
  // A name the stdlib declares is a missing import, not a typo: say which
  // import provides it instead of suggesting a name that merely looks alike.
  if (std::optional<std::string> File = stdlibFileDeclaring(Name.Name, Kinds)) {
    Diags.report(Name.Range, diag::UndefinedName, What, Name.Name);
    Diags.report(Name.Range, diag::DeclaredInStdlib, Name.Name, *File);
    return;
  }
  if (auto Best = closestName(Name.Name, namesOf(Kinds)))
    Diags.report(Name.Range, diag::UndefinedNameSuggest, What, Name.Name,
                 *Best);
  else
    Diags.report(Name.Range, diag::UndefinedName, What, Name.Name);
}

bool Sema::run() {
  if (!P.Files.empty())
    for (const DeclPtr &D : P.Files.back()->Items)
      HasServe |= D && D->Kind == DeclKind::Serve;
  for (const auto &F : P.Files) {
    InMainFile = &F == &P.Files.back();
    for (const DeclPtr &D : F->Items) {
      if (Diags.shouldStop())
        return false;
      declareItem(*D);
    }
  }
  bindPerStep();
  bindPhaseDims();
  for (const auto &F : P.Files)
    for (DeclPtr &D : F->Items) {
      if (Diags.shouldStop())
        return false;
      programItem(*D);
      // Nothing reads a tensor's, a param's or a statement's AST once it is
      // lowered (the module owns what it refers to): freed as we go, the
      // ASTs of a large program never sit beside its whole IR.
      if (D->Kind == DeclKind::Tensor || D->Kind == DeclKind::Param ||
          D->Kind == DeclKind::Cache || D->Kind == DeclKind::Assign)
        D.reset();
    }
  reportUndivisible();
  if (!Diags.hasErrors())
    warnTensorParallelSpan();
  // A program with a mesh but no tensors still has a (empty) module, so its
  // IR and report show the mesh; with no tensor asking, no error is due.
  if (!MeshChosen)
    chooseMesh(llvm::SMRange());
  checkPipelineAxisUnused();
  checkPipelineSettings();
  // A statement that failed in the pipelined repeat can leave it without
  // its carried value: the crossings are checked only on a body that
  // lowered whole.
  if (!PipelineBodyFailed)
    checkPipelineCrossings();
  if (!Diags.hasErrors())
    checkPerStepIsBatch();
  if (TrainBlock && !AnyParam && !Diags.hasErrors())
    Diags.report(TrainBlock->Range.Start, diag::TrainWithoutParams);
  if (TrainBlock && AnyParam && !Diags.hasErrors())
    warnTensorsLikeParams();
  if (TrainBlock && Config.Train && !Diags.hasErrors())
    markFp8Gemms();
  finishSearch();
  finishServe();
  return !Diags.hasErrors();
}

bool shardc::checkProgram(DiagnosticEngine &Diags, Program &P) {
  Sema S(Diags, P);
  return S.run();
}
