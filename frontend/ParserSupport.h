//===- ParserSupport.h - Shared state of the ANTLR adapter ------*- C++ -*-===//
//
// Private to Parser.cpp and ASTBuilder.cpp, the two files that touch the
// generated parser: turning ANTLR's code-point positions into SMLocs.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_FRONTEND_PARSERSUPPORT_H
#define SHARDC_FRONTEND_PARSERSUPPORT_H

#include "ShardParser.h"
#include "frontend/AST.h"
#include "llvm/ADT/StringRef.h"
#include <vector>

namespace shardc {

/// ANTLR counts code points; SourceMgr wants pointers into the UTF-8 bytes.
class SourceText {
public:
  explicit SourceText(llvm::StringRef Buffer);
  llvm::SMLoc loc(size_t CodePoint) const;
  llvm::SMRange range(antlr4::Token *T) const;
  llvm::SMRange range(antlr4::ParserRuleContext *C) const;
  Ident ident(antlr4::tree::TerminalNode *N) const;
  Ident ident(antlr4::Token *T) const;
  llvm::StringRef buffer() const { return Buffer; }

private:
  llvm::StringRef Buffer;
  std::vector<uint32_t> ByteOfCodePoint; ///< empty when the text is ASCII
};

/// Builds the AST of a file that parsed without errors.
std::unique_ptr<FileAST> buildAST(shardgen::ShardParser::FileContext *Tree,
                                  const SourceText &Text, unsigned BufferId);

} // namespace shardc

#endif
