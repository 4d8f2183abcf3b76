//===- JsonWriter.cpp - A fast streaming JSON writer ----------------------===//
#include "report/JsonWriter.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include <cassert>
#include <cmath>
#include <fmt/compile.h>
#include <fmt/format.h>

using namespace shardc;

void shardc::writeJsonDouble(llvm::raw_ostream &OS, double V) {
  // JSON has no inf or nan: Sema bounds every hardware property so that no
  // number derived from them overflows (docs/limits.md).
  assert(std::isfinite(V) && "a report number is not finite");
  // `%.17g` prints an integral value below 1e17 with all its digits and
  // nothing else; -0 keeps its sign.
  if (std::isfinite(V) && std::fabs(V) < 1e17 && V == std::trunc(V) &&
      !(V == 0 && std::signbit(V))) {
    OS << int64_t(V);
    return;
  }
  char Buf[40];
  // Compiled: the format string is not parsed again for every number.
  char *End = fmt::format_to(Buf, FMT_COMPILE("{:.17g}"), V);
  OS.write(Buf, End - Buf);
}

void shardc::writeJsonString(llvm::raw_ostream &OS, llvm::StringRef S) {
  if (LLVM_UNLIKELY(!llvm::json::isUTF8(S))) {
    writeJsonString(OS, llvm::json::fixUTF8(S));
    return;
  }
  OS << '"';
  const char *Run = S.begin();
  for (const char *P = S.begin(), *E = S.end(); P != E; ++P) {
    unsigned char C = *P;
    if (C >= 0x20 && C != '"' && C != '\\')
      continue;
    OS.write(Run, P - Run);
    Run = P + 1;
    OS << '\\';
    switch (C) {
    case '"':
    case '\\':
      OS << char(C);
      break;
    case '\t':
      OS << 't';
      break;
    case '\n':
      OS << 'n';
      break;
    case '\r':
      OS << 'r';
      break;
    default:
      OS << 'u' << llvm::format_hex_no_prefix(C, 4, /*Upper=*/false);
      break;
    }
  }
  OS.write(Run, S.end() - Run);
  OS << '"';
}

void JsonWriter::valueBegin() {
  Frame &F = Stack.back();
  if (F.HasValue)
    OS << ',';
  if (F.Ctx == Context::Array)
    newline();
  F.HasValue = true;
}

void JsonWriter::open(Context C, char Bracket) {
  valueBegin();
  Stack.push_back({C, false});
  Indent += IndentSize;
  OS << Bracket;
}

void JsonWriter::close(char Bracket) {
  Indent -= IndentSize;
  if (Stack.back().HasValue)
    newline();
  OS << Bracket;
  Stack.pop_back();
}

void JsonWriter::attributeBegin(llvm::StringRef Key) {
  Frame &F = Stack.back();
  if (F.HasValue)
    OS << ',';
  newline();
  F.HasValue = true;
  Stack.push_back({Context::Singleton, false});
  writeJsonString(OS, Key);
  OS << ':';
  if (IndentSize)
    OS << ' ';
}
