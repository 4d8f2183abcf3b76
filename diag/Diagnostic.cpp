//===- Diagnostic.cpp - The one diagnostic engine -------------------------===//
#include "diag/Diagnostic.h"
#include "diag/Caret.h"
#include "llvm/Support/raw_ostream.h"

using namespace shardc;

namespace {
constexpr const char *KindNames[] = {
#define DIAG(Id, Sev, Fmt, ...) #Id,
#include "diag/Diagnostics.def"
};
} // namespace

llvm::StringRef shardc::diagKindName(DiagKind K) {
  return KindNames[unsigned(K)];
}

DiagnosticEngine::DiagnosticEngine(llvm::SourceMgr &SM) : SM(SM) {}

Loc DiagnosticEngine::location(llvm::SMLoc P) const {
  if (!P.isValid())
    return {};
  unsigned Buf = SM.FindBufferContainingLoc(P);
  if (!Buf)
    return {};
  auto [Line, Col] = SM.getLineAndColumn(P, Buf);
  return {Buf, Line, Col};
}

llvm::SMLoc DiagnosticEngine::toSMLoc(Loc L) const {
  if (!L.isValid() || L.File > SM.getNumBuffers())
    return {};
  return SM.FindLocForLineAndColumn(L.File, L.Line, L.Col);
}

// Decides whether a diagnostic of severity \p S at \p Range is emitted,
// counting errors against the limit. The first error past the limit is
// replaced by one note saying so (at its location, so --verify-diagnostics
// can test it), and everything after is dropped: 1,000 errors in one file
// print 20 errors, their notes, and the limit note.
bool DiagnosticEngine::admit(Severity &S, llvm::SMRange Range) {
  if (S == Severity::Warning && WarningsAsErrors)
    S = Severity::Error;
  if (Stopped)
    return false;
  if (S == Severity::Note)
    return !LastDropped;
  LastDropped = false;
  if (S != Severity::Error)
    return true;
  if (ErrorLimit != 0 && Errors >= ErrorLimit) {
    Stopped = true;
    LastDropped = true;
    emit({DiagKind::ErrorLimitReached, Severity::Note, Range,
          fmt::format(diag::ErrorLimitReached.Format, ErrorLimit)});
    return false;
  }
  ++Errors;
  return true;
}

void DiagnosticEngine::emit(const Diagnostic &D) {
  if (Observer)
    Observer(D);
  if (Custom)
    Custom(D);
  else
    print(D);
}

void DiagnosticEngine::print(const Diagnostic &D) {
  llvm::SourceMgr::DiagKind K = llvm::SourceMgr::DK_Error;
  switch (D.Sev) {
  case Severity::Error:
    break;
  case Severity::Warning:
    K = llvm::SourceMgr::DK_Warning;
    break;
  case Severity::Note:
    K = llvm::SourceMgr::DK_Note;
    break;
  case Severity::Remark:
    K = llvm::SourceMgr::DK_Remark;
    break;
  }
  llvm::ArrayRef<llvm::SMRange> Ranges;
  if (D.Range.Start.isValid() && D.Range.End.isValid() &&
      D.Range.Start != D.Range.End)
    Ranges = D.Range;
  llvm::SMDiagnostic Msg = SM.GetMessage(D.Range.Start, K, D.Message, Ranges);
  // errs() is unbuffered and LLVM's printer writes the caret line a byte at
  // a time: one write() per byte. Buffered for this diagnostic instead.
  llvm::raw_ostream &OS = llvm::errs();
  OS.SetBuffered();
  if (!printLongLineMessage(SM, OS, Msg, Colors)) {
    SM.PrintMessage(OS, Msg, Colors);
    printCaretForNonAsciiLine(OS, Msg, Colors);
  }
  OS.SetUnbuffered();
}
