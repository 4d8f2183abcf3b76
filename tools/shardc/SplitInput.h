//===- SplitInput.h - `// -----` separated programs in one file -*- C++ -*-===//
//
// The driver's --split-input-file: a file of several programs separated by
// lines that are exactly `// -----` (MLIR's convention).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_TOOLS_SPLITINPUT_H
#define SHARDC_TOOLS_SPLITINPUT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include <memory>
#include <optional>
#include <vector>

namespace shardc {

/// Whether \p Line is a separator, `// -----` (a trailing CR allowed).
bool isSplitMarker(llvm::StringRef Line);

/// The line number of \p Text's first separator, if it has one.
std::optional<unsigned> firstSplitMarker(llvm::StringRef Text);

/// Splits \p Buffer at its separators. Each chunk is prefixed with the
/// newlines of the lines before it, so diagnostics and expectations keep
/// the original file's line numbers.
std::vector<std::unique_ptr<llvm::MemoryBuffer>>
splitInput(const llvm::MemoryBuffer &Buffer);

} // namespace shardc

#endif
