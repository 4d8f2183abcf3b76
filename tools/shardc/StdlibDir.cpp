//===- StdlibDir.cpp - Where the running shardc's stdlib is ---------------===//
#include "StdlibDir.h"
#include "shardc/Config.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

/// The stdlib folder, found relative to the running binary (not to the
/// source tree it was built from), so that an install can be moved and a
/// build outlives its clone. The build tree has the same layout as an
/// install (stdlib/CMakeLists.txt). An error when it is missing or unreadable:
/// shardc is then broken, whatever the input.
llvm::Expected<std::string> shardc::findStdlibDir(const char *Argv0) {
  static int Anchor; // any symbol of this binary, for getMainExecutable
  std::string Exe = llvm::sys::fs::getMainExecutable(Argv0, &Anchor);
  if (Exe.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot find the shardc binary's folder, "
                                   "where its stdlib is");
  llvm::SmallString<256> Dir(llvm::sys::path::parent_path(Exe));
  llvm::sys::path::append(Dir, SHARDC_STDLIB_FROM_BIN);
  llvm::sys::path::remove_dots(Dir, /*remove_dot_dot=*/true);
  std::error_code EC;
  llvm::sys::fs::directory_iterator It(Dir, EC);
  if (EC) {
    std::string Msg =
        "cannot read the stdlib folder '" + Dir.str().str() +
        "': " + EC.message() + " (shardc looks for it at '" +
        SHARDC_STDLIB_FROM_BIN +
        "' from its own folder; reinstall with 'cmake --install')";
    return llvm::createStringError(EC, Msg.c_str());
  }
  return std::string(Dir.str());
}
