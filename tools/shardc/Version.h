//===- Version.h - What --version prints ------------------------*- C++ -*-===//
#ifndef SHARDC_TOOLS_VERSION_H
#define SHARDC_TOOLS_VERSION_H

#include "llvm/Support/raw_ostream.h"

namespace shardc {

/// Prints `shardc <version>` and, on a second line, the allocator the process
/// runs on: a user comparing timings can see whether it is mimalloc.
void printVersion(llvm::raw_ostream &OS);

} // namespace shardc

#endif // SHARDC_TOOLS_VERSION_H
