//===- SyntaxErrors.cpp - ANTLR's syntax errors as our diagnostics --------===//
//
// Owns the wording of syntax errors: ANTLR's messages are rewritten to say
// what was found, then what was expected; after an error ANTLR's recovery
// can report the same mistake several times, so one line gets one error.
// Once the error limit is reached the parse is abandoned (StopParsing).
//
//===----------------------------------------------------------------------===//
#include "diag/Diagnostic.h"
#include "frontend/ParserSupport.h"
#include <cstring>

using namespace shardc;

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

} // namespace

void SyntaxErrorListener::syntaxError(antlr4::Recognizer *, antlr4::Token *Bad,
                                      size_t Line, size_t,
                                      const std::string &Msg,
                                      std::exception_ptr) {
  Failed = true;
  if (Line == LastLine)
    return;
  LastLine = Line;
  Diags.report(Text.range(Bad), diag::SyntaxError, reword(Msg));
  if (Diags.shouldStop())
    throw StopParsing();
}
