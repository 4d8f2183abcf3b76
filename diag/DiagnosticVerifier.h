//===- DiagnosticVerifier.h - --verify-diagnostics --------------*- C++ -*-===//
//
// Owns the MLIR-style diagnostic verifier: a source buffer states the
// diagnostics it must produce in comments,
//
//   tensor x : bf16[Q];  // expected-error {{'Q' is not a declared dim}}
//   // expected-error@+1 {{unexpected ';'}}
//   // expected-note@above {{first declared here}}
//
// and the verifier, installed as the engine's handler, collects what the
// compile actually reported and checks that the two sets match exactly. This
// is how negative lit tests check message and line without a FileCheck line
// per diagnostic.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_DIAG_DIAGNOSTICVERIFIER_H
#define SHARDC_DIAG_DIAGNOSTICVERIFIER_H

#include "diag/Diagnostic.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace shardc {

/// One `expected-<severity>@<where> {{<substring>}}` comment.
struct Expectation {
  Severity Sev = Severity::Error;
  unsigned BufferId = 0;
  /// The 1-based line the diagnostic must be on.
  unsigned Line = 0;
  /// Must occur in the diagnostic's message.
  std::string Substring;
  /// Where the comment's `expected-` starts; mismatches are reported here.
  llvm::SMLoc Loc;
  bool Matched = false;
};

class DiagnosticVerifier {
public:
  /// Installs itself as \p Diags' handler; from then on diagnostics are
  /// collected, not printed. The verifier must outlive the compile.
  explicit DiagnosticVerifier(DiagnosticEngine &Diags);

  /// Reads the expectations of buffer \p BufferId. Buffers that produce a
  /// diagnostic are read on their own too (an imported file may carry
  /// expectations), so this is needed only for the main buffer, whose
  /// expectations count even when it produces nothing.
  void addExpectations(unsigned BufferId);

  /// Matches the collected diagnostics against the expectations and reports
  /// every mismatch (and every malformed expectation) to \p OS. Returns true
  /// iff every diagnostic was expected and every expectation was produced.
  bool verify(llvm::raw_ostream &OS, bool ShowColors = false);

  const std::vector<Expectation> &expectations() const { return Expected; }
  const std::vector<Diagnostic> &diagnostics() const { return Seen; }

private:
  void collect(const Diagnostic &D);
  void parseLine(unsigned BufferId, llvm::StringRef Line, unsigned LineNo,
                 unsigned &LastPlainLine, std::vector<size_t> &PendingBelow);
  void malformed(llvm::SMLoc Loc, const llvm::Twine &Why);

  DiagnosticEngine &Diags;
  std::vector<Expectation> Expected;
  std::vector<Diagnostic> Seen;
  /// Problems in the expectations themselves, reported by verify().
  std::vector<std::pair<llvm::SMLoc, std::string>> Malformed;
  llvm::DenseSet<unsigned> ParsedBuffers;
};

} // namespace shardc

#endif // SHARDC_DIAG_DIAGNOSTICVERIFIER_H
