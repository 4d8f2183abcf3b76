//===- Diagnostic.h - The one diagnostic engine -----------------*- C++ -*-===//
//
// Every problem in the user's source is reported here, through a kind declared
// in Diagnostics.def with typed arguments. The engine renders clang-style
// messages through llvm::SourceMgr, or hands them to a handler (the verifier
// of --verify-diagnostics), and stops accepting errors past the error limit.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_DIAG_DIAGNOSTIC_H
#define SHARDC_DIAG_DIAGNOSTIC_H

#include "diag/Location.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"
#include <cstdint>
#include <fmt/format.h>
#include <functional>
#include <string>
#include <type_traits>

namespace shardc {

enum class DiagKind : uint16_t {
#define DIAG(Id, Sev, Fmt, ...) Id,
#include "diag/Diagnostics.def"
};
constexpr unsigned NumDiagKinds = 0
#define DIAG(Id, Sev, Fmt, ...) +1
#include "diag/Diagnostics.def"
    ;

enum class Severity : uint8_t { Error, Warning, Note, Remark };

/// A diagnostic kind whose message takes arguments of types \p Args.
template <typename... Args> struct DiagDesc {
  DiagKind Kind;
  Severity Sev;
  const char *Format;
};

namespace diag {
#define DIAG(Id, Sev, Fmt, ...)                                                \
  inline constexpr DiagDesc<__VA_ARGS__> Id{DiagKind::Id, Severity::Sev, Fmt};
#include "diag/Diagnostics.def"
} // namespace diag

llvm::StringRef diagKindName(DiagKind K);

/// One rendered diagnostic, as a handler sees it.
struct Diagnostic {
  DiagKind Kind;
  Severity Sev;
  llvm::SMRange Range;
  std::string Message;
};

class DiagnosticEngine {
public:
  using Handler = std::function<void(const Diagnostic &)>;

  explicit DiagnosticEngine(llvm::SourceMgr &SM);

  /// Reports \p D at \p Range. A note attaches to the diagnostic before it and
  /// is dropped with it when that one was dropped.
  template <typename... Args>
  void report(llvm::SMRange Range, const DiagDesc<Args...> &D,
              std::type_identity_t<Args>... A) {
    Severity Sev = D.Sev;
    if (!admit(Sev, Range))
      return;
    emit({D.Kind, Sev, Range, fmt::format(fmt::runtime(D.Format), A...)});
  }
  template <typename... Args>
  void report(llvm::SMLoc Loc, const DiagDesc<Args...> &D,
              std::type_identity_t<Args>... A) {
    report(llvm::SMRange(Loc, Loc), D, A...);
  }
  /// Reports at a location a later phase holds (an IR op's).
  template <typename... Args>
  void report(Loc L, const DiagDesc<Args...> &D,
              std::type_identity_t<Args>... A) {
    report(toSMLoc(L), D, A...);
  }

  /// The buffer, line and column of \p P; an invalid Loc for an invalid one.
  Loc location(llvm::SMLoc P) const;
  /// The pointer \p L names; invalid when its buffer or line is gone.
  llvm::SMLoc toSMLoc(Loc L) const;

  /// Replaces printing: \p H receives every diagnostic instead.
  void setHandler(Handler H) { Custom = std::move(H); }
  /// Also shows every diagnostic to \p H, after it is printed or handled
  /// (the driver's JSON output lists them).
  void setObserver(Handler H) { Observer = std::move(H); }
  void setErrorLimit(unsigned N) { ErrorLimit = N; }
  void setShowColors(bool B) { Colors = B; }
  /// Warnings become errors (-Werror).
  void setWarningsAsErrors(bool B) { WarningsAsErrors = B; }

  unsigned errorCount() const { return Errors; }
  bool hasErrors() const { return Errors != 0; }
  /// True once the error limit was hit: callers stop their work.
  bool shouldStop() const { return Stopped; }
  llvm::SourceMgr &sourceMgr() { return SM; }

private:
  bool admit(Severity &S, llvm::SMRange Range);
  void emit(const Diagnostic &D);
  void print(const Diagnostic &D);

  llvm::SourceMgr &SM;
  Handler Custom;
  Handler Observer;
  unsigned Errors = 0;
  unsigned ErrorLimit = 20;
  bool Stopped = false;
  bool LastDropped = false;
  bool Colors = false;
  bool WarningsAsErrors = false;
};

} // namespace shardc

// No fmt::formatter<llvm::StringRef> here: fmt formats a StringRef through
// its conversion to std::string_view. A specialization visible in some files
// and not in others made fmt::format<StringRef, ...> two different functions
// under one name (an ODR violation): a Debug build, which does not inline
// them, crashed printing a diagnostic.

#endif // SHARDC_DIAG_DIAGNOSTIC_H
