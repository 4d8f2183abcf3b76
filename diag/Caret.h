//===- Caret.h - Carets under lines LLVM leaves unmarked --------*- C++ -*-===//
//
// llvm::SMDiagnostic::print shows the source line of a diagnostic but no
// caret when the line holds a non-ASCII byte, since its columns count bytes.
// shardc's sources have such lines: `µs` is a unit, and an invalid
// character is often a non-ASCII one. This prints the missing caret line,
// counting columns in code points.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_DIAG_CARET_H
#define SHARDC_DIAG_CARET_H

#include <cstddef>

namespace llvm {
class raw_ostream;
class SMDiagnostic;
class SourceMgr;
} // namespace llvm

namespace shardc {

/// Prints the caret line (`^~~`) under \p D's source line when LLVM's
/// printer left it out because the line has non-ASCII bytes; otherwise
/// prints nothing.
void printCaretForNonAsciiLine(llvm::raw_ostream &OS,
                               const llvm::SMDiagnostic &D, bool Colors);

/// Source lines longer than this (in bytes) are shown as a window around
/// the caret, as clang does: a 5 MB line printed whole, with its caret line,
/// was 10 MB of output for one error.
constexpr size_t MaxShownLine = 4096;
/// Bytes shown on each side of the caret in an elided line.
constexpr size_t LongLineContext = 64;

/// Prints \p D (its header, the window of its line around the caret marked
/// `...` where cut, and the caret line) when its line is longer than
/// MaxShownLine, and returns true; otherwise prints nothing and returns
/// false.
bool printLongLineMessage(const llvm::SourceMgr &SM, llvm::raw_ostream &OS,
                          const llvm::SMDiagnostic &D, bool Colors);

} // namespace shardc

#endif // SHARDC_DIAG_CARET_H
