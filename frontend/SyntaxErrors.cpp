//===- SyntaxErrors.cpp - ANTLR's syntax errors as our diagnostics --------===//
//
// Owns the wording of syntax errors: ANTLR's messages are rewritten to say
// what was found, then what was expected; a word where a keyword was meant
// (`tensr x : ...`) is named as such, with the keyword it resembles; after an
// error ANTLR's recovery can report the same mistake several times, so one
// line gets one error. Once the error limit is reached the parse is
// abandoned (StopParsing).
//
//===----------------------------------------------------------------------===//
#include "diag/Diagnostic.h"
#include "diag/Suggest.h"
#include "frontend/Lexer.h"
#include "frontend/ParserSupport.h"
#include <cstring>
#include <fmt/format.h>

using namespace shardc;
using P = shardgen::ShardParser;

namespace {

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

/// How a message shows a token: quoted, or "end of file".
std::string display(const SourceText &Text, antlr4::Token *T) {
  if (T->getType() == antlr4::Token::EOF)
    return "end of file";
  return "'" + Text.text(T).str() + "'";
}

/// The keywords a misspelling could have meant where the construct \p Ctx
/// starts: an item's (`tensr x`: a statement to the parser), or `level` at
/// a cluster's property (`levl node { ... }`). Empty anywhere else.
std::vector<std::string> keywordsWhere(antlr4::RuleContext *Ctx) {
  auto *C = dynamic_cast<antlr4::ParserRuleContext *>(Ctx);
  antlr4::Token *Start = C ? C->getStart() : nullptr;
  if (!Start)
    return {};
  for (; C && C->getStart() == Start;
       C = dynamic_cast<antlr4::ParserRuleContext *>(C->parent)) {
    if (C->getRuleIndex() == P::RuleItem) {
      std::vector<std::string> Item;
      for (const std::string &K : keywordSpellings())
        if (K != "level")
          Item.push_back(K);
      return Item;
    }
    if (C->getRuleIndex() == P::RuleProperty && C->parent &&
        static_cast<antlr4::RuleContext *>(C->parent)->getRuleIndex() ==
            P::RuleClusterDecl)
      return {"level"};
  }
  return {};
}

/// The rule context and first token of the construct that failed: the
/// decision's for a no-viable-alternative error, else the current rule's.
/// The token is null for the file rule, whose tokens are freed item by item
/// (Parser.cpp's ItemBuilder): only a context within an item has one.
std::pair<antlr4::RuleContext *, antlr4::Token *>
failedConstruct(antlr4::Recognizer *R, std::exception_ptr E) {
  if (E) {
    try {
      std::rethrow_exception(E);
    } catch (antlr4::NoViableAltException &NV) {
      return {NV.getCtx(), NV.getStartToken()};
    } catch (...) {
    }
  }
  auto *Ctx = static_cast<antlr4::Parser *>(R)->getContext();
  return {Ctx, Ctx ? Ctx->getStart() : nullptr};
}

bool isNoViableAlt(std::exception_ptr E) {
  try {
    if (E)
      std::rethrow_exception(E);
  } catch (antlr4::NoViableAltException &) {
    return true;
  } catch (...) {
  }
  return false;
}

/// Whether ANTLR's message \p Msg says ';' was missing, or found another
/// token where ';' was among those expected. (Not "extraneous input": then
/// ANTLR has found the bad token itself to be the mistake.)
bool expectsSemicolon(llvm::StringRef Msg) {
  if (Msg.startswith("missing ';'"))
    return true;
  size_t Expecting = Msg.find(" expecting ");
  return Msg.startswith("mismatched input ") &&
         Expecting != llvm::StringRef::npos &&
         Msg.find("';'", Expecting) != llvm::StringRef::npos;
}

/// The default-channel token before \p T, if it is still buffered.
antlr4::Token *tokenBefore(antlr4::Recognizer *R, antlr4::Token *T) {
  size_t I = T->getTokenIndex();
  if (I == 0 || I == INVALID_INDEX)
    return nullptr;
  try {
    return static_cast<antlr4::Parser *>(R)->getTokenStream()->get(I - 1);
  } catch (antlr4::IndexOutOfBoundsException &) {
    return nullptr;
  }
}

/// A ';' forgotten at the end of a line: the token it belongs after (on an
/// earlier line than the error) and the first token of the next line. Null
/// when the error is not one. `hbm = 80` with the ';' missing, then
/// `hbm_bw = ...` on the next line, reads `80 hbm_bw` as a number with a
/// unit: the ';' belongs after the number.
std::pair<antlr4::Token *, antlr4::Token *>
missingSemicolon(antlr4::Recognizer *R, antlr4::Token *Bad,
                 const std::string &Msg, std::exception_ptr E) {
  if (isNoViableAlt(E) || !expectsSemicolon(Msg))
    return {};
  antlr4::Token *Prev = tokenBefore(R, Bad);
  if (!Prev)
    return {};
  if (Bad->getLine() > Prev->getLine())
    return {Prev, Bad};
  antlr4::Token *Number =
      Prev->getType() == P::ID ? tokenBefore(R, Prev) : nullptr;
  if (Number && Number->getType() == P::NUMBER &&
      Prev->getLine() > Number->getLine())
    return {Number, Prev};
  return {};
}

} // namespace

void SyntaxErrorListener::syntaxError(antlr4::Recognizer *R, antlr4::Token *Bad,
                                      size_t Line, size_t,
                                      const std::string &Msg,
                                      std::exception_ptr E) {
  Failed = true;
  // One error a line: the line it is reported on (a missing ';' is reported
  // on the line before the bad token).
  auto [After, Next] = missingSemicolon(R, Bad, Msg, E);
  size_t At = After ? After->getLine() : Line;
  if (At == LastLine || Line == AlsoCovered)
    return;
  LastLine = At;
  // The next line read as a unit (`80 hbm_bw`) leaves the parser lost for the
  // rest of it; after a plain missing ';' it reads the next line as written,
  // so errors there are real.
  AlsoCovered = After && Next->getLine() == Line && Next != Bad ? Line : 0;
  if (After) {
    std::string Where = Next->getType() == antlr4::Token::EOF
                            ? "no token follows"
                            : fmt::format("the next token, {}, is on line {}",
                                          display(Text, Next), Next->getLine());
    Diags.report(Text.range(After).End, diag::MissingSemicolon,
                 display(Text, After), Where);
  } else {
    report(R, Bad, Msg, E);
  }
  if (Diags.shouldStop())
    throw StopParsing();
}

void SyntaxErrorListener::report(antlr4::Recognizer *R, antlr4::Token *Bad,
                                 const std::string &Msg, std::exception_ptr E) {
  // `?` where a value was expected is a searched value out of place: say
  // where one may stand, not which tokens could start an expression.
  if (Text.text(Bad) == "?" && !isNoViableAlt(E) &&
      llvm::StringRef(Msg).contains("NUMBER")) {
    Diags.report(Text.range(Bad), diag::SyntaxError,
                 "unexpected '?': a searched value ('?') stands only for a "
                 "mesh axis's size or a setting in 'train' or 'search'");
    return;
  }
  auto [Ctx, Start] = failedConstruct(R, E);
  // A construct that starts with a word and fails at the very next token:
  // `tensr x`, `improt "a.shard"`, `confg {`. The word is the mistake.
  bool WordThenBad = Start && Start->getType() == P::ID &&
                     Bad->getTokenIndex() == Start->getTokenIndex() + 1;
  if (WordThenBad) {
    std::string Word = Text.text(Start).str();
    if (auto K = closestName(Word, keywordsWhere(Ctx))) {
      Diags.report(Text.range(Start), diag::KeywordTypo, Word, *K);
      return;
    }
  }
  // ANTLR's no-viable-alternative message quotes every token from the
  // decision's start to the bad one, glued without their spaces
  // (`'tensrx'`): only the bad one is unexpected.
  if (!isNoViableAlt(E)) {
    Diags.report(Text.range(Bad), diag::SyntaxError, reword(Msg));
    return;
  }
  std::string Found = "unexpected " + display(Text, Bad);
  // After a statement's first word only its type (`:`) or its indices
  // (`[`) can follow.
  if (WordThenBad && Ctx && Ctx->getRuleIndex() == P::RuleLhs)
    Found += ", expected {':', '['}";
  Diags.report(Text.range(Bad), diag::SyntaxError, Found);
}
