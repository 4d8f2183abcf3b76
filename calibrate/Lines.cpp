//===- Lines.cpp - A benchmark output's lines and fields ------------------===//
#include "calibrate/Lines.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

namespace shardc::calibrate {

std::vector<Line> splitLines(llvm::StringRef Buffer) {
  std::vector<Line> Out;
  unsigned Number = 1;
  while (!Buffer.empty()) {
    auto [Text, Rest] = Buffer.split('\n');
    Out.push_back({Text.rtrim('\r'), Number++});
    Buffer = Rest;
  }
  return Out;
}

llvm::SmallVector<Field, 16> splitFields(llvm::StringRef Text) {
  llvm::SmallVector<Field, 16> Out;
  constexpr llvm::StringLiteral Space(" \t\r\f\v");
  while (true) {
    size_t Start = Text.find_first_not_of(Space);
    if (Start == llvm::StringRef::npos)
      return Out;
    Text = Text.drop_front(Start);
    size_t End = Text.find_first_of(Space);
    Out.push_back({Text.take_front(End)});
    if (End == llvm::StringRef::npos)
      return Out;
    Text = Text.drop_front(End);
  }
}

llvm::SmallVector<Field, 16> splitCsv(llvm::StringRef Text) {
  llvm::SmallVector<Field, 16> Out;
  while (true) {
    auto [Head, Rest] = Text.split(',');
    Out.push_back({Head.trim(" \t")});
    if (Rest.data() == nullptr || Head.size() == Text.size())
      return Out;
    Text = Rest;
  }
}

std::optional<double> parseNumber(llvm::StringRef S) {
  if (S.empty() || S.size() > 64)
    return std::nullopt;
  // strtod accepts "inf", "nan" and hex floats: a measurement is none of them.
  for (char C : S)
    if (!(llvm::isDigit(C) || C == '.' || C == 'e' || C == 'E' || C == '+' ||
          C == '-'))
      return std::nullopt;
  std::string Copy = S.str();
  char *End = nullptr;
  errno = 0;
  double V = std::strtod(Copy.c_str(), &End);
  if (End != Copy.c_str() + Copy.size() || errno == ERANGE || !std::isfinite(V))
    return std::nullopt;
  return V;
}

std::optional<uint64_t> parseCount(llvm::StringRef S) {
  uint64_t V = 0;
  if (S.empty() || !llvm::all_of(S, llvm::isDigit) || S.getAsInteger(10, V))
    return std::nullopt;
  return V;
}

} // namespace shardc::calibrate
