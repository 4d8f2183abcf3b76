//===- ParserTest.cpp - What the parser reads and holds -------------------===//
//
// Issue 8's bounds on the frontend, checked through ParseStats: once the
// error limit is reached the parser stops reading the file, and it holds the
// tokens (and parse tree, freed with them) of one item at a time, not the
// file's.
//
//===----------------------------------------------------------------------===//
#include "frontend/Parser.h"
#include "diag/Diagnostic.h"
#include "frontend/Lexer.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "gtest/gtest.h"
#include <fmt/format.h>
#include <string>

using namespace shardc;

namespace {

struct Parsed {
  std::unique_ptr<FileAST> AST;
  ParseStats Stats;
  unsigned Errors = 0;
};

Parsed parse(const std::string &Text, unsigned ErrorLimit) {
  llvm::SourceMgr SM;
  unsigned Id = SM.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(Text, "test.shard"), llvm::SMLoc());
  DiagnosticEngine Diags(SM);
  Diags.setErrorLimit(ErrorLimit);
  Diags.setHandler([](const Diagnostic &) {});
  Parsed R;
  R.AST = parseBuffer(Id, Diags, ParseLimits(), &R.Stats);
  R.Errors = Diags.errorCount();
  return R;
}

/// The tokens the parser sees in \p Text: no comments, EOF included.
uint64_t countTokens(llvm::StringRef Text) {
  Lexer Lex(Text);
  uint64_t N = 0;
  for (Lexeme T = Lex.next();; T = Lex.next()) {
    N += !isHiddenToken(T.Kind);
    if (T.Kind == tok::EndOfFile)
      return N;
  }
}

/// \p N lines, each one syntax error (a doubled operator).
std::string syntaxErrors(unsigned N) {
  std::string Src;
  for (unsigned I = 0; I < N; ++I)
    Src += fmt::format("x{}[B] = * y[B];\n", I);
  return Src;
}

TEST(ParserTest, StopsReadingAtTheErrorLimit) {
  std::string Src = syntaxErrors(1000);
  Parsed R = parse(Src, 20);
  EXPECT_EQ(R.Errors, 20u);
  EXPECT_EQ(R.AST, nullptr);
  // The 20th error is on line 20; recovery may look a little further, but
  // not past line 21, let alone to line 1,000.
  uint64_t UpToLine21 = countTokens(llvm::StringRef(syntaxErrors(21)));
  EXPECT_LE(R.Stats.TokensRead, UpToLine21);
  EXPECT_GT(R.Stats.TokensRead, countTokens(syntaxErrors(19)));
}

TEST(ParserTest, WithoutALimitReadsEverything) {
  std::string Src = syntaxErrors(1000);
  Parsed R = parse(Src, 0);
  EXPECT_EQ(R.Errors, 1000u);
  EXPECT_EQ(R.Stats.TokensRead, countTokens(Src));
}

TEST(ParserTest, HoldsOneItemAtATime) {
  std::string Src;
  for (unsigned I = 0; I < 5000; ++I)
    Src += fmt::format("h{}[B_X, F_Y] = x[B_X, D] * w{}[D, F_Y];\n", I, I);
  Parsed R = parse(Src, 20);
  ASSERT_NE(R.AST, nullptr);
  EXPECT_EQ(R.AST->Items.size(), 5000u);
  EXPECT_EQ(R.Stats.TokensRead, countTokens(Src));
  // A statement here is 23 tokens; the parser holds it, its lookahead and
  // the previous statement's last token, never the 115,001 of the file.
  EXPECT_LE(R.Stats.MaxTokensHeld, 2 * 23u);
}

TEST(ParserTest, HoldsAWholeRepeatBody) {
  // An item is freed when it is complete: a `repeat` is one item, however
  // many statements its body has. (What HoldsOneItemAtATime measures is
  // therefore the item, not a constant.)
  std::string Src = "repeat 2 {\n";
  for (unsigned I = 0; I < 100; ++I)
    Src += fmt::format("  h{}[B] = x[B];\n", I);
  Src += "}\n";
  Parsed R = parse(Src, 20);
  ASSERT_NE(R.AST, nullptr);
  EXPECT_GE(R.Stats.MaxTokensHeld, countTokens(Src) - 1);
}

} // namespace
