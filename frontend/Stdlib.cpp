//===- Stdlib.cpp - What the stdlib folder offers, for diagnostics --------===//
#include "frontend/Stdlib.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <algorithm>

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
