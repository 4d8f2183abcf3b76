//===- Stdlib.cpp - What the stdlib folder offers, for diagnostics --------===//
#include "frontend/Stdlib.h"
#include "diag/Diagnostic.h"
#include "frontend/Compiler.h"
#include "frontend/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <mutex>

using namespace shardc;

std::vector<std::string> shardc::stdlibFileNames(llvm::StringRef Dir) {
  std::vector<std::string> Names;
  if (Dir.empty())
    return Names;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC)) {
    llvm::StringRef Name = llvm::sys::path::filename(It->path());
    if (Name.endswith(".shard"))
      Names.push_back(Name.str());
  }
  // Directory order is the file system's; a suggestion must not depend on it.
  std::sort(Names.begin(), Names.end());
  return Names;
}

StdlibIndex::StdlibIndex(llvm::StringRef Dir) {
  for (const std::string &File : stdlibFileNames(Dir))
    loadFile(Dir, File);
}

const StdlibDecl *StdlibIndex::find(llvm::StringRef Name) const {
  auto It = Decls.find(Name);
  return It == Decls.end() ? nullptr : &It->second;
}

const StdlibIndex &shardc::stdlibIndex(llvm::StringRef Dir) {
  // The driver compiles on a worker thread; tests may compile on several.
  static std::mutex Lock;
  static llvm::StringMap<std::unique_ptr<StdlibIndex>> Indexes;
  std::lock_guard<std::mutex> Guard(Lock);
  std::unique_ptr<StdlibIndex> &Index = Indexes[Dir];
  if (!Index)
    Index = std::make_unique<StdlibIndex>(Dir);
  return *Index;
}

/// Parses one stdlib file on the side, with its own SourceMgr and a silent
/// engine: its errors, if any, belong to no compile, and a file that does
/// not parse only means fewer hints.
void StdlibIndex::loadFile(llvm::StringRef Dir, const std::string &Name) {
  llvm::SmallString<256> Path(Dir);
  llvm::sys::path::append(Path, Name);
  ParseLimits Limits;
  auto Buffer = readSourceFile(Path, Limits.MaxFileBytes);
  if (!Buffer)
    return;
  llvm::SourceMgr SM;
  unsigned Id = SM.AddNewSourceBuffer(std::move(*Buffer), llvm::SMLoc());
  DiagnosticEngine Silent(SM);
  Silent.setHandler([](const Diagnostic &) {});
  std::unique_ptr<FileAST> F = parseBuffer(Id, Silent, Limits);
  if (!F)
    return;
  auto add = [&](const Ident &Id, DeclKind K) {
    Decls.try_emplace(Id.Name, StdlibDecl{Name, K});
  };
  for (const DeclPtr &D : F->Items) {
    if (auto *C = llvm::dyn_cast<ChipDecl>(D.get()))
      add(C->Name, D->Kind);
    else if (auto *Cl = llvm::dyn_cast<ClusterDecl>(D.get()))
      add(Cl->Name, D->Kind);
    else if (auto *M = llvm::dyn_cast<MeshDecl>(D.get()))
      add(M->Name, D->Kind);
    else if (auto *Dim = llvm::dyn_cast<DimDecl>(D.get()))
      for (const Binding &B : Dim->Bindings)
        add(B.Name, D->Kind);
    else if (auto *L = llvm::dyn_cast<LetDecl>(D.get()))
      for (const Binding &B : L->Bindings)
        add(B.Name, D->Kind);
  }
}
