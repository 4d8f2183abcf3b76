//===- JsonCheck.cpp - Is a report valid JSON with finite numbers ---------===//
#include "tests/support/JsonCheck.h"
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>

using namespace shardc::testgen;

namespace {

/// A recursive-descent reader that only validates.
class Reader {
public:
  explicit Reader(llvm::StringRef Text) : Text(Text) {}

  std::string run() {
    space();
    if (!value(0))
      return Error;
    space();
    if (Pos != Text.size())
      fail("text after the value");
    return Error;
  }

private:
  llvm::StringRef Text;
  size_t Pos = 0;
  std::string Error;

  bool fail(const std::string &Why) {
    if (Error.empty())
      Error = fmt::format("offset {}: {}", Pos, Why);
    return false;
  }
  char peek() const { return Pos < Text.size() ? Text[Pos] : '\0'; }
  void space() {
    while (Pos < Text.size() && (Text[Pos] == ' ' || Text[Pos] == '\n' ||
                                 Text[Pos] == '\r' || Text[Pos] == '\t'))
      ++Pos;
  }
  bool literal(llvm::StringRef Word) {
    if (!Text.substr(Pos).startswith(Word))
      return fail("not a JSON value");
    Pos += Word.size();
    return true;
  }

  bool value(unsigned Depth) {
    if (Depth > 512)
      return fail("nested too deeply");
    switch (peek()) {
    case '{':
      return object(Depth);
    case '[':
      return array(Depth);
    case '"':
      return string();
    case 't':
      return literal("true");
    case 'f':
      return literal("false");
    case 'n':
      return literal("null");
    default:
      return number();
    }
  }

  bool object(unsigned Depth) {
    ++Pos;
    space();
    if (peek() == '}')
      return ++Pos, true;
    for (;;) {
      space();
      if (peek() != '"')
        return fail("an object key is not a string");
      if (!string())
        return false;
      space();
      if (peek() != ':')
        return fail("no ':' after an object key");
      ++Pos;
      space();
      if (!value(Depth + 1))
        return false;
      space();
      if (peek() == '}')
        return ++Pos, true;
      if (peek() != ',')
        return fail("no ',' or '}' in an object");
      ++Pos;
    }
  }

  bool array(unsigned Depth) {
    ++Pos;
    space();
    if (peek() == ']')
      return ++Pos, true;
    for (;;) {
      space();
      if (!value(Depth + 1))
        return false;
      space();
      if (peek() == ']')
        return ++Pos, true;
      if (peek() != ',')
        return fail("no ',' or ']' in an array");
      ++Pos;
    }
  }

  bool string() {
    ++Pos;
    while (Pos < Text.size() && Text[Pos] != '"') {
      unsigned char C = Text[Pos];
      if (C < 0x20)
        return fail("a control character in a string");
      if (C == '\\') {
        ++Pos;
        char E = peek();
        if (E == 'u') {
          for (int I = 1; I <= 4; ++I)
            if (!std::isxdigit(static_cast<unsigned char>(
                    Pos + I < Text.size() ? Text[Pos + I] : '\0')))
              return fail("a bad \\u escape");
          Pos += 4;
        } else if (llvm::StringRef("\"\\/bfnrt").find(E) ==
                       llvm::StringRef::npos ||
                   E == '\0') {
          return fail("a bad escape");
        }
      }
      ++Pos;
    }
    if (Pos >= Text.size())
      return fail("an unterminated string");
    ++Pos;
    return true;
  }

  bool digits() {
    size_t Start = Pos;
    while (Pos < Text.size() && Text[Pos] >= '0' && Text[Pos] <= '9')
      ++Pos;
    return Pos > Start;
  }

  bool number() {
    size_t Start = Pos;
    if (peek() == '-')
      ++Pos;
    if (peek() == '0')
      ++Pos;
    else if (!digits())
      return fail("not a JSON value");
    if (peek() == '.' && (++Pos, !digits()))
      return fail("no digits after a decimal point");
    if (peek() == 'e' || peek() == 'E') {
      ++Pos;
      if (peek() == '+' || peek() == '-')
        ++Pos;
      if (!digits())
        return fail("no digits in an exponent");
    }
    std::string Num = Text.slice(Start, Pos).str();
    if (!std::isfinite(std::strtod(Num.c_str(), nullptr))) {
      Pos = Start;
      return fail("the number " + Num + " is not a finite double");
    }
    return true;
  }
};

} // namespace

std::string shardc::testgen::checkJsonText(llvm::StringRef Text) {
  return Reader(Text).run();
}
