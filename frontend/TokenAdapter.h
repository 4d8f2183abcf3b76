//===- TokenAdapter.h - The hand-written lexer behind ANTLR's API -*- C++
//-*-===//
//
// Private to the ANTLR adapter (Parser.cpp and its helpers) and to the test
// that compares the lexers: the hand-written Lexer as an ANTLR TokenSource,
// its tokens as ANTLR Tokens, and a TokenStream that keeps only the tokens of
// the item being parsed. ANTLR's CommonTokenStream keeps every token of the
// file (about 100 bytes each, plus a UTF-32 copy of the source); this one
// frees them item by item, as the parse trees are.
//
// Token positions: line and column are ANTLR's (columns in code points);
// start and stop indices are byte offsets into the UTF-8 buffer, not the
// code-point indices of ANTLR's CharStream, because every consumer of
// positions here wants a pointer into the buffer.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_FRONTEND_TOKENADAPTER_H
#define SHARDC_FRONTEND_TOKENADAPTER_H

#include "antlr4-runtime.h"
#include "frontend/Lexer.h"
#include <deque>
#include <memory>
#include <string>

namespace shardc {

class LexerTokenSource;

/// One token of the hand-written lexer, as the generated parser sees it.
class ShardToken final : public antlr4::Token {
public:
  ShardToken(LexerTokenSource *Source, const Lexeme &L)
      : Source(Source), L(L) {}

  std::string getText() const override;
  size_t getType() const override { return type(); }
  /// getType() without the virtual call, for the token stream's LA(1).
  size_t type() const {
    return L.Kind == tok::EndOfFile ? size_t(EOF) : size_t(L.Kind);
  }
  size_t getLine() const override { return L.Line; }
  size_t getCharPositionInLine() const override { return L.Column; }
  size_t getChannel() const override {
    return isHiddenToken(L.Kind) ? HIDDEN_CHANNEL : DEFAULT_CHANNEL;
  }
  size_t getTokenIndex() const override { return Index; }
  /// Byte offsets (see the file comment); EOF stops before it starts, as in
  /// ANTLR.
  size_t getStartIndex() const override { return L.Offset; }
  size_t getStopIndex() const override {
    return size_t(L.Offset) + L.Length - 1;
  }
  antlr4::TokenSource *getTokenSource() const override;
  antlr4::CharStream *getInputStream() const override { return nullptr; }
  std::string toString() const override;

  void setTokenIndex(size_t I) { Index = I; }
  const Lexeme &lexeme() const { return L; }

private:
  LexerTokenSource *Source;
  Lexeme L;
  size_t Index = INVALID_INDEX;
};

/// The hand-written lexer as an ANTLR TokenSource: every token the generated
/// ShardLexer's nextToken() would return, comments (hidden channel) included.
class LexerTokenSource final : public antlr4::TokenSource {
public:
  LexerTokenSource(llvm::StringRef Buffer, std::string SourceName)
      : Lex(Buffer), Name(std::move(SourceName)) {}

  std::unique_ptr<antlr4::Token> nextToken() override {
    return std::make_unique<ShardToken>(this, Lex.next());
  }
  /// The next token without a heap object (ItemTokenStream stores them).
  Lexeme nextLexeme() { return Lex.next(); }
  size_t getLine() const override { return Lex.line(); }
  size_t getCharPositionInLine() override { return Lex.column(); }
  antlr4::CharStream *getInputStream() override { return nullptr; }
  std::string getSourceName() override { return Name; }
  /// Makes the tokens error recovery conjures (`<missing ';'>`).
  antlr4::TokenFactory<antlr4::CommonToken> *getTokenFactory() override {
    return antlr4::CommonTokenFactory::DEFAULT.get();
  }
  llvm::StringRef buffer() const { return Lex.buffer(); }

private:
  Lexer Lex;
  std::string Name;
};

/// The parser's token stream: default-channel tokens, numbered from 0,
/// fetched from the source as the parser looks ahead, and kept until the
/// caller discards them (once the item they belong to is built). They are
/// stored by value in chunks of ChunkSize, which never move (parse trees
/// point at them) and are freed whole: no allocation per token, and LT(k),
/// the parser's most frequent call, is a shift and a mask.
class ItemTokenStream final : public antlr4::TokenStream {
public:
  explicit ItemTokenStream(LexerTokenSource &Source) : Source(Source) {}

  antlr4::Token *LT(ssize_t K) override;
  size_t LA(ssize_t I) override;
  antlr4::Token *get(size_t I) const override;
  void consume() override;
  /// Every buffered token stays until discardBefore, so marks need no
  /// bookkeeping.
  ssize_t mark() override { return 0; }
  void release(ssize_t) override {}
  size_t index() override { return P; }
  /// The parser seeks back only within the item it parses (prediction
  /// rewinds to where it started); a freed token would be a broken
  /// invariant, thrown (the adapter reports it) rather than read.
  void seek(size_t I) override {
    if (I < Base)
      throw antlr4::IllegalStateException("seek to a freed token");
    P = I;
  }
  size_t size() override { return End; }
  std::string getSourceName() const override;
  antlr4::TokenSource *getTokenSource() const override { return &Source; }
  std::string getText() override;
  std::string getText(const antlr4::misc::Interval &I) override;
  std::string getText(antlr4::RuleContext *Ctx) override;
  std::string getText(antlr4::Token *Start, antlr4::Token *Stop) override;

  /// Frees the tokens before index \p I. The caller guarantees nothing refers
  /// to them any more: no parse tree, no lookback (LT(-1)).
  void discardBefore(size_t I);

  /// Default-channel tokens fetched so far, EOF included.
  size_t tokensRead() const { return End; }
  /// The most tokens buffered at once (between a discard and the next).
  size_t maxTokensHeld() const { return MaxHeld; }

private:
  static constexpr size_t ChunkBits = 8, ChunkSize = size_t(1) << ChunkBits;
  /// Token \p I, which is buffered.
  ShardToken &at(size_t I) const {
    return Chunks[(I >> ChunkBits) - FirstChunk]->Tokens[I & (ChunkSize - 1)];
  }
  /// Fetches tokens until index \p I is buffered or EOF is.
  void fill(size_t I);

  struct Chunk {
    std::vector<ShardToken> Tokens; ///< reserved to ChunkSize, never moves
  };
  LexerTokenSource &Source;
  std::deque<std::unique_ptr<Chunk>> Chunks;
  size_t FirstChunk = 0; ///< number of the chunk in Chunks.front()
  size_t Base = 0;       ///< lowest index still buffered
  size_t End = 0;        ///< one past the last index buffered
  size_t P = 0;          ///< index of LT(1)
  size_t MaxHeld = 0;
  bool SawEOF = false;
};

} // namespace shardc

#endif // SHARDC_FRONTEND_TOKENADAPTER_H
