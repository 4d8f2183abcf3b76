//===- DiagnosticVerifier.cpp - --verify-diagnostics ----------------------===//
//
// Owns parsing `expected-*` comments and matching them against the reported
// diagnostics. The syntax follows MLIR's `-verify-diagnostics` so the same
// habits carry over: `@+N`/`@-N` are relative to the comment's line, `@above`
// is the nearest earlier line without an expectation, `@below` the nearest
// later one, and the message in `{{...}}` is a substring.
//
//===----------------------------------------------------------------------===//
#include "diag/DiagnosticVerifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"
#include <cstring>
#include <optional>

using namespace shardc;

namespace {

llvm::StringRef severityName(Severity S) {
  switch (S) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Note:
    return "note";
  case Severity::Remark:
    return "remark";
  }
  return "error";
}

/// Consumes a severity word (`error`, ...) from the front of \p S.
std::optional<Severity> consumeSeverity(llvm::StringRef &S) {
  for (Severity Sev :
       {Severity::Error, Severity::Warning, Severity::Note, Severity::Remark})
    if (S.consume_front(severityName(Sev)))
      return Sev;
  return std::nullopt;
}

/// Where an expectation points: a line, or the nearest line that carries no
/// expectation above or below the comment.
struct Designator {
  enum { Offset, Above, Below } Kind = Offset;
  int Delta = 0;
};

/// Parses what follows `@`: `+N`, `-N`, `above` or `below`.
std::optional<Designator> consumeDesignator(llvm::StringRef &S) {
  Designator D;
  if (S.consume_front("above")) {
    D.Kind = Designator::Above;
    return D;
  }
  if (S.consume_front("below")) {
    D.Kind = Designator::Below;
    return D;
  }
  bool Minus = S.startswith("-");
  if (!S.consume_front("+") && !S.consume_front("-"))
    return std::nullopt;
  unsigned N = 0;
  if (S.consumeInteger(10, N) || N > 1000000)
    return std::nullopt;
  D.Delta = Minus ? -int(N) : int(N);
  return D;
}

} // namespace

DiagnosticVerifier::DiagnosticVerifier(DiagnosticEngine &Diags) : Diags(Diags) {
  Diags.setHandler([this](const Diagnostic &D) { collect(D); });
}

void DiagnosticVerifier::collect(const Diagnostic &D) {
  // A diagnostic in a buffer we have not read yet (an import) brings that
  // buffer's expectations along.
  if (D.Range.Start.isValid())
    if (unsigned Id = Diags.sourceMgr().FindBufferContainingLoc(D.Range.Start))
      addExpectations(Id);
  Seen.push_back(D);
}

void DiagnosticVerifier::malformed(llvm::SMLoc Loc, const llvm::Twine &Why) {
  Malformed.emplace_back(Loc, Why.str());
}

void DiagnosticVerifier::addExpectations(unsigned BufferId) {
  if (!ParsedBuffers.insert(BufferId).second)
    return;
  llvm::StringRef Rest =
      Diags.sourceMgr().getMemoryBuffer(BufferId)->getBuffer();
  unsigned LineNo = 0, LastPlainLine = 0;
  // Expectations written `@below` wait here for the next plain line.
  std::vector<size_t> PendingBelow;
  while (!Rest.empty()) {
    auto [Line, Tail] = Rest.split('\n');
    Rest = Tail;
    parseLine(BufferId, Line.rtrim('\r'), ++LineNo, LastPlainLine,
              PendingBelow);
  }
  // `@below` with nothing below: point past the end, where nothing can be
  // reported, so verify() says the expectation was not produced.
  for (size_t I : PendingBelow)
    Expected[I].Line = LineNo + 1;
}

/// expectation ::= '//' ... 'expected-' severity ('@' where)? ' '* '{{' text
/// '}}'
void DiagnosticVerifier::parseLine(unsigned BufferId, llvm::StringRef Line,
                                   unsigned LineNo, unsigned &LastPlainLine,
                                   std::vector<size_t> &PendingBelow) {
  size_t Comment = Line.find("//");
  size_t At = Comment == llvm::StringRef::npos
                  ? llvm::StringRef::npos
                  : Line.find("expected-", Comment);
  if (At == llvm::StringRef::npos) {
    LastPlainLine = LineNo;
    for (size_t I : PendingBelow)
      Expected[I].Line = LineNo;
    PendingBelow.clear();
    return;
  }
  llvm::SMLoc Loc = llvm::SMLoc::getFromPointer(Line.data() + At);
  llvm::StringRef S = Line.substr(At + strlen("expected-"));
  std::optional<Severity> Sev = consumeSeverity(S);
  // Prose such as "expected-output" is not an expectation; a line that names
  // a severity but is otherwise wrong is, and must not pass silently.
  if (!Sev) {
    LastPlainLine = LineNo;
    return;
  }
  Expectation E;
  E.Sev = *Sev;
  E.BufferId = BufferId;
  E.Loc = Loc;
  E.Line = LineNo;
  std::optional<Designator> D;
  if (S.consume_front("@")) {
    D = consumeDesignator(S);
    if (!D)
      return malformed(Loc, "expected '@+N', '@-N', '@above' or '@below'");
    if (D->Kind == Designator::Offset && int(LineNo) + D->Delta < 1)
      return malformed(Loc, "the designated line is before the file's start");
    E.Line = LineNo + D->Delta;
  }
  S = S.ltrim(' ');
  size_t Close = S.rfind("}}");
  if (!S.startswith("{{") || Close == llvm::StringRef::npos || Close < 2)
    return malformed(Loc, "expected '{{message}}' after 'expected-" +
                              severityName(*Sev) + "'");
  E.Substring = S.slice(2, Close).str();
  if (D && D->Kind == Designator::Above) {
    if (LastPlainLine == 0)
      return malformed(Loc, "'@above' with no line above");
    E.Line = LastPlainLine;
  }
  Expected.push_back(std::move(E));
  if (D && D->Kind == Designator::Below)
    PendingBelow.push_back(Expected.size() - 1);
}

bool DiagnosticVerifier::verify(llvm::raw_ostream &OS, bool ShowColors) {
  llvm::SourceMgr &SM = Diags.sourceMgr();
  auto print = [&](llvm::SMLoc Loc, const llvm::Twine &Msg,
                   llvm::ArrayRef<llvm::SMRange> Ranges = {}) {
    SM.PrintMessage(OS, Loc, llvm::SourceMgr::DK_Error, Msg, Ranges, {},
                    ShowColors);
  };
  bool Ok = Malformed.empty();
  for (auto &[Loc, Why] : Malformed)
    print(Loc, "malformed expectation: " + Why);

  for (const Diagnostic &D : Seen) {
    unsigned Buffer = 0, Line = 0;
    if (D.Range.Start.isValid()) {
      Buffer = SM.FindBufferContainingLoc(D.Range.Start);
      Line = SM.getLineAndColumn(D.Range.Start, Buffer).first;
    }
    auto It = llvm::find_if(Expected, [&](const Expectation &E) {
      return !E.Matched && E.Sev == D.Sev && E.BufferId == Buffer &&
             E.Line == Line && llvm::StringRef(D.Message).contains(E.Substring);
    });
    if (It != Expected.end()) {
      It->Matched = true;
      continue;
    }
    Ok = false;
    llvm::SmallVector<llvm::SMRange, 1> Ranges;
    if (D.Range.Start.isValid() && D.Range.End.isValid() &&
        D.Range.Start != D.Range.End)
      Ranges.push_back(D.Range);
    print(D.Range.Start, "unexpected " + severityName(D.Sev) + ": " + D.Message,
          Ranges);
  }

  for (const Expectation &E : Expected) {
    if (E.Matched)
      continue;
    Ok = false;
    print(E.Loc, "expected " + severityName(E.Sev) + " \"" + E.Substring +
                     "\" was not produced");
  }
  return Ok;
}
