//===- Parser.cpp - From source buffer to AST -----------------------------===//
//
// Owns the checks before and around the generated parser, and the way it is
// driven. Before: byte validation, then one pass of the hand-written lexer
// that reports invalid characters and unterminated comments and enforces the
// limits on nesting and statement length (so 100,000 nested parentheses is a
// diagnostic, not a stack overflow). Then the generated parser reads tokens
// from the same lexer (frontend/TokenAdapter.h) and, as it leaves each
// top-level item, that item's AST is built and its parse tree and tokens are
// freed: memory holds the AST and one item, not the file's tokens and tree.
//
//===----------------------------------------------------------------------===//
#include "frontend/Parser.h"
#include "diag/Diagnostic.h"
#include "frontend/Lexer.h"
#include "frontend/ParserSupport.h"
#include "frontend/TokenAdapter.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace shardc;
using shardgen::ShardParser;

llvm::SMRange SourceText::range(antlr4::Token *T) const {
  if (!T)
    return {};
  // EOF stops before it starts; a token conjured by error recovery has no
  // position (INVALID_INDEX), which loc() clamps to the end of the buffer.
  size_t Start = T->getStartIndex();
  if (T->getType() == antlr4::Token::EOF || Start == INVALID_INDEX)
    return {loc(Start), loc(Start)};
  return {loc(Start), loc(T->getStopIndex() + 1)};
}

llvm::SMRange SourceText::range(antlr4::ParserRuleContext *C) const {
  llvm::SMRange Start = range(C->getStart()), Stop = range(C->getStop());
  if (!Stop.End.isValid() || Stop.End.getPointer() < Start.Start.getPointer())
    return Start;
  return {Start.Start, Stop.End};
}

llvm::StringRef SourceText::text(antlr4::Token *T) const {
  llvm::SMRange R = range(T);
  if (!R.Start.isValid())
    return {};
  return llvm::StringRef(R.Start.getPointer(),
                         R.End.getPointer() - R.Start.getPointer());
}

Ident SourceText::ident(antlr4::Token *T) const {
  return {text(T).str(), range(T)};
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
/// invalid UTF-8 (ANTLR's runtime threw on it; now the rule is that a .shard
/// file is UTF-8 text).
bool checkBytes(llvm::StringRef B, DiagnosticEngine &Diags,
                const ParseLimits &Limits) {
  uint64_t Max = std::min<uint64_t>(Limits.MaxFileBytes, Lexer::MaxBytes);
  if (B.size() > Max) {
    Diags.report(locAt(B, 0), diag::FileTooLarge, uint64_t(B.size()), Max);
    return false;
  }
  for (size_t I = 0, E = B.size(); I < E;) {
    // Printable ASCII, tabs and line ends: most of any file, in one test.
    if (static_cast<unsigned char>(B[I]) - 1u < 0x7Fu) {
      ++I;
      continue;
    }
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

/// An invalid character as a message shows it: itself when printable ASCII,
/// else its code point (the text is one valid UTF-8 sequence).
std::string showChar(llvm::StringRef Text) {
  if (Text.size() == 1 && llvm::isPrint(Text[0]))
    return Text.str();
  static const unsigned char LeadMask[] = {0x7F, 0x7F, 0x1F, 0x0F, 0x07};
  unsigned CodePoint = static_cast<unsigned char>(Text[0]) &
                       LeadMask[std::min<size_t>(Text.size(), 4)];
  for (char C : Text.drop_front())
    CodePoint = (CodePoint << 6) | (static_cast<unsigned char>(C) & 0x3F);
  return fmt::format("U+{:04X}", CodePoint);
}

/// What bounds the parser's recursion: bracket depth, and tokens since the
/// last `;`, `{` or `}` (a statement's length).
struct RecursionBounds {
  unsigned Depth = 0, InStatement = 0;

  /// Counts \p T; false, after reporting, when it passes a limit.
  bool admit(tok::Kind K, llvm::SMRange R, DiagnosticEngine &Diags,
             const ParseLimits &L) {
    if (K == tok::LBRACE || K == tok::LBRACK || K == tok::LPAREN) {
      if (++Depth > L.MaxNesting) {
        Diags.report(R, diag::NestingTooDeep, L.MaxNesting);
        return false;
      }
    } else if (K == tok::RBRACE || K == tok::RBRACK || K == tok::RPAREN) {
      Depth = Depth ? Depth - 1 : 0;
    }
    bool Ends = K == tok::SEMI || K == tok::LBRACE || K == tok::RBRACE;
    InStatement = Ends ? 0 : InStatement + 1;
    if (InStatement > L.MaxStatementTokens) {
      Diags.report(R, diag::StatementTooLong, L.MaxStatementTokens);
      return false;
    }
    return true;
  }
};

/// One lexer pass before the parser runs: invalid characters, unterminated
/// comments, and the limits that bound the parser's recursion depth. Stops
/// at the error limit.
bool scanTokens(llvm::StringRef B, DiagnosticEngine &Diags,
                const ParseLimits &L) {
  Lexer Lex(B);
  RecursionBounds Bounds;
  bool Ok = true;
  for (bool AtEnd = false; !AtEnd;) {
    Lexeme T = Lex.next();
    AtEnd = T.Kind == tok::EndOfFile;
    llvm::SMRange R(locAt(B, T.Offset), locAt(B, T.Offset + T.Length));
    if (T.Kind == tok::UNKNOWN_CHAR) {
      Diags.report(R, diag::InvalidCharacter, showChar(Lex.text(T)));
      Ok = false;
    } else if (T.Kind == tok::BLOCK_COMMENT &&
               (T.Length < 4 || !Lex.text(T).endswith("*/"))) {
      Diags.report(R.Start, diag::UnterminatedComment);
      Ok = false;
    } else if (!isHiddenToken(T.Kind) && !Bounds.admit(T.Kind, R, Diags, L)) {
      return false;
    }
    if (Diags.shouldStop())
      return false;
  }
  return Ok;
}

/// ANTLR's default recovery, with its most frequent call made cheap. The
/// generated parser calls sync() before every loop and optional part, and
/// DefaultErrorStrategy::sync (4.9) copies the ATN state's follow set (an
/// allocation) just to see whether the next token is in it. Token types here
/// are below 64, so each state's set is a 64-bit mask, computed once; only
/// a token outside the set goes to the original, which then reports it.
class FollowMaskRecovery final : public antlr4::DefaultErrorStrategy {
public:
  void sync(antlr4::Parser *P) override {
    if (!inErrorRecoveryMode(P) &&
        inFollowSet(P->getATN(), P->getState(), P->getTokenStream()->LA(1)))
      return;
    DefaultErrorStrategy::sync(P);
  }

private:
  /// A state's follow set: Bits for types 0-63, and whether it contains EOF
  /// or epsilon. Exact is false when the set has other elements; then the
  /// mask is not used.
  struct FollowMask {
    uint64_t Bits = 0;
    bool Eof = false, Epsilon = false, Exact = true;
  };

  static bool inFollowSet(const antlr4::atn::ATN &Atn, size_t State,
                          size_t La) {
    static const std::vector<FollowMask> Masks = computeMasks(Atn);
    if (State >= Masks.size() || !Masks[State].Exact)
      return false;
    const FollowMask &M = Masks[State];
    return M.Epsilon || (La == antlr4::Token::EOF && M.Eof) ||
           (La < 64 && (M.Bits >> La & 1));
  }

  static std::vector<FollowMask> computeMasks(const antlr4::atn::ATN &Atn) {
    std::vector<FollowMask> Masks(Atn.states.size());
    for (size_t S = 0; S < Atn.states.size(); ++S) {
      if (!Atn.states[S])
        continue;
      for (const antlr4::misc::Interval &I :
           Atn.nextTokens(Atn.states[S]).getIntervals()) {
        Masks[S].Exact &= I.b - I.a < 64;
        for (ssize_t V = I.a; V <= I.b && Masks[S].Exact; ++V)
          add(Masks[S], V);
      }
    }
    return Masks;
  }
  static void add(FollowMask &M, ssize_t V) {
    if (V == ssize_t(antlr4::Token::EPSILON))
      M.Epsilon = true;
    else if (V == ssize_t(antlr4::Token::EOF))
      M.Eof = true;
    else if (V >= 0 && V < 64)
      M.Bits |= uint64_t(1) << V;
    else
      M.Exact = false;
  }
};

/// Builds each top-level item's AST as the parser leaves it, then frees the
/// item's parse tree and tokens.
///
/// ANTLR's parser allocates every context and terminal node through its
/// ParseTreeTracker and frees them only when the parser goes. So: (1) when
/// the file rule is entered, its context (the tracker's only object then)
/// moves to a tracker of ours, so it survives; (2) when a top-level item is
/// left, its AST is built and the parser's tracker, which holds exactly that
/// item's tree (and any error nodes since the last item), is moved aside;
/// (3) at the parser's next event, once the runtime no longer touches that
/// item (exitRule still reads it after the listener returns), the moved-aside
/// tree and the item's tokens are freed. No token of a freed item may be
/// reachable from what stays: so the file rule's context keeps no start.
class ItemBuilder final : public antlr4::tree::ParseTreeListener {
public:
  ItemBuilder(ShardParser &P, ItemTokenStream &Tokens, const SourceText &Text,
              const SyntaxErrorListener &Errors, FileAST &Out)
      : P(P), Tokens(Tokens), Text(Text), Errors(Errors), Out(Out) {}
  ~ItemBuilder() override {
    Retired.reset();
    FileTree.reset();
  }

  void enterEveryRule(antlr4::ParserRuleContext *Ctx) override {
    releaseRetired();
    if (!FileCtx && Ctx->getRuleIndex() == ShardParser::RuleFile) {
      FileCtx = Ctx;
      // Its start token is the first item's, freed with that item: kept, it
      // would dangle for the rest of the parse (a syntax error reported in
      // the file rule reads its context's start). The file has no start.
      FileCtx->start = nullptr;
      std::swap(P.getTreeTracker(), FileTree);
    }
  }
  void exitEveryRule(antlr4::ParserRuleContext *Ctx) override;
  void visitTerminal(antlr4::tree::TerminalNode *) override {
    releaseRetired();
  }
  void visitErrorNode(antlr4::tree::ErrorNode *) override { releaseRetired(); }

private:
  void releaseRetired() {
    if (!RetirePending)
      return;
    Retired.reset();
    Tokens.discardBefore(RetireTokensBefore);
    RetirePending = false;
  }

  ShardParser &P;
  ItemTokenStream &Tokens;
  const SourceText &Text;
  const SyntaxErrorListener &Errors;
  FileAST &Out;
  antlr4::ParserRuleContext *FileCtx = nullptr;
  antlr4::tree::ParseTreeTracker FileTree, Retired;
  bool RetirePending = false;
  size_t RetireTokensBefore = 0;
};

void ItemBuilder::exitEveryRule(antlr4::ParserRuleContext *Ctx) {
  releaseRetired();
  if (!FileCtx || Ctx->parent != FileCtx ||
      Ctx->getRuleIndex() != ShardParser::RuleItem)
    return;
  // Once a syntax error is reported there is no AST to return; parsing goes
  // on only to report more errors.
  if (!Errors.failed())
    Out.Items.push_back(
        buildItem(static_cast<ShardParser::ItemContext *>(Ctx), Text));
  FileCtx->children.clear();
  std::swap(P.getTreeTracker(), Retired);
  // LT(-1), the item's last token, stays: error recovery may look back.
  RetireTokensBefore = Tokens.index() ? Tokens.index() - 1 : 0;
  RetirePending = true;
}

/// Parses the whole buffer in full-LL mode with ANTLR's default error
/// recovery. (The grammar is LL(k) in practice, so LL costs what SLL does:
/// prediction starts in SLL and only a conflict falls back to full context.)
std::unique_ptr<FileAST> parseItems(llvm::StringRef B, unsigned BufferId,
                                    DiagnosticEngine &Diags,
                                    ParseStats *Stats) {
  SourceText Text(B);
  LexerTokenSource Source(B, "");
  ItemTokenStream Tokens(Source);
  ShardParser P(&Tokens);
  P.removeErrorListeners();
  P.setErrorHandler(std::make_shared<FollowMaskRecovery>());
  SyntaxErrorListener Errors(Diags, Text);
  P.addErrorListener(&Errors);
  P.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(
      antlr4::atn::PredictionMode::LL);
  auto F = std::make_unique<FileAST>();
  F->BufferId = BufferId;
  ItemBuilder Builder(P, Tokens, Text, Errors, *F);
  P.addParseListener(&Builder);
  try {
    P.file();
  } catch (StopParsing &) {
    // The error limit is reached: the rest of the file is not read.
  }
  if (Stats)
    *Stats = {Tokens.tokensRead(), Tokens.maxTokensHeld()};
  return Errors.failed() ? nullptr : std::move(F);
}

} // namespace

std::unique_ptr<FileAST> shardc::parseBuffer(unsigned BufferId,
                                             DiagnosticEngine &Diags,
                                             const ParseLimits &Limits,
                                             ParseStats *Stats) {
  llvm::StringRef B = Diags.sourceMgr().getMemoryBuffer(BufferId)->getBuffer();
  if (!checkBytes(B, Diags, Limits) || !scanTokens(B, Diags, Limits))
    return nullptr;
  try {
    return parseItems(B, BufferId, Diags, Stats);
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
  if (!checkBytes(B, Diags, Limits) || !scanTokens(B, Diags, Limits))
    return false;
  Lexer Lex(B);
  for (bool AtEnd = false; !AtEnd;) {
    Lexeme T = Lex.next();
    AtEnd = T.Kind == tok::EndOfFile;
    if (isHiddenToken(T.Kind))
      continue;
    auto LC = SM.getLineAndColumn(locAt(B, T.Offset), BufferId);
    OS << fmt::format("{}:{} {} '{}'\n", LC.first, LC.second,
                      tokenKindName(T.Kind), Lex.text(T));
  }
  return true;
}
