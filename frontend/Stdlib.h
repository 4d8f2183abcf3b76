//===- Stdlib.h - The stdlib folder, for diagnostics ------------*- C++ -*-===//
//
// Read on error paths only, so that a correct compile never pays for it: a
// misspelt import looks here for the stdlib file it meant.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_FRONTEND_STDLIB_H
#define SHARDC_FRONTEND_STDLIB_H

#include "llvm/ADT/StringRef.h"
#include <string>
#include <vector>

namespace shardc {

/// The names of the `.shard` files directly in \p Dir, sorted; none when
/// \p Dir cannot be read.
std::vector<std::string> stdlibFileNames(llvm::StringRef Dir);

} // namespace shardc

#endif // SHARDC_FRONTEND_STDLIB_H
