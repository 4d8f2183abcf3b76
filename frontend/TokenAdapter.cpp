//===- TokenAdapter.cpp - The hand-written lexer behind ANTLR's API -------===//
//
// Owns ShardToken, LexerTokenSource and ItemTokenStream, and the check that
// frontend/TokenKinds.def numbers the kinds as the generated lexer does.
//
//===----------------------------------------------------------------------===//
#include "frontend/TokenAdapter.h"
#include "ShardLexer.h"
#include <fmt/format.h>

using namespace shardc;

// The parser matches token numbers: ours must be the generated lexer's.
#define TOKEN(Name)                                                            \
  static_assert(unsigned(tok::Name) == unsigned(shardgen::ShardLexer::Name),   \
                "TokenKinds.def is out of step with grammar/Shard.g4");
#include "frontend/TokenKinds.def"
static_assert(unsigned(tok::NumKinds) - 1 ==
                  unsigned(shardgen::ShardLexer::UNKNOWN_CHAR),
              "grammar/Shard.g4 has token kinds TokenKinds.def lacks");

std::string ShardToken::getText() const {
  // ANTLR's EOF token reads "<EOF>" (CommonToken::getText).
  if (L.Kind == tok::EndOfFile)
    return "<EOF>";
  return Source->buffer().substr(L.Offset, L.Length).str();
}

antlr4::TokenSource *ShardToken::getTokenSource() const { return Source; }

std::string ShardToken::toString() const {
  return fmt::format("[@{},{}:{}='{}',<{}>,{}:{}]", ssize_t(Index), L.Offset,
                     ssize_t(getStopIndex()), getText(), tokenKindName(L.Kind),
                     L.Line, L.Column);
}

void ItemTokenStream::fill(size_t I) {
  while (!SawEOF && End <= I) {
    Lexeme L = Source.nextLexeme();
    if (isHiddenToken(L.Kind))
      continue;
    SawEOF = L.Kind == tok::EndOfFile;
    if ((End & (ChunkSize - 1)) == 0) {
      Chunks.push_back(std::make_unique<Chunk>());
      Chunks.back()->Tokens.reserve(ChunkSize);
    }
    Chunks.back()->Tokens.emplace_back(&Source, L).setTokenIndex(End++);
    MaxHeld = std::max(MaxHeld, End - Base);
  }
}

antlr4::Token *ItemTokenStream::LT(ssize_t K) {
  if (K == 0)
    return nullptr;
  if (K < 0) {
    if (size_t(-K) > P || P - size_t(-K) < Base)
      return nullptr;
    return &at(P - size_t(-K));
  }
  size_t I = P + size_t(K) - 1;
  if (I >= End)
    fill(I);
  // Past the end is EOF, again and again.
  return &at(std::min(I, End - 1));
}

size_t ItemTokenStream::LA(ssize_t I) {
  // LA(1), the parser's most frequent call, without LT's cases.
  if (LLVM_LIKELY(I == 1)) {
    if (P >= End)
      fill(P);
    return at(std::min(P, End - 1)).type();
  }
  antlr4::Token *T = LT(I);
  return T ? T->getType() : antlr4::Token::INVALID_TYPE;
}

antlr4::Token *ItemTokenStream::get(size_t I) const {
  if (I < Base || I >= End)
    throw antlr4::IndexOutOfBoundsException(
        fmt::format("token {} is not buffered", I));
  return &at(I);
}

void ItemTokenStream::consume() {
  if (LA(1) == antlr4::Token::EOF)
    throw antlr4::IllegalStateException("cannot consume EOF");
  ++P;
}

std::string ItemTokenStream::getSourceName() const {
  return Source.getSourceName();
}

std::string ItemTokenStream::getText() {
  return getText(antlr4::misc::Interval(Base, End));
}

std::string ItemTokenStream::getText(const antlr4::misc::Interval &I) {
  std::string Out;
  if (I.a < 0 || I.b < 0)
    return Out;
  for (size_t K = std::max(size_t(I.a), Base); K <= size_t(I.b) && K < End;
       ++K) {
    if (at(K).getType() == antlr4::Token::EOF)
      break;
    Out += at(K).getText();
  }
  return Out;
}

std::string ItemTokenStream::getText(antlr4::RuleContext *Ctx) {
  return getText(Ctx->getSourceInterval());
}

std::string ItemTokenStream::getText(antlr4::Token *Start,
                                     antlr4::Token *Stop) {
  if (!Start || !Stop)
    return "";
  return getText(
      antlr4::misc::Interval(Start->getTokenIndex(), Stop->getTokenIndex()));
}

void ItemTokenStream::discardBefore(size_t I) {
  // Whole chunks go; the last one stays, for LT(-1) and EOF.
  Base = std::max(Base, std::min(I, End ? End - 1 : 0));
  while (Chunks.size() > 1 && (FirstChunk + 1) * ChunkSize <= Base) {
    Chunks.pop_front();
    ++FirstChunk;
  }
}
