//===- Parser.h - From source buffer to AST ---------------------*- C++ -*-===//
//
// The only door to the ANTLR-generated parser. Checks the raw bytes (UTF-8, no
// NUL, size), lexes (with the hand-written lexer, frontend/Lexer.h), enforces
// the nesting and statement-length limits that keep the recursive parser's
// stack bounded, parses, and builds the AST item by item. Syntax errors are
// reported through the diagnostic engine; no exception escapes.
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
  /// The frontend takes 12-28 bytes of memory per source byte, the whole
  /// compile up to ~90 (the IR and passes): 16 MiB keeps it under ~1.5 GB.
  uint64_t MaxFileBytes = 16ull << 20;
  unsigned MaxNesting = 256;
  unsigned MaxStatementTokens = 10000;
};

/// What one parse read and held, for tests of its bounds.
struct ParseStats {
  /// Tokens the parser was given: fewer than the file's once the error
  /// limit stops it.
  uint64_t TokensRead = 0;
  /// The most tokens held at once: one item's, not the file's.
  uint64_t MaxTokensHeld = 0;
};

/// Parses buffer \p BufferId of the engine's SourceMgr. Returns null when the
/// buffer has errors (already reported).
std::unique_ptr<FileAST> parseBuffer(unsigned BufferId, DiagnosticEngine &Diags,
                                     const ParseLimits &Limits = {},
                                     ParseStats *Stats = nullptr);

/// Prints one token a line, `line:col KIND 'text'` (--emit=tokens). Returns
/// false when the buffer could not be lexed (errors reported).
bool dumpTokens(unsigned BufferId, DiagnosticEngine &Diags,
                llvm::raw_ostream &OS, const ParseLimits &Limits = {});

} // namespace shardc

#endif // SHARDC_FRONTEND_PARSER_H
