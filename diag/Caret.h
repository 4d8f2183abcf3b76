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

namespace llvm {
class raw_ostream;
class SMDiagnostic;
} // namespace llvm

namespace shardc {

/// Prints the caret line (`^~~`) under \p D's source line when LLVM's
/// printer left it out because the line has non-ASCII bytes; otherwise
/// prints nothing.
void printCaretForNonAsciiLine(llvm::raw_ostream &OS,
                               const llvm::SMDiagnostic &D, bool Colors);

} // namespace shardc

#endif // SHARDC_DIAG_CARET_H
