//===- Stdlib.h - The stdlib folder, for diagnostics ------------*- C++ -*-===//
//
// Read on error paths only, so that a correct compile never pays for it: a
// misspelt import looks here for the stdlib file it meant, and an undefined
// name for the stdlib file that declares it (a missing import).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_FRONTEND_STDLIB_H
#define SHARDC_FRONTEND_STDLIB_H

#include "frontend/AST.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include <string>
#include <vector>

namespace shardc {

/// The names of the `.shard` files directly in \p Dir, sorted; none when
/// \p Dir cannot be read.
std::vector<std::string> stdlibFileNames(llvm::StringRef Dir);

/// A top-level name a stdlib file declares.
struct StdlibDecl {
  std::string File; ///< the file's name in the stdlib folder: "nvidia.shard"
  DeclKind Kind;
};

/// The top-level names the stdlib files declare, parsed at the first lookup.
class StdlibIndex {
public:
  explicit StdlibIndex(std::string Dir) : Dir(std::move(Dir)) {}
  /// Where \p Name is declared; the first file by name wins. Null when no
  /// stdlib file declares it, or the folder or file cannot be read or parsed.
  const StdlibDecl *find(llvm::StringRef Name);

private:
  void loadFile(const std::string &Name);

  std::string Dir;
  bool Loaded = false;
  llvm::StringMap<StdlibDecl> Decls;
};

} // namespace shardc

#endif // SHARDC_FRONTEND_STDLIB_H
