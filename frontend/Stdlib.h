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

/// The top-level names the stdlib files of one folder declare.
class StdlibIndex {
public:
  /// Parses every stdlib file in \p Dir.
  explicit StdlibIndex(llvm::StringRef Dir);
  /// Where \p Name is declared; the first file by name wins. Null when no
  /// stdlib file declares it, or the folder or file cannot be read or parsed.
  const StdlibDecl *find(llvm::StringRef Name) const;

private:
  void loadFile(llvm::StringRef Dir, const std::string &Name);

  llvm::StringMap<StdlibDecl> Decls;
};

/// The index of stdlib folder \p Dir, built at the first call for it and
/// kept for the process: parsing the stdlib costs several milliseconds, and
/// --split-input-file, the property tests and the fuzzers compile many
/// programs with undefined names.
const StdlibIndex &stdlibIndex(llvm::StringRef Dir);

} // namespace shardc

#endif // SHARDC_FRONTEND_STDLIB_H
