//===- DiagnosticVerifierTest.cpp - --verify-diagnostics ------------------===//
//
// Tests diag/DiagnosticVerifier: parsing `expected-*` comments (every
// designator form), matching them against reported diagnostics, and the
// messages for each kind of mismatch.
//
//===----------------------------------------------------------------------===//
#include "diag/DiagnosticVerifier.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include <string>

using namespace shardc;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

namespace {

/// A buffer, an engine and a verifier over them, in the order they must die.
class VerifierTest : public ::testing::Test {
protected:
  void load(llvm::StringRef Text) {
    Id = SM.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(Text, "test.shard"),
        llvm::SMLoc());
    Verifier.addExpectations(Id);
  }

  /// The start of 1-based line \p Line, plus \p Col - 1 bytes.
  llvm::SMLoc at(unsigned Line, unsigned Col = 1) {
    llvm::StringRef B = SM.getMemoryBuffer(Id)->getBuffer();
    const char *P = B.data();
    for (unsigned L = 1; L < Line; ++L)
      P = B.data() + B.find('\n', P - B.data()) + 1;
    return llvm::SMLoc::getFromPointer(P + Col - 1);
  }

  /// Runs the verifier; its report lands in Output.
  bool verify() {
    Output.clear();
    llvm::raw_string_ostream OS(Output);
    return Verifier.verify(OS);
  }

  llvm::SourceMgr SM;
  DiagnosticEngine Diags{SM};
  DiagnosticVerifier Verifier{Diags};
  unsigned Id = 0;
  std::string Output;
};

auto expectation(Severity Sev, unsigned Line, const char *Substring) {
  return ::testing::AllOf(Field(&Expectation::Sev, Sev),
                          Field(&Expectation::Line, Line),
                          Field(&Expectation::Substring, Substring));
}

TEST_F(VerifierTest, ParsesEveryDesignator) {
  load("a // expected-error {{same line}}\n"    // 1
       "// expected-warning@+2 {{two below}}\n" // 2
       "b\n"                                    // 3
       "c\n"                                    // 4
       "// expected-note@-3 {{three above}}\n"  // 5
       "// expected-remark@above {{c line}}\n"  // 6
       "// expected-error@below {{d line}}\n"   // 7
       "// expected-error@below {{d too}}\n"    // 8
       "d\n");                                  // 9
  EXPECT_THAT(Verifier.expectations(),
              ElementsAre(expectation(Severity::Error, 1, "same line"),
                          expectation(Severity::Warning, 4, "two below"),
                          expectation(Severity::Note, 2, "three above"),
                          expectation(Severity::Remark, 4, "c line"),
                          expectation(Severity::Error, 9, "d line"),
                          expectation(Severity::Error, 9, "d too")));
}

TEST_F(VerifierTest, MessageKeepsInnerBraces) {
  load("// expected-error {{write 'F_{...}'}}\n");
  EXPECT_THAT(Verifier.expectations(),
              ElementsAre(expectation(Severity::Error, 1, "write 'F_{...}'")));
}

TEST_F(VerifierTest, IgnoresProseAndCode) {
  load("// the expected-output of this file\n"
       "x = \"expected-error {{not a comment}}\";\n");
  EXPECT_THAT(Verifier.expectations(), IsEmpty());
  EXPECT_TRUE(verify());
}

TEST_F(VerifierTest, MatchesSubstringOnTheLine) {
  load("tensor x : bf16[Q];\n"
       "// expected-error@-1 {{'Q' is not}}\n");
  Diags.report(at(1, 17), diag::UndeclaredDim, std::string("Q"));
  EXPECT_TRUE(verify()) << Output;
  EXPECT_EQ(Output, "");
}

TEST_F(VerifierTest, ReportsUnexpectedDiagnostic) {
  load("let x = 1 @ 2;\n");
  Diags.report(at(1, 11), diag::InvalidCharacter, std::string("@"));
  EXPECT_FALSE(verify());
  EXPECT_THAT(Output, HasSubstr("test.shard:1:11: error: unexpected error: "
                                "invalid character '@' in source"));
}

TEST_F(VerifierTest, ReportsExpectationNotProduced) {
  load("let x = 1;\n"
       "  // expected-error@-1 {{division by zero}}\n");
  EXPECT_FALSE(verify());
  EXPECT_THAT(Output, HasSubstr("test.shard:2:6: error: expected error "
                                "\"division by zero\" was not produced"));
}

TEST_F(VerifierTest, WrongLineIsBothUnexpectedAndMissing) {
  load("// expected-error@+1 {{division by zero}}\n"
       "let x = 1;\n"
       "let y = 1 / 0;\n");
  Diags.report(at(3, 9), diag::DivisionByZero);
  EXPECT_FALSE(verify());
  EXPECT_THAT(Output, HasSubstr("3:9: error: unexpected error: division"));
  EXPECT_THAT(Output, HasSubstr("1:4: error: expected error \"division by "
                                "zero\" was not produced"));
}

TEST_F(VerifierTest, SeverityMustMatch) {
  load("let x = 1; // expected-warning {{division by zero}}\n");
  Diags.report(at(1, 5), diag::DivisionByZero);
  EXPECT_FALSE(verify());
}

TEST_F(VerifierTest, EachExpectationMatchesOnce) {
  load("let x = 1; // expected-error {{division by zero}}\n");
  Diags.report(at(1, 5), diag::DivisionByZero);
  Diags.report(at(1, 9), diag::DivisionByZero);
  EXPECT_FALSE(verify());
  EXPECT_THAT(Output, HasSubstr("1:9: error: unexpected error"));
}

TEST_F(VerifierTest, NotesMustBeExpectedToo) {
  load("let x = 1;\n"
       "let x = 2; // expected-error {{redeclaration of 'x'}}\n"
       "// expected-note@-2 {{'x' was first declared here}}\n");
  Diags.report(at(2, 5), diag::Redeclaration, std::string("x"));
  Diags.report(at(1, 5), diag::PreviousDeclaration, std::string("x"));
  EXPECT_TRUE(verify()) << Output;
}

TEST_F(VerifierTest, ErrorLimitNoteIsVisible) {
  Diags.setErrorLimit(1);
  // The limit note replaces the first dropped error, at its location.
  load("let x = 1 / 0; // expected-error {{division by zero}}\n"
       "// expected-note@+1 {{too many errors emitted; stopping after 1}}\n"
       "let y = 1 / 0;\n");
  Diags.report(at(1, 9), diag::DivisionByZero);
  Diags.report(at(3, 9), diag::DivisionByZero);
  EXPECT_TRUE(verify()) << Output;
}

TEST_F(VerifierTest, MalformedExpectationsFail) {
  load("// expected-error division by zero\n"
       "// expected-error@+x {{y}}\n"
       "// expected-note@above {{nothing above}}\n"
       "// expected-error@-9 {{before the start}}\n");
  EXPECT_THAT(Verifier.expectations(), IsEmpty());
  EXPECT_FALSE(verify());
  EXPECT_THAT(Output, HasSubstr("1:4: error: malformed expectation: expected "
                                "'{{message}}' after 'expected-error'"));
  EXPECT_THAT(Output, HasSubstr("2:4: error: malformed expectation: expected "
                                "'@+N', '@-N', '@above' or '@below'"));
  EXPECT_THAT(Output, HasSubstr("3:4: error: malformed expectation: '@above' "
                                "with no line above"));
  EXPECT_THAT(Output, HasSubstr("4:4: error: malformed expectation: the "
                                "designated line is before the file's start"));
}

TEST_F(VerifierTest, BelowAtEndOfFileIsNeverProduced) {
  load("let x = 1;\n// expected-error@below {{nothing below}}");
  EXPECT_FALSE(verify());
  EXPECT_THAT(Output, HasSubstr("was not produced"));
}

TEST_F(VerifierTest, DiagnosticsInOtherBuffersBringTheirExpectations) {
  load("import \"lib.shard\";\n");
  unsigned Lib = SM.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          "let z = 1 / 0; // expected-error {{division by zero}}\n",
          "lib.shard"),
      llvm::SMLoc());
  const char *LibStart = SM.getMemoryBuffer(Lib)->getBufferStart();
  Diags.report(llvm::SMLoc::getFromPointer(LibStart + 8), diag::DivisionByZero);
  EXPECT_TRUE(verify()) << Output;
}

} // namespace

namespace {

// A StringRef argument is formatted as a string everywhere: a
// fmt::formatter<llvm::StringRef> visible in some files and not others made
// fmt::format<StringRef, ...> two functions under one name, and a Debug
// build (which keeps one out-of-line copy) crashed reporting "undefined
// cluster". This file sees every header a diagnostic is formatted with.
static_assert(!fmt::has_formatter<llvm::StringRef, fmt::format_context>::value,
              "format StringRef through std::string_view in every file: no "
              "fmt::formatter<llvm::StringRef>");

TEST(DiagnosticFormat, StringRefArgumentsAreStrings) {
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  std::string Seen;
  Diags.setHandler([&](const Diagnostic &D) { Seen = D.Message; });
  Diags.report(llvm::SMLoc(), diag::UndefinedName, llvm::StringRef("cluster"),
               std::string("DGX_H100_SuperPod"));
  EXPECT_EQ(Seen, "undefined cluster 'DGX_H100_SuperPod'");
}

} // namespace
