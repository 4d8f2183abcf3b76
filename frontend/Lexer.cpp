//===- Lexer.cpp - The hand-written lexer of .shard files -----------------===//
//
// Each scan function mirrors one lexer rule of grammar/Shard.g4, including
// how ANTLR resolves it: the longest match wins, a keyword beats ID only at
// equal length, and when no longer rule matches, one code point is
// UNKNOWN_CHAR. Positions follow ANTLR too: lines advance on '\n' only and
// columns count code points.
//
//===----------------------------------------------------------------------===//
#include "frontend/Lexer.h"
#include "llvm/ADT/StringSwitch.h"
#include <string>

using namespace shardc;

llvm::StringRef shardc::tokenKindName(tok::Kind K) {
  static const char *const Names[] = {
      "EOF",
#define TOKEN(Name) #Name,
#include "frontend/TokenKinds.def"
  };
  return K < tok::NumKinds ? Names[K] : "?";
}

tok::Kind shardc::keywordKind(llvm::StringRef Word) {
  // Most words are names: every keyword is 3 to 7 lowercase letters.
  if (Word.size() < 3 || Word.size() > 7 || Word[0] < 'c' || Word[0] > 't')
    return tok::ID;
  return llvm::StringSwitch<tok::Kind>(Word)
#define KEYWORD(Name, Spelling) .Case(Spelling, tok::Name)
#include "frontend/TokenKinds.def"
      .Default(tok::ID);
}

llvm::ArrayRef<std::string> shardc::keywordSpellings() {
  static const std::string Spellings[] = {
#define KEYWORD(Name, Spelling) Spelling,
#include "frontend/TokenKinds.def"
  };
  return Spellings;
}

namespace {

bool isDigit(unsigned char C) { return C >= '0' && C <= '9'; }
bool isIdStart(unsigned char C) {
  return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') || C == '_';
}
bool isIdContinue(unsigned char C) { return isIdStart(C) || isDigit(C); }
bool isContinuationByte(unsigned char C) { return (C & 0xC0) == 0x80; }

/// The kind of a one-character token, or UNKNOWN_CHAR.
tok::Kind punctKind(char C) {
  switch (C) {
#define PUNCT(Name, Char)                                                      \
  case Char:                                                                   \
    return tok::Name;
#include "frontend/TokenKinds.def"
  default:
    return tok::UNKNOWN_CHAR;
  }
}

} // namespace

Lexeme Lexer::next() {
  skipWhitespace();
  Lexeme L;
  L.Offset = uint32_t(Pos);
  L.Line = Line;
  L.Column = Col;
  if (Pos >= Buf.size())
    return L;
  size_t End = Pos + 1;
  L.Kind = scan(End);
  L.Length = uint32_t(End - Pos);
  // IDs, numbers, keywords and punctuation are ASCII on one line: a column
  // per byte. Only comments, strings and non-ASCII tokens need counting.
  if (L.Kind <= tok::ID || L.Kind == tok::NUMBER ||
      (L.Kind >= tok::LBRACE && L.Kind <= tok::LE)) {
    Col += L.Length;
    Pos = End;
  } else {
    advanceTo(End);
  }
  return L;
}

/// WS : [ \t\r\n\f]+ -> skip ;
void Lexer::skipWhitespace() {
  for (size_t E = Buf.size(); Pos < E; ++Pos) {
    char C = Buf[Pos];
    if (C == '\n') {
      ++Line;
      Col = 0;
    } else if (C == ' ' || C == '\t' || C == '\r' || C == '\f') {
      ++Col;
    } else {
      return;
    }
  }
}

/// The kind of the token at Pos, and its end in \p End.
tok::Kind Lexer::scan(size_t &End) const {
  unsigned char C = Buf[Pos];
  // ID : [A-Za-z_] [A-Za-z0-9_]* ; a keyword rule wins at equal length.
  if (isIdStart(C)) {
    while (End < Buf.size() && isIdContinue(Buf[End]))
      ++End;
    return keywordKind(Buf.slice(Pos, End));
  }
  if (isDigit(C)) {
    End = scanNumber(Pos + 1);
    return tok::NUMBER;
  }
  if (C == '/')
    return scanSlash(End);
  return scanOther(End);
}

/// NUMBER : [0-9] [0-9_]* ('.' [0-9] [0-9_]*)? ([eE] [+-]? [0-9]+)? ;
/// The optional parts are taken only when complete, as the longest match
/// does: `1.e5` is NUMBER '1', DOT, ID 'e5'; `2e+` is NUMBER '2', ID, PLUS.
size_t Lexer::scanNumber(size_t I) const {
  size_t E = Buf.size();
  auto DigitsOrUnderscores = [&](size_t J) {
    while (J < E && (isDigit(Buf[J]) || Buf[J] == '_'))
      ++J;
    return J;
  };
  I = DigitsOrUnderscores(I);
  if (I + 1 < E && Buf[I] == '.' && isDigit(Buf[I + 1]))
    I = DigitsOrUnderscores(I + 2);
  if (I < E && (Buf[I] == 'e' || Buf[I] == 'E')) {
    size_t J = I + 1;
    if (J < E && (Buf[J] == '+' || Buf[J] == '-'))
      ++J;
    if (J < E && isDigit(Buf[J])) {
      while (J < E && isDigit(Buf[J]))
        ++J;
      I = J;
    }
  }
  return I;
}

/// LINE_COMMENT : '//' ~[\r\n]* ;  BLOCK_COMMENT : '/*' .*? ('*/' | EOF) ;
/// SLASH : '/' ;
tok::Kind Lexer::scanSlash(size_t &End) const {
  char Next = Pos + 1 < Buf.size() ? Buf[Pos + 1] : '\0';
  if (Next == '/') {
    End = Buf.find_first_of("\r\n", Pos + 2);
    if (End == llvm::StringRef::npos)
      End = Buf.size();
    return tok::LINE_COMMENT;
  }
  if (Next == '*') {
    // Non-greedy: the first `*/` after the opening `/*` closes it, so `/*/`
    // does not.
    End = Buf.find("*/", Pos + 2);
    End = End == llvm::StringRef::npos ? Buf.size() : End + 2;
    return tok::BLOCK_COMMENT;
  }
  return tok::SLASH;
}

/// STRING : '"' ~["\\\r\n]* '"' ; the one- and two-character tokens;
/// MICRO_UNIT : [\u00B5\u03BC] [A-Za-z0-9_]* ; and UNKNOWN_CHAR : . ; for
/// anything else, one code point long.
tok::Kind Lexer::scanOther(size_t &End) const {
  unsigned char C = Buf[Pos];
  if (C == '"') {
    size_t Close = Buf.find_first_of("\"\\\r\n", Pos + 1);
    // An unterminated string matches no rule but UNKNOWN_CHAR (its quote).
    if (Close != llvm::StringRef::npos && Buf[Close] == '"') {
      End = Close + 1;
      return tok::STRING;
    }
    return tok::UNKNOWN_CHAR;
  }
  if (C >= 0x80) {
    // The micro sign is C2 B5 in UTF-8, the Greek mu CE BC.
    llvm::StringRef Rest = Buf.drop_front(Pos);
    if (Rest.startswith("\xC2\xB5") || Rest.startswith("\xCE\xBC")) {
      End = Pos + 2;
      while (End < Buf.size() && isIdContinue(Buf[End]))
        ++End;
      return tok::MICRO_UNIT;
    }
    // One code point: the lead byte and its continuation bytes.
    while (End < Buf.size() && End - Pos < 4 && isContinuationByte(Buf[End]))
      ++End;
    return tok::UNKNOWN_CHAR;
  }
  // DOTDOT : '..' ; LE : '<=' ; the longest match beats DOT (`<` alone is
  // UNKNOWN_CHAR).
  char Next = Pos + 1 < Buf.size() ? Buf[Pos + 1] : '\0';
  if ((C == '.' && Next == '.') || (C == '<' && Next == '=')) {
    End = Pos + 2;
    return C == '.' ? tok::DOTDOT : tok::LE;
  }
  return punctKind(char(C));
}

/// Moves Pos to \p End, counting lines and code points as ANTLR does.
void Lexer::advanceTo(size_t End) {
  for (; Pos < End; ++Pos) {
    unsigned char C = Buf[Pos];
    if (C == '\n') {
      ++Line;
      Col = 0;
    } else if (!isContinuationByte(C)) {
      ++Col;
    }
  }
}
