//===- Lexer.h - The hand-written lexer of .shard files ---------*- C++ -*-===//
//
// Splits a UTF-8 buffer into the tokens of grammar/Shard.g4's lexer rules:
// the same kinds, texts, lines and columns as the ANTLR-generated lexer
// (tests/unit/LexerEquivalenceTest.cpp checks it token by token), without
// its cost: no UTF-32 copy of the file, no token objects, no allocation.
// Tokens are offsets into the caller's buffer, produced one at a time, so
// lexing a file never holds more than one token.
//
// The generated lexer stays the normative one; this one mirrors each rule
// (see Lexer.cpp). Whitespace is skipped; comments are tokens, as on ANTLR's
// hidden channel, because the checks before parsing look at them.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_FRONTEND_LEXER_H
#define SHARDC_FRONTEND_LEXER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <string>

namespace shardc {

namespace tok {
/// Token kinds, numbered as ANTLR numbers them; EndOfFile is ours (ANTLR's
/// EOF is -1, which the adapter maps).
enum Kind : uint8_t {
  EndOfFile = 0,
#define TOKEN(Name) Name,
#include "frontend/TokenKinds.def"
  NumKinds
};
} // namespace tok

/// The grammar's name of \p K (`ID`, `LBRACE`, `EOF`).
llvm::StringRef tokenKindName(tok::Kind K);
/// Comments: ANTLR puts them on the hidden channel, the parser never sees them.
inline bool isHiddenToken(tok::Kind K) {
  return K == tok::LINE_COMMENT || K == tok::BLOCK_COMMENT;
}
/// The keyword spelt \p Word, or ID.
tok::Kind keywordKind(llvm::StringRef Word);
/// Every keyword's spelling, for "did you mean".
llvm::ArrayRef<std::string> keywordSpellings();

/// One token: where it is in the buffer and where ANTLR would say it is.
struct Lexeme {
  tok::Kind Kind = tok::EndOfFile;
  uint32_t Offset = 0; ///< byte offset of the first byte
  uint32_t Length = 0; ///< in bytes; 0 for EndOfFile
  uint32_t Line = 1;   ///< 1-based; only '\n' starts a line, as in ANTLR
  uint32_t Column = 0; ///< 0-based, in code points, as ANTLR counts
};

class Lexer {
public:
  /// Largest buffer whose offsets fit a Lexeme; ParseLimits stays below it.
  static constexpr uint64_t MaxBytes = UINT32_MAX;

  /// \p Buffer must outlive the lexer and be at most MaxBytes long. It should
  /// be valid UTF-8 without NUL (the parser checks first); anything else
  /// still lexes, as UNKNOWN_CHAR tokens.
  explicit Lexer(llvm::StringRef Buffer) : Buf(Buffer) {}

  /// The next token, comments included; EndOfFile at the end, and again on
  /// every later call.
  Lexeme next();

  llvm::StringRef text(const Lexeme &L) const {
    return Buf.substr(L.Offset, L.Length);
  }
  llvm::StringRef buffer() const { return Buf; }
  /// Where the next token would start (ANTLR's TokenSource asks).
  uint32_t line() const { return Line; }
  uint32_t column() const { return Col; }

private:
  void skipWhitespace();
  tok::Kind scan(size_t &End) const;
  size_t scanNumber(size_t I) const;
  tok::Kind scanSlash(size_t &End) const;
  tok::Kind scanOther(size_t &End) const;
  void advanceTo(size_t End);

  llvm::StringRef Buf;
  size_t Pos = 0;
  uint32_t Line = 1;
  uint32_t Col = 0;
};

} // namespace shardc

#endif // SHARDC_FRONTEND_LEXER_H
