//===- LexerEquivalenceTest.cpp - Hand-written lexer == generated lexer ---===//
//
// The parser reads its tokens from the hand-written lexer
// (frontend/Lexer.cpp) through ANTLR's TokenSource interface; the grammar's
// generated ShardLexer stays normative. This test runs both over the same
// text and compares every token the TokenSource returns (hidden-channel
// comments and EOF included): kind, text, line, column, channel, and start
// and stop (ANTLR's code-point indices converted to the byte offsets ours
// use). The texts: every file under tests/lit, examples/ and stdlib/; the
// inputs the .test files make with printf or `python3 -c`; 300 generated
// programs; and 1,500 generated programs with random edits drawn from the
// characters where the lexer rules are subtle (comment and string
// delimiters, number parts, line ends, non-ASCII, the micro signs).
//
//===----------------------------------------------------------------------===//
#include "ShardLexer.h"
#include "frontend/Parser.h"
#include "frontend/TokenAdapter.h"
#include "tests/support/ProgramGenerator.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <cstdio>
#include <fmt/format.h>
#include <optional>
#include <string>
#include <vector>

using namespace shardc;

namespace {

struct Tok {
  size_t Type, Channel, Line, Column, Start, Stop;
  std::string Text;
  bool operator==(const Tok &) const = default;
};

std::string show(const Tok &T) {
  return fmt::format("type {} channel {} at {}:{} bytes {}..{} '{}'", T.Type,
                     T.Channel, T.Line, T.Column, ssize_t(T.Start),
                     ssize_t(T.Stop), T.Text);
}

/// What the ANTLR runtime accepts: well-formed UTF-8 (it throws otherwise).
/// The compiler refuses anything else before lexing (Parser.cpp).
bool isUtf8(llvm::StringRef S) {
  for (size_t I = 0; I < S.size();) {
    unsigned char C = S[I];
    size_t N = C < 0x80 ? 1 : C < 0xC2 ? 0 : C < 0xE0 ? 2 : C < 0xF0 ? 3 : 4;
    if (N == 0 || C > 0xF4 || I + N > S.size())
      return false;
    for (size_t K = 1; K < N; ++K)
      if ((static_cast<unsigned char>(S[I + K]) & 0xC0) != 0x80)
        return false;
    unsigned char C1 = N > 1 ? S[I + 1] : 0;
    if ((C == 0xE0 && C1 < 0xA0) || (C == 0xED && C1 >= 0xA0) ||
        (C == 0xF0 && C1 < 0x90) || (C == 0xF4 && C1 >= 0x90))
      return false;
    I += N;
  }
  return true;
}

std::vector<Tok> generatedTokens(llvm::StringRef Src) {
  std::vector<size_t> ByteOf; // code point index -> byte offset
  for (size_t I = 0; I < Src.size(); ++I)
    if ((static_cast<unsigned char>(Src[I]) & 0xC0) != 0x80)
      ByteOf.push_back(I);
  ByteOf.push_back(Src.size());
  auto Byte = [&](size_t CP) {
    return CP == size_t(-1) ? size_t(-1) : ByteOf.at(CP);
  };
  antlr4::ANTLRInputStream Input(Src.str());
  shardgen::ShardLexer Lexer(&Input);
  Lexer.removeErrorListeners();
  std::vector<Tok> Out;
  for (;;) {
    std::unique_ptr<antlr4::Token> T = Lexer.nextToken();
    // The last byte of the stop code point; EOF stops one before it starts
    // (and an empty file's EOF at -1, which wraps back to -1 here).
    size_t Stop = Byte(T->getStopIndex() + 1) - 1;
    Out.push_back({T->getType(), T->getChannel(), T->getLine(),
                   T->getCharPositionInLine(), Byte(T->getStartIndex()), Stop,
                   T->getText()});
    if (T->getType() == antlr4::Token::EOF)
      return Out;
  }
}

std::vector<Tok> handWrittenTokens(llvm::StringRef Src) {
  LexerTokenSource Source(Src, "test");
  std::vector<Tok> Out;
  for (;;) {
    std::unique_ptr<antlr4::Token> T = Source.nextToken();
    Out.push_back({T->getType(), T->getChannel(), T->getLine(),
                   T->getCharPositionInLine(), T->getStartIndex(),
                   T->getStopIndex(), T->getText()});
    if (T->getType() == antlr4::Token::EOF)
      return Out;
  }
}

/// Both lexers give the same tokens for \p Src (named \p What in failures).
testing::AssertionResult sameTokens(const std::string &What,
                                    llvm::StringRef Src) {
  std::vector<Tok> Want = generatedTokens(Src), Got = handWrittenTokens(Src);
  for (size_t I = 0; I < std::max(Want.size(), Got.size()); ++I) {
    if (I < Want.size() && I < Got.size() && Want[I] == Got[I])
      continue;
    return testing::AssertionFailure()
           << What << ": token " << I << " differs\n  generated:    "
           << (I < Want.size() ? show(Want[I]) : "(none)")
           << "\n  hand-written: "
           << (I < Got.size() ? show(Got[I]) : "(none)");
  }
  return testing::AssertionSuccess() << Want.size() << " tokens";
}

std::string sourceDir() {
  llvm::SmallString<256> Dir(SHARDC_LIT_TEST_DIR);
  llvm::sys::path::remove_filename(Dir); // tests/lit -> tests
  llvm::sys::path::remove_filename(Dir); // tests -> the source root
  return std::string(Dir);
}

std::vector<std::string> filesUnder(const std::string &Dir) {
  std::vector<std::string> Out;
  std::error_code EC;
  for (llvm::sys::fs::recursive_directory_iterator It(Dir, EC), End;
       It != End && !EC; It.increment(EC))
    if (It->type() == llvm::sys::fs::file_type::regular_file)
      Out.push_back(It->path());
  EXPECT_FALSE(EC) << Dir << ": " << EC.message();
  return Out;
}

std::string readFile(const std::string &Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  EXPECT_TRUE(bool(Buf)) << Path;
  return Buf ? (*Buf)->getBuffer().str() : std::string();
}

TEST(LexerEquivalenceTest, SourceFiles) {
  unsigned Compared = 0;
  for (const char *Sub : {"tests/lit", "examples", "stdlib"}) {
    for (const std::string &Path : filesUnder(sourceDir() + "/" + Sub)) {
      std::string Text = readFile(Path);
      if (!isUtf8(Text))
        continue;
      EXPECT_TRUE(sameTokens(Path, Text));
      ++Compared;
    }
  }
  // The lit suite alone has over 200 tests: a scan that finds few is broken.
  EXPECT_GT(Compared, 200u);
}

/// Decodes the format of `printf '...'` as the RUN lines use it: \n, \t,
/// \\, \xHH, \NNN (octal), and %% (lit's escape for %).
std::string decodePrintf(llvm::StringRef F) {
  std::string Out;
  for (size_t I = 0; I < F.size(); ++I) {
    if (F[I] == '%' && I + 1 < F.size() && F[I + 1] == '%') {
      Out += '%';
      ++I;
    } else if (F[I] != '\\' || I + 1 == F.size()) {
      Out += F[I];
    } else if (F[++I] == 'x') {
      unsigned V = 0;
      for (size_t K = 0;
           K < 2 && I + 1 < F.size() && llvm::isHexDigit(F[I + 1]); ++K)
        V = V * 16 + llvm::hexDigitValue(F[++I]);
      Out += char(V);
    } else if (F[I] >= '0' && F[I] <= '7') {
      unsigned V = F[I] - '0';
      for (size_t K = 0;
           K < 2 && I + 1 < F.size() && F[I + 1] >= '0' && F[I + 1] <= '7'; ++K)
        V = V * 8 + (F[++I] - '0');
      Out += char(V);
    } else {
      Out += F[I] == 'n' ? '\n' : F[I] == 't' ? '\t' : F[I];
    }
  }
  return Out;
}

/// The standard output of each Python snippet, all run by one python3 (whose
/// start-up alone takes seconds on a busy machine).
std::vector<std::string> runPython(const std::vector<std::string> &Snippets) {
  std::string Program = "import io, sys\nout = sys.stdout.buffer\nfor h in [";
  for (const std::string &S : Snippets)
    Program += "'" + llvm::toHex(S) + "',";
  Program += "]:\n"
             "    b = io.BytesIO()\n"
             "    sys.stdout = io.TextIOWrapper(b, encoding='utf-8')\n"
             "    exec(bytes.fromhex(h).decode(), {})\n"
             "    sys.stdout.flush()\n"
             "    out.write(b'%20d' % len(b.getvalue()) + b.getvalue())\n";
  llvm::SmallString<128> Path;
  int FD;
  EXPECT_FALSE(llvm::sys::fs::createTemporaryFile("lexeq", "py", FD, Path));
  {
    llvm::raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << Program;
  }
  FILE *P = popen(("python3 " + std::string(Path)).c_str(), "r");
  EXPECT_NE(P, nullptr);
  std::string Out;
  char Chunk[65536];
  for (size_t N; P && (N = fread(Chunk, 1, sizeof Chunk, P)) > 0;)
    Out.append(Chunk, N);
  EXPECT_EQ(P ? pclose(P) : -1, 0) << Program;
  llvm::sys::fs::remove(Path);
  std::vector<std::string> Outputs;
  for (size_t At = 0; At + 20 <= Out.size();) {
    size_t Len = std::stoull(Out.substr(At, 20));
    Outputs.push_back(Out.substr(At + 20, Len));
    At += 20 + Len;
  }
  EXPECT_EQ(Outputs.size(), Snippets.size());
  return Outputs;
}

/// What a RUN line writes: the bytes of `printf '...'`, or the code of
/// `python3 -c "..."` to run.
struct RunLineInput {
  std::string Where;
  bool IsPython = false;
  std::string Payload;
};

/// The input a RUN line writes with `printf '...'` or `python3 -c "..."`,
/// or nothing. Lines that write several files or read lit's %t/%S are
/// skipped: their inputs are other tests' files or come from Inputs/.
std::optional<RunLineInput> runLineInput(llvm::StringRef Line) {
  if (Line.contains("%t/") || Line.contains("%S") || Line.contains("open("))
    return std::nullopt;
  size_t P = Line.find("printf '");
  if (P != llvm::StringRef::npos) {
    llvm::StringRef F = Line.drop_front(P + 8);
    return RunLineInput{"", false, decodePrintf(F.take_front(F.find('\'')))};
  }
  P = Line.find("python3 -c \"");
  if (P == llvm::StringRef::npos)
    return std::nullopt;
  // The code runs to the first unescaped '"'; inside bash's double quotes a
  // backslash escapes only $ ` " \ (others stay), and lit's %% is %.
  std::string Code;
  for (size_t I = P + 12; I < Line.size() && Line[I] != '"'; ++I) {
    char Next = I + 1 < Line.size() ? Line[I + 1] : '\0';
    if ((Line[I] == '\\' && llvm::StringRef("$`\"\\").contains(Next)) ||
        (Line[I] == '%' && Next == '%'))
      ++I;
    Code += Line[I];
  }
  return RunLineInput{"", true, Code};
}

std::vector<RunLineInput> inputsOfTestFiles() {
  std::vector<RunLineInput> Inputs;
  for (const std::string &Path : filesUnder(SHARDC_LIT_TEST_DIR)) {
    if (!llvm::StringRef(Path).endswith(".test"))
      continue;
    llvm::SmallVector<llvm::StringRef, 16> Lines;
    std::string Text = readFile(Path);
    llvm::StringRef(Text).split(Lines, '\n');
    for (size_t N = 0; N < Lines.size(); ++N) {
      if (!Lines[N].contains("RUN:"))
        continue;
      if (std::optional<RunLineInput> In = runLineInput(Lines[N])) {
        In->Where = Path + ":" + std::to_string(N + 1);
        Inputs.push_back(std::move(*In));
      }
    }
  }
  std::vector<std::string> Snippets;
  for (const RunLineInput &In : Inputs)
    if (In.IsPython)
      Snippets.push_back(In.Payload);
  std::vector<std::string> Outputs = runPython(Snippets);
  for (size_t I = 0, K = 0; I < Inputs.size() && K < Outputs.size(); ++I)
    if (Inputs[I].IsPython)
      Inputs[I].Payload = Outputs[K++];
  return Inputs;
}

TEST(LexerEquivalenceTest, InputsOfTestFiles) {
  unsigned Compared = 0;
  for (const RunLineInput &In : inputsOfTestFiles()) {
    // Invalid UTF-8 and files over the size limit never reach a lexer
    // (Parser.cpp refuses them first).
    if (!isUtf8(In.Payload) || In.Payload.size() > ParseLimits().MaxFileBytes)
      continue;
    // Nor does a byte-order mark: readSourceFile drops it.
    llvm::StringRef Payload = In.Payload;
    Payload.consume_front("\xEF\xBB\xBF");
    EXPECT_TRUE(sameTokens(In.Where, Payload.str()));
    ++Compared;
  }
  // 30 RUN lines make a valid input today: far fewer means the scan broke.
  EXPECT_GE(Compared, 25u);
}

TEST(LexerEquivalenceTest, GeneratedPrograms) {
  for (uint64_t Seed = 0; Seed < 300; ++Seed)
    EXPECT_TRUE(sameTokens("generated program, seed " + std::to_string(Seed),
                           testgen::generateProgram(Seed)));
}

/// Where the lexer rules have corners: comment and string delimiters, number
/// parts, line ends and other whitespace, keywords' prefixes, characters no
/// rule matches, multi-byte characters, and the micro signs.
const char *const Tricky[] = {
    "/",   "*",  "/*", "*/",  "//", "\"", "\\", "\n",        "\r",
    "\t",  "\f", "\v", " ",   ".",  "e",  "E",  "+",         "-",
    "_",   "0",  "7",  "1.5", "1e", "@",  "#",  "`",         "tens",
    "dim", "µ",  "μ",  "µs",  "μs", "×",  "€",  "\U0001F600"};

/// \p Src with a few random edits: a tricky piece inserted, a byte-range
/// deleted, or a piece swapped in for one byte.
std::string mutate(std::string Src, testgen::SplitMix64 &R) {
  for (uint64_t Edits = R.between(1, 6); Edits; --Edits) {
    size_t At = R.index(Src.size() + 1);
    std::string Piece = Tricky[R.index(std::size(Tricky))];
    switch (R.between(0, 2)) {
    case 0:
      Src.insert(At, Piece);
      break;
    case 1:
      Src.erase(At, R.between(1, 8));
      break;
    default:
      Src.replace(At, 1, Piece);
      break;
    }
  }
  return Src;
}

TEST(LexerEquivalenceTest, MutatedPrograms) {
  testgen::SplitMix64 R(8);
  unsigned Compared = 0;
  for (uint64_t Seed = 0; Seed < 1500; ++Seed) {
    std::string Src = mutate(testgen::generateProgram(Seed % 300), R);
    // Deleting bytes can split a multi-byte character.
    if (!isUtf8(Src))
      continue;
    EXPECT_TRUE(sameTokens(
        "mutated program " + std::to_string(Seed) + ":\n" + Src, Src));
    ++Compared;
  }
  EXPECT_GT(Compared, 1000u);
}

} // namespace
