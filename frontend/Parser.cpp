//===- Parser.cpp - From source buffer to AST -----------------------------===//
//
// Owns the checks before and around the generated parser: byte validation,
// lexing, the limits on nesting and statement length (so 100,000 nested
// parentheses is a diagnostic, not a stack overflow), and the conversion of
// ANTLR's syntax errors into our diagnostics.
//
//===----------------------------------------------------------------------===//
#include "frontend/Parser.h"
#include "ShardLexer.h"
#include "diag/Diagnostic.h"
#include "frontend/ParserSupport.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"
#include <cstring>

using namespace shardc;
using shardgen::ShardLexer;
using shardgen::ShardParser;

SourceText::SourceText(llvm::StringRef Buffer) : Buffer(Buffer) {
  bool Ascii = true;
  for (unsigned char C : Buffer)
    Ascii &= C < 0x80;
  if (Ascii)
    return;
  for (size_t I = 0, E = Buffer.size(); I < E; ++I)
    if ((static_cast<unsigned char>(Buffer[I]) & 0xC0) != 0x80)
      ByteOfCodePoint.push_back(I);
  ByteOfCodePoint.push_back(Buffer.size());
}

llvm::SMLoc SourceText::loc(size_t CodePoint) const {
  size_t Byte = CodePoint;
  if (!ByteOfCodePoint.empty())
    Byte = ByteOfCodePoint[std::min(CodePoint, ByteOfCodePoint.size() - 1)];
  Byte = std::min(Byte, Buffer.size());
  return llvm::SMLoc::getFromPointer(Buffer.data() + Byte);
}

llvm::SMRange SourceText::range(antlr4::Token *T) const {
  if (!T)
    return {};
  if (T->getType() == antlr4::Token::EOF)
    return {loc(T->getStartIndex()), loc(T->getStartIndex())};
  return {loc(T->getStartIndex()), loc(T->getStopIndex() + 1)};
}

llvm::SMRange SourceText::range(antlr4::ParserRuleContext *C) const {
  llvm::SMRange Start = range(C->getStart()), Stop = range(C->getStop());
  if (!Stop.End.isValid() || Stop.End.getPointer() < Start.Start.getPointer())
    return Start;
  return {Start.Start, Stop.End};
}

Ident SourceText::ident(antlr4::Token *T) const {
  // The text comes from our UTF-8 buffer: Token::getText would convert the
  // runtime's UTF-32 copy back, once per identifier.
  llvm::SMRange R = range(T);
  if (!T || !R.Start.isValid())
    return {std::string(), R};
  return {std::string(R.Start.getPointer(), R.End.getPointer()), R};
}
Ident SourceText::ident(antlr4::tree::TerminalNode *N) const {
  return ident(N ? N->getSymbol() : nullptr);
}

namespace {

llvm::SMLoc locAt(llvm::StringRef Buf, size_t Byte) {
  return llvm::SMLoc::getFromPointer(Buf.data() + Byte);
}

/// Length of the UTF-8 sequence starting at \p I, or 0 when it is invalid.
size_t utf8Length(llvm::StringRef B, size_t I) {
  unsigned char C = B[I];
  size_t N = C < 0x80         ? 1
             : (C >> 5) == 6  ? 2
             : (C >> 4) == 14 ? 3
             : (C >> 3) == 30 ? 4
                              : 0;
  if (N == 0 || I + N > B.size() || (N == 2 && C < 0xC2))
    return 0;
  for (size_t K = 1; K < N; ++K)
    if ((static_cast<unsigned char>(B[I + K]) & 0xC0) != 0x80)
      return 0;
  unsigned char C1 = B[I + 1 < B.size() ? I + 1 : I];
  // Overlong 3/4-byte forms, surrogates and code points past U+10FFFF.
  if ((N == 3 && C == 0xE0 && C1 < 0xA0) ||
      (N == 3 && C == 0xED && C1 >= 0xA0) ||
      (N == 4 && C == 0xF0 && C1 < 0x90) ||
      (N == 4 && (C > 0xF4 || (C == 0xF4 && C1 >= 0x90))))
    return 0;
  return N;
}

/// Rejects what the lexer must never see: oversize files, NUL bytes and
/// invalid UTF-8 (the ANTLR runtime throws on it).
bool checkBytes(llvm::StringRef B, DiagnosticEngine &Diags,
                const ParseLimits &Limits) {
  if (B.size() > Limits.MaxFileBytes) {
    Diags.report(locAt(B, 0), diag::FileTooLarge, B.size(),
                 Limits.MaxFileBytes);
    return false;
  }
  for (size_t I = 0, E = B.size(); I < E;) {
    if (B[I] == '\0') {
      Diags.report(locAt(B, I), diag::NulByte);
      return false;
    }
    size_t N = utf8Length(B, I);
    if (N == 0) {
      Diags.report(locAt(B, I), diag::InvalidUtf8,
                   unsigned(static_cast<unsigned char>(B[I])));
      return false;
    }
    I += N;
  }
  return true;
}

std::string showChar(const std::string &Text) {
  if (Text.size() == 1 && llvm::isPrint(Text[0]))
    return Text;
  std::u32string U =
      antlrcpp::utf8_to_utf32(Text.data(), Text.data() + Text.size());
  return U.empty() ? "?" : fmt::format("U+{:04X}", unsigned(U[0]));
}

/// Everything one buffer needs to be lexed and parsed; ANTLR objects refer to
/// each other, so they live together.
struct Session {
  explicit Session(llvm::StringRef B)
      : Text(B), Input(B.str()), Lexer(&Input), Tokens(&Lexer) {
    Lexer.removeErrorListeners();
  }
  SourceText Text;
  antlr4::ANTLRInputStream Input;
  ShardLexer Lexer;
  antlr4::CommonTokenStream Tokens;
};

/// Checks the token stream: invalid characters, unterminated comments, and
/// the limits that bound the parser's recursion depth.
bool scanTokens(Session &S, DiagnosticEngine &Diags, const ParseLimits &L) {
  S.Tokens.fill();
  bool Ok = true;
  unsigned Depth = 0, InStatement = 0;
  for (antlr4::Token *T : S.Tokens.getTokens()) {
    switch (T->getType()) {
    case ShardLexer::UNKNOWN_CHAR:
      Diags.report(S.Text.range(T), diag::InvalidCharacter,
                   showChar(T->getText()));
      Ok = false;
      continue;
    case ShardLexer::BLOCK_COMMENT:
      if (T->getText().size() < 4 ||
          !llvm::StringRef(T->getText()).endswith("*/")) {
        Diags.report(S.Text.loc(T->getStartIndex()), diag::UnterminatedComment);
        Ok = false;
      }
      continue;
    case ShardLexer::LINE_COMMENT:
      continue;
    case ShardLexer::LBRACE:
    case ShardLexer::LBRACK:
    case ShardLexer::LPAREN:
      if (++Depth > L.MaxNesting) {
        Diags.report(S.Text.range(T), diag::NestingTooDeep, L.MaxNesting);
        return false;
      }
      break;
    case ShardLexer::RBRACE:
    case ShardLexer::RBRACK:
    case ShardLexer::RPAREN:
      Depth = Depth ? Depth - 1 : 0;
      break;
    default:
      break;
    }
    bool Ends = T->getType() == ShardLexer::SEMI ||
                T->getType() == ShardLexer::LBRACE ||
                T->getType() == ShardLexer::RBRACE;
    InStatement = Ends ? 0 : InStatement + 1;
    if (InStatement > L.MaxStatementTokens) {
      Diags.report(S.Text.range(T), diag::StatementTooLong,
                   L.MaxStatementTokens);
      return false;
    }
    if (Diags.shouldStop())
      return false;
  }
  return Ok;
}

/// Rewords ANTLR's messages into ours: what was found, what was expected.
std::string reword(std::string Msg) {
  static const std::pair<const char *, const char *> Rules[] = {
      {"mismatched input ", "unexpected "},
      {"extraneous input ", "unexpected "},
      {"no viable alternative at input ", "unexpected input "},
      {"token recognition error at: ", "invalid character "},
      {" expecting ", ", expected "},
      {"'<EOF>'", "end of file"},
      {"<EOF>", "end of file"},
  };
  for (auto [From, To] : Rules)
    for (size_t P; (P = Msg.find(From)) != std::string::npos;)
      Msg.replace(P, strlen(From), To);
  // "missing ';' at '}'" names what was expected, then what was found.
  if (llvm::StringRef(Msg).startswith("missing ")) {
    size_t At = Msg.rfind(" at ");
    if (At != std::string::npos)
      Msg =
          "expected " + Msg.substr(8, At - 8) + " before " + Msg.substr(At + 4);
  }
  return Msg;
}

/// Routes syntax errors to the engine, one per line: after an error ANTLR's
/// recovery can report the same mistake several times.
class DiagListener : public antlr4::BaseErrorListener {
public:
  DiagListener(DiagnosticEngine &D, const SourceText &T) : Diags(D), Text(T) {}
  void syntaxError(antlr4::Recognizer *, antlr4::Token *Bad, size_t Line,
                   size_t, const std::string &Msg,
                   std::exception_ptr) override {
    Failed = true;
    if (Line == LastLine)
      return;
    LastLine = Line;
    Diags.report(Text.range(Bad), diag::SyntaxError, reword(Msg));
  }
  bool Failed = false;

private:
  DiagnosticEngine &Diags;
  const SourceText &Text;
  size_t LastLine = 0;
};

/// Parses in SLL mode first (fast, exact for this grammar in practice) and
/// falls back to full LL with error reporting only when SLL gives up.
ShardParser::FileContext *runParser(ShardParser &P, Session &S,
                                    DiagListener &Listener) {
  P.removeErrorListeners();
  P.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(
      antlr4::atn::PredictionMode::SLL);
  P.setErrorHandler(std::make_shared<antlr4::BailErrorStrategy>());
  try {
    return P.file();
  } catch (antlr4::ParseCancellationException &) {
  }
  S.Tokens.seek(0);
  P.reset();
  P.addErrorListener(&Listener);
  P.setErrorHandler(std::make_shared<antlr4::DefaultErrorStrategy>());
  P.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(
      antlr4::atn::PredictionMode::LL);
  return P.file();
}

} // namespace

std::unique_ptr<FileAST> shardc::parseBuffer(unsigned BufferId,
                                             DiagnosticEngine &Diags,
                                             const ParseLimits &Limits) {
  llvm::StringRef B = Diags.sourceMgr().getMemoryBuffer(BufferId)->getBuffer();
  if (!checkBytes(B, Diags, Limits))
    return nullptr;
  try {
    Session S(B);
    if (!scanTokens(S, Diags, Limits))
      return nullptr;
    ShardParser P(&S.Tokens);
    DiagListener Listener(Diags, S.Text);
    ShardParser::FileContext *Tree = runParser(P, S, Listener);
    if (Listener.Failed || !Tree)
      return nullptr;
    return buildAST(Tree, S.Text, BufferId);
  } catch (std::exception &E) {
    // The runtime should not throw on validated input; if it does, it is a
    // located-at-start error rather than a crash.
    Diags.report(locAt(B, 0), diag::SyntaxError,
                 std::string("parser failure: ") + E.what());
    return nullptr;
  }
}

bool shardc::dumpTokens(unsigned BufferId, DiagnosticEngine &Diags,
                        llvm::raw_ostream &OS, const ParseLimits &Limits) {
  llvm::SourceMgr &SM = Diags.sourceMgr();
  llvm::StringRef B = SM.getMemoryBuffer(BufferId)->getBuffer();
  if (!checkBytes(B, Diags, Limits))
    return false;
  Session S(B);
  if (!scanTokens(S, Diags, Limits))
    return false;
  const antlr4::dfa::Vocabulary &V = S.Lexer.getVocabulary();
  for (antlr4::Token *T : S.Tokens.getTokens()) {
    if (T->getChannel() != antlr4::Token::DEFAULT_CHANNEL)
      continue;
    auto LC = SM.getLineAndColumn(S.Text.loc(T->getStartIndex()), BufferId);
    std::string Name = T->getType() == antlr4::Token::EOF
                           ? "EOF"
                           : V.getSymbolicName(T->getType());
    OS << fmt::format("{}:{} {} '{}'\n", LC.first, LC.second, Name,
                      T->getType() == antlr4::Token::EOF ? "" : T->getText());
  }
  return true;
}
