//===- DiagnosticCoverageTest.cpp - Every diagnostic kind has a lit test --===//
//
// Fails when a kind in diag/Diagnostics.def has no negative lit test. A
// test names the kinds it covers on a comment line `// DIAG: A, B` (or
// `# DIAG: A` in a .test file); every file under tests/lit is scanned. The
// kinds no input can reach are listed below with the reason, and must stay
// uncovered: a test for one of them means the list is stale. The idea is
// Carbon's toolchain/diagnostics/coverage_test.cpp.
//
//===----------------------------------------------------------------------===//
#include "diag/Diagnostic.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include <map>
#include <string>
#include <vector>

using namespace shardc;
using ::testing::IsEmpty;

namespace {

/// Kinds that no input can produce, each with why. Keep this short: a kind
/// that is reachable belongs in a lit test instead.
const std::map<std::string, std::string> Unreachable = {
    {"InvalidNumber",
     "the lexer's NUMBER rule admits only literals parseNumber accepts; a "
     "literal too large is IntegerOverflow or NotFinite"},
    {"NoPlanInternal",
     "a shardc bug turned into a located error: the frontend checks that "
     "every written op has a plan and derive-backward builds its ops to "
     "have one; no input is known to reach it"},
    {"ScheduleInternal",
     "a shardc bug turned into a located error: every order the pipeline "
     "simulation builds completes (the interleaved schedule's needs whole "
     "groups of p microbatches, which the frontend requires; "
     "PipelinePropertyTest and ScheduleTest cover the orders)"},
};

/// What one `DIAG:` line names, with where it was found.
struct Mention {
  std::string Kind;
  std::string Where;
};

/// The names on `// DIAG: ...` and `# DIAG: ...` lines of every file under
/// \p Dir.
std::vector<Mention> scanDiagLines(llvm::StringRef Dir) {
  std::vector<Mention> Out;
  std::error_code EC;
  for (llvm::sys::fs::recursive_directory_iterator It(Dir, EC), End;
       It != End && !EC; It.increment(EC)) {
    if (It->type() != llvm::sys::fs::file_type::regular_file)
      continue;
    auto Buf = llvm::MemoryBuffer::getFile(It->path());
    if (!Buf)
      continue;
    llvm::SmallVector<llvm::StringRef, 64> Lines;
    (*Buf)->getBuffer().split(Lines, '\n');
    for (size_t N = 0; N < Lines.size(); ++N) {
      llvm::StringRef L = Lines[N].trim();
      if (!L.consume_front("//") && !L.consume_front("#"))
        continue;
      L = L.ltrim();
      if (!L.consume_front("DIAG:"))
        continue;
      llvm::SmallVector<llvm::StringRef, 4> Names;
      L.split(Names, ',', -1, /*KeepEmpty=*/false);
      for (llvm::StringRef Name : Names)
        Out.push_back(
            {Name.trim().str(), It->path() + ":" + std::to_string(N + 1)});
    }
  }
  EXPECT_FALSE(EC) << "cannot scan " << Dir.str() << ": " << EC.message();
  return Out;
}

std::vector<std::string> allKindNames() {
  std::vector<std::string> Names;
  for (unsigned I = 0; I < NumDiagKinds; ++I)
    Names.push_back(diagKindName(DiagKind(I)).str());
  return Names;
}

TEST(DiagnosticCoverageTest, EveryKindHasANegativeLitTest) {
  llvm::StringSet<> Covered;
  for (const Mention &M : scanDiagLines(SHARDC_LIT_TEST_DIR))
    Covered.insert(M.Kind);
  std::vector<std::string> Uncovered;
  for (const std::string &Kind : allKindNames())
    if (!Covered.count(Kind) && !Unreachable.count(Kind))
      Uncovered.push_back(Kind);
  EXPECT_THAT(Uncovered, IsEmpty())
      << "add a lit test with a `// DIAG: <kind>` line under "
      << SHARDC_LIT_TEST_DIR << " for each kind above";
}

TEST(DiagnosticCoverageTest, DiagLinesNameRealKinds) {
  std::vector<std::string> Kinds = allKindNames();
  std::vector<std::string> Unknown;
  for (const Mention &M : scanDiagLines(SHARDC_LIT_TEST_DIR))
    if (!llvm::is_contained(Kinds, M.Kind))
      Unknown.push_back(M.Where + ": '" + M.Kind + "'");
  EXPECT_THAT(Unknown, IsEmpty()) << "these DIAG: lines name no diagnostic "
                                     "kind of diag/Diagnostics.def";
}

TEST(DiagnosticCoverageTest, UnreachableKindsAreKindsWithoutTests) {
  std::vector<std::string> Kinds = allKindNames();
  llvm::StringSet<> Covered;
  for (const Mention &M : scanDiagLines(SHARDC_LIT_TEST_DIR))
    Covered.insert(M.Kind);
  std::vector<std::string> Stale;
  for (const auto &[Kind, Why] : Unreachable)
    if (!llvm::is_contained(Kinds, Kind) || Covered.count(Kind))
      Stale.push_back(Kind);
  EXPECT_THAT(Stale, IsEmpty())
      << "remove these from the Unreachable list: they are no longer kinds, "
         "or a lit test now covers them";
}

} // namespace
