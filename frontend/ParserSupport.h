//===- ParserSupport.h - Shared state of the ANTLR adapter ------*- C++ -*-===//
//
// Private to the files that touch the generated parser (Parser.cpp,
// SyntaxErrors.cpp, ASTBuilder.cpp): token positions as SMLocs, the
// builder of one item's AST, and the listener that turns ANTLR's syntax
// errors into diagnostics.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_FRONTEND_PARSERSUPPORT_H
#define SHARDC_FRONTEND_PARSERSUPPORT_H

#include "ShardParser.h"
#include "frontend/AST.h"
#include "llvm/ADT/StringRef.h"

namespace shardc {
class DiagnosticEngine;

/// Turns token positions into SMLocs. Tokens come from the hand-written
/// lexer, whose start and stop indices are byte offsets into the buffer.
class SourceText {
public:
  explicit SourceText(llvm::StringRef Buffer) : Buffer(Buffer) {}
  llvm::SMLoc loc(size_t Byte) const {
    return llvm::SMLoc::getFromPointer(Buffer.data() +
                                       std::min(Byte, Buffer.size()));
  }
  llvm::SMRange range(antlr4::Token *T) const;
  llvm::SMRange range(antlr4::ParserRuleContext *C) const;
  Ident ident(antlr4::tree::TerminalNode *N) const;
  Ident ident(antlr4::Token *T) const;
  llvm::StringRef text(antlr4::Token *T) const;
  llvm::StringRef buffer() const { return Buffer; }

private:
  llvm::StringRef Buffer;
};

/// Builds the AST of one item that parsed without errors.
DeclPtr buildItem(shardgen::ShardParser::ItemContext *Item,
                  const SourceText &Text);

/// Thrown out of the parser once the error limit is reached: nothing after
/// it would be reported, so the rest of the file is not read.
struct StopParsing {};

/// Routes ANTLR's syntax errors to the engine, worded our way (what was
/// found, then what was expected), one per line.
class SyntaxErrorListener final : public antlr4::BaseErrorListener {
public:
  SyntaxErrorListener(DiagnosticEngine &D, const SourceText &T)
      : Diags(D), Text(T) {}
  void syntaxError(antlr4::Recognizer *R, antlr4::Token *Bad, size_t Line,
                   size_t Column, const std::string &Msg,
                   std::exception_ptr E) override;
  bool failed() const { return Failed; }

private:
  void report(antlr4::Recognizer *R, antlr4::Token *Bad, const std::string &Msg,
              std::exception_ptr E);

  DiagnosticEngine &Diags;
  const SourceText &Text;
  bool Failed = false;
  /// The line of the last error reported, and a second line it covers (the
  /// line a missing ';' made unreadable, or 0).
  size_t LastLine = 0, AlsoCovered = 0;
};

} // namespace shardc

#endif
