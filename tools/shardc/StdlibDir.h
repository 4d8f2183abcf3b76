//===- StdlibDir.h - Where the running shardc's stdlib is -------*- C++ -*-===//
#ifndef SHARDC_TOOLS_STDLIBDIR_H
#define SHARDC_TOOLS_STDLIBDIR_H

#include "llvm/Support/Error.h"
#include <string>

namespace shardc {

/// The stdlib folder, relative to the running binary (\p Argv0): an error
/// when it is missing or unreadable (docs/cli.md, the stdlib folder).
llvm::Expected<std::string> findStdlibDir(const char *Argv0);

} // namespace shardc

#endif
