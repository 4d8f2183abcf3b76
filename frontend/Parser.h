//===- Parser.h - From source buffer to AST ---------------------*- C++ -*-===//
//
// The only door to the ANTLR-generated parser. Checks the raw bytes (UTF-8, no
// NUL, size), lexes, enforces the nesting and statement-length limits that keep
// the recursive parser's stack bounded, parses, and builds the AST. Syntax
// errors are reported through the diagnostic engine; no exception escapes.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_FRONTEND_PARSER_H
#define SHARDC_FRONTEND_PARSER_H

#include "frontend/AST.h"
#include <memory>

namespace llvm {
class raw_ostream;
}

namespace shardc {
class DiagnosticEngine;

/// Limits that bound the parser's time and stack (docs/limits.md).
struct ParseLimits {
  /// The ANTLR runtime holds all tokens and the parse tree at once, 80-220
  /// bytes of memory per source byte: 16 MiB keeps a compile under ~3.5 GB.
  uint64_t MaxFileBytes = 16ull << 20;
  unsigned MaxNesting = 256;
  unsigned MaxStatementTokens = 10000;
};

/// Parses buffer \p BufferId of the engine's SourceMgr. Returns null when the
/// buffer has errors (already reported).
std::unique_ptr<FileAST> parseBuffer(unsigned BufferId, DiagnosticEngine &Diags,
                                     const ParseLimits &Limits = {});

/// Prints one token a line, `line:col KIND 'text'` (--emit=tokens). Returns
/// false when the buffer could not be lexed (errors reported).
bool dumpTokens(unsigned BufferId, DiagnosticEngine &Diags,
                llvm::raw_ostream &OS, const ParseLimits &Limits = {});

} // namespace shardc

#endif // SHARDC_FRONTEND_PARSER_H
